# Chapter 7: the speed-up the largest-first dynamic schedule of causal blocks allows.
set logscale xy 2
set xrange [1:1024]
set yrange [1:1024]
set xlabel 'threads $T$'
set ylabel 'speed-up bound'
set key top left
f = data('cost-schedule')
plot x with lines ls 6 title 'ideal: $T$', \
     f using 1:2 with linespoints ls 1 title '$n = 4096$', \
     f using 1:3 with linespoints ls 2 pt 5 title '$n = 65\,536$'
