# Chapter 11: time to produce one token at context n, recomputed and with the cache (log-log),
# with guides of slopes 2 and 1 through the longest point of each.
set terminal cairolatex pdf input colortext size 15cm,7.5cm font ",9"
set output outfile
set logscale xy
set datafile missing '?'
set format y '$10^{%L}$'
set xlabel 'context $n$ (tokens)'
set ylabel 'time per token (ms)' offset -1.5,0
set key outside right top nobox
f = data('decoding-per-token')
stats f using 1:2 name 'FULL' nooutput
stats f using 1:3 name 'CACHED' nooutput
set xrange [CACHED_min_x / 1.3 : CACHED_max_x * 1.3]
set xtics (64, 256, 1024, 4096, 16384, 65536)
slope2(x) = FULL_max_y * (x / FULL_max_x)**2
slope1(x) = CACHED_max_y * (x / CACHED_max_x)
plot f using 1:2 with linespoints ls 2 title 'recompute', \
     f using 1:3 with linespoints ls 1 title 'cached step', \
     f using 1:4 with linespoints ls 3 title 'cached, window 256', \
     slope2(x) with lines lc rgb "#888888" lw 1 dt 2 title 'slope 2', \
     slope1(x) with lines lc rgb "#888888" lw 1 dt 3 title 'slope 1'
