# Chapter 4: the norm of the gradient that flows back through the softmax against d,
# mean and median over rows, with and without the 1/sqrt(d) scale.
set xlabel '$d_k$'
set ylabel '$\lVert \partial \mathcal{L}/\partial s \rVert$' offset -1,0
set logscale x 2
set logscale y 10
set format x '$%g$'
set format y '$10^{%T}$'
set xrange [1:*]
set key bottom left
# Colour and point type tell the scale; the line tells the statistic: the mean solid with
# filled points, the median dotted with open ones.
plot data('scaling-saturation') using 1:8 with linespoints ls 1 dt 1 title '$1/\sqrt{d_k}$, mean', \
     '' using 1:9 with linespoints ls 1 dt 3 pt 6 title '$1/\sqrt{d_k}$, median', \
     '' using 1:4 with linespoints ls 2 dt 1 title 'no scale, mean', \
     '' using 1:5 with linespoints ls 2 dt 3 pt 4 title 'no scale, median'
