# Chapter 7: useful GFLOP/s of every variant against n, with the measured peaks.
set terminal cairolatex pdf input colortext size 15cm,8cm font ",9"
set output outfile
set datafile missing '?'
set logscale x
set logscale y
set xrange [200:10000]
set xtics (256, 512, 1024, 2048, 4096, 8192)
set xlabel 'tokens $n$'
set ylabel 'useful GFLOP/s'
set key outside right top Left reverse nobox spacing 1.15 samplen 2.5
set style line 7 lc rgb "#0b3c5d" lw 2 pt 4 ps 0.5
set style line 8 lc rgb "#a0522d" lw 2 pt 6 ps 0.5
f = data('cost-sweep')
plot f index 0 using 1:3 with linespoints ls 1 title '\texttt{naive}', \
     f index 1 using 1:3 with linespoints ls 2 title '\texttt{causal}', \
     f index 2 using 1:3 with linespoints ls 3 title '\texttt{tiled}', \
     f index 3 using 1:3 with linespoints ls 4 title '\texttt{online}', \
     f index 4 using 1:3 with linespoints ls 5 title '\texttt{vexp}', \
     f index 5 using 1:3 with linespoints ls 7 title '\texttt{flash}, one core', \
     f index 6 using 1:3 with linespoints ls 8 title '\texttt{flash}, all cores', \
     f index 7 using 1:3 with linespoints ls 6 title '\texttt{static}, all cores', \
     f index 0 using 1:5 with lines lc rgb "#000000" lw 1.2 dt 2 title 'peak, one core', \
     f index 0 using 1:6 with lines lc rgb "#000000" lw 1.2 dt 1 title 'peak, all cores'
