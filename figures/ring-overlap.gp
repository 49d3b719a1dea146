# Chapter 15: the time to compute a block of c rows against c queries, and to send its keys and
# values (8cd bytes) from one rank to another, by c (log-log): measured (points) and as the
# model predicts from the measured latency, bandwidth and kernel rate (dashed), for shared
# memory and for TCP over loopback.  Where computing meets sending is c*.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set logscale xy
set format y '$10^{%L}$'
set xlabel 'block size $c$ (rows)'
set ylabel 'time (s)' offset -1,0
set key outside right top nobox
v = data('ring-overlap-vader')
t = data('ring-overlap-tcp')
plot v using 1:7 with linespoints ls 1 title 'compute', \
     v using 1:9 with lines ls 1 dt 2 lw 1 title 'compute, model', \
     v using 1:8 with linespoints ls 2 title 'send, vader', \
     v using 1:10 with lines ls 2 dt 2 lw 1 title 'send, vader, model', \
     t using 1:8 with linespoints ls 3 title 'send, TCP', \
     t using 1:10 with lines ls 3 dt 2 lw 1 title 'send, TCP, model'
