# Chapter 4: the mean top weight and the mean entropy of a row of 8 softmax weights against d,
# for scores q.k times 1, 1/sqrt(d) and 1/d.  Columns: d, then 4 per factor, then ln T and 1/T.
set terminal cairolatex pdf input colortext size 15cm,6.5cm font ",9"
set output outfile
set multiplot
set logscale x 2
set format x '$%g$'
set xlabel '$d_k$'
set xrange [1:*]
set tmargin at screen 0.97
set bmargin at screen 0.16
set lmargin at screen 0.08
set rmargin at screen 0.48
unset key
set ylabel 'mean top weight'
set yrange [0:1.05]
plot data('scaling-saturation') using 1:2 with linespoints ls 2, \
     '' using 1:6 with linespoints ls 1, '' using 1:10 with linespoints ls 3, \
     '' using 1:15 with lines ls 6
# One key for both panels, in the empty middle of the right one.
set key at graph 0.98, graph 0.68 right top
set lmargin at screen 0.59
set rmargin at screen 0.99
set ylabel 'mean entropy (nats)'
set yrange [0:2.3]
plot data('scaling-saturation') using 1:3 with linespoints ls 2 title 'no scale', \
     '' using 1:7 with linespoints ls 1 title '$1/\sqrt{d_k}$', \
     '' using 1:11 with linespoints ls 3 title '$1/d_k$', \
     '' using 1:14 with lines ls 6 title 'uniform row'
unset multiplot
