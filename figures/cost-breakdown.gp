# Chapter 7: the share of the time of flash on one thread spent in each of its parts, against n.
set terminal cairolatex pdf input colortext size 12cm,7cm font ",9"
set output outfile
set logscale x
set xrange [200:10000]
set xtics (256, 512, 1024, 2048, 4096, 8192)
set yrange [0:*]
set xlabel 'tokens $n$'
set ylabel '\% of the time'
set key outside right top nobox
f = data('cost-breakdown')
plot f using 1:3 with linespoints ls 1 ps 0.9 title 'score tiles', \
     f using 1:5 with linespoints ls 2 ps 0.9 title 'output tiles', \
     f using 1:4 with linespoints ls 3 ps 1.0 title 'softmax', \
     f using 1:6 with linespoints ls 4 ps 0.9 title 'diagonal blocks', \
     f using 1:2 with linespoints ls 5 ps 0.9 title 'queries', \
     f using 1:7 with linespoints lc rgb "#000000" lw 1.2 pt 3 ps 0.9 dt 1 title 'store'
