# Chapter 9: the largest relative difference between the hand-written gradient and central
# differences, against the step h: the toy model in double, and the multi-head layer of
# chapter 5 with its finite differences taken in double and in float.
set xlabel 'step $\delta$'
set ylabel 'largest relative difference' offset -1,0
set logscale xy
set xrange [1e-10:0.1]
set yrange [1e-14:3]
set format x '$10^{%L}$'
set format y '$10^{%L}$'
set key outside bottom center maxrows 2 height 1.5 nobox
plot data('backprop-epsilon-toy') using 1:2 with linespoints ls 1 title 'toy model, double', \
     data('backprop-epsilon') using 1:2 with linespoints ls 3 title 'multi-head layer, double', \
     data('backprop-epsilon') using 1:3 with linespoints ls 2 title 'multi-head layer, float'
