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
set key outside right top Left reverse nobox spacing 1.15 samplen 2.5
set style line 7 lc rgb "#0b3c5d" lw 2 pt 4 ps 0.5
set style line 8 lc rgb "#a0522d" lw 2 pt 6 ps 0.5
f = data('cost-sweep')
plot f index 0 using 1:2 with linespoints ls 1 title '\texttt{naive}', \
     f index 1 using 1:2 with linespoints ls 2 title '\texttt{causal}', \
     f index 2 using 1:2 with linespoints ls 3 title '\texttt{tiled}', \
     f index 3 using 1:2 with linespoints ls 4 title '\texttt{online}', \
     f index 4 using 1:2 with linespoints ls 5 title '\texttt{vexp}', \
     f index 5 using 1:2 with linespoints ls 7 title '\texttt{flash}, one core', \
     f index 6 using 1:2 with linespoints ls 8 title '\texttt{flash}, all cores', \
     f index 7 using 1:2 with linespoints ls 6 title '\texttt{static}, all cores', \
     f index 0 using 1:4 with lines lc rgb "#000000" lw 1.5 dt 3 title 'shortest possible'
