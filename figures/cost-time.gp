# Chapter 7: median time of every variant against n (log-log), with the shortest time the
# measured peak of all cores allows.
set terminal cairolatex pdf input colortext size 15cm,8cm font ",9"
set output outfile
set datafile missing '?'
set logscale xy
set xrange [200:10000]
set xtics (256, 512, 1024, 2048, 4096, 8192)
set format y '$10^{%L}$'
set xlabel 'tokens $n$'
set ylabel 'time per head (ms)'
set key outside right top nobox
# Eight series: each its own point type, filled or open, so that they stay apart in grey;
# the reference lines are thin, black and without points.
set style line 11 lc rgb "#1b6ca8" lw 1.5 pt 7 ps 0.8
set style line 12 lc rgb "#d1495b" lw 1.5 pt 5 ps 0.8
set style line 13 lc rgb "#2e933c" lw 1.5 pt 9 ps 0.9
set style line 14 lc rgb "#edae49" lw 1.5 pt 13 ps 0.9
set style line 15 lc rgb "#6a4c93" lw 1.5 pt 6 ps 0.8
set style line 16 lc rgb "#0b3c5d" lw 1.5 pt 4 ps 0.8
set style line 17 lc rgb "#a0522d" lw 1.5 pt 8 ps 0.9
set style line 18 lc rgb "#555555" lw 1.5 pt 2 ps 0.8
f = data('cost-sweep')
plot f index 0 using 1:2 with linespoints ls 11 title '\texttt{naive}', \
     f index 1 using 1:2 with linespoints ls 12 title '\texttt{causal}', \
     f index 2 using 1:2 with linespoints ls 13 title '\texttt{tiled}', \
     f index 3 using 1:2 with linespoints ls 14 title '\texttt{online}', \
     f index 4 using 1:2 with linespoints ls 15 title '\texttt{vexp}', \
     f index 5 using 1:2 with linespoints ls 16 title '\texttt{flash}, one core', \
     f index 6 using 1:2 with linespoints ls 17 title '\texttt{flash}, all cores', \
     f index 7 using 1:2 with linespoints ls 18 title '\texttt{static}, all cores', \
     f index 0 using 1:4 with lines lc rgb "#000000" lw 1 dt 3 title 'shortest possible'
