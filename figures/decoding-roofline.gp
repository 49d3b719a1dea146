# Chapter 11: the roofline of the run (one core) from the peak and bandwidth it measured,
# with the decoding steps of the long cache, its shorter formats, and a block of queries.
set logscale xy
set xlabel 'operations per byte read'
set ylabel 'GFLOP/s'
set key top left
# 8-bit and gqa lie nearly on one another: the shorter formats are open squares, drawn over the
# filled circles of float, so that both show.
f = data('decoding-roofline')
set xrange [0.03125:64]
set yrange [0.1:8000]
set format x '$%g$'
set format y '$%g$'
step(n) = n eq 'mha' || n eq 'gqa' || n eq 'mqa'
short(n) = n eq 'half' || n eq 'eightbit'
name(n) = n eq 'eightbit' ? '8-bit' : n eq 'prefill' ? 'block' : n
# The 8-bit label sits below and right of its square, under gqa's: above and left of it the
# roof ran through it.
shift(n) = n eq 'gqa' ? 0.62 : n eq 'mqa' ? 1.8 : n eq 'half' ? 0.6 : n eq 'eightbit' ? 0.38 : 1.0
xshift(n) = n eq 'eightbit' ? 1.25 : 1.2
plot f index 1 using 1:2 with lines lc rgb "#000000" lw 1.5 title 'roof: bandwidth, then peak', \
     f index 0 using 1:(step(strcol(3)) ? $2 : NaN) with points ls 2 pt 7 ps 1.0 \
       title 'one query, float', \
     f index 0 using 1:(short(strcol(3)) ? $2 : NaN) with points ls 2 pt 4 ps 1.3 \
       title 'one query, half and 8-bit', \
     f index 0 using 1:(strcol(3) eq 'prefill' ? $2 : NaN) with points ls 2 pt 9 ps 1.3 \
       title 'a block of queries', \
     f index 0 using ($1 * xshift(strcol(3))):($2 * shift(strcol(3))):(name(strcol(3))) \
       with labels left \
       notitle
