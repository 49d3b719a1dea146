# Chapter 7: time of the naive causal head against n (log-log), with its least-squares line.
set datafile missing '?'
set logscale xy
set xrange [200:10000]
set xtics (256, 512, 1024, 2048, 4096, 8192)
set format y '$10^{%L}$'
set xlabel 'tokens $n$'
set ylabel 'time per head (ms)'
set key top left nobox
plot data('cost-naive') using 1:3 with lines ls 6 title 'least-squares line', \
     '' using 1:2 with linespoints ls 1 title 'naive head, measured'
