# Chapter 11: the roofline of the run (one core) from the peak and bandwidth it measured,
# with the decoding steps of the long cache.
set logscale xy
set xlabel 'operations per byte read'
set ylabel 'GFLOP/s'
set key top left Left reverse
f = data('decoding-roofline')
set xrange [0.03125:64]
set format x '$%g$'
set format y '$%g$'
shift(name) = name eq 'gqa' ? 0.55 : name eq 'mqa' ? 1.8 : 1.0
plot f index 1 using 1:2 with lines lc rgb "#000000" lw 1.5 title 'roof: bandwidth, then peak', \
     f index 0 using 1:2 with points ls 2 pt 7 ps 1.0 title 'decoding steps', \
     f index 0 using ($1 * 1.2):($2 * shift(stringcolumn(3))):3 with labels left notitle
