# Chapter 7: memory against n (log-log): what each variant allocates beyond its inputs and
# output (lines), and the peak resident memory of a process running one head (points).
set terminal cairolatex pdf input colortext size 15cm,7.5cm font ",9"
set output outfile
set datafile missing '?'
set logscale xy
set xrange [200:80000]
set xtics ("256" 256, "1024" 1024, "4096" 4096, "16384" 16384, "65536" 65536)
set format y '$10^{%L}$'
set xlabel 'tokens $n$'
set ylabel 'MiB'
set key outside right top nobox
# Both processes take the same memory where both ran: flash's open diamonds are drawn larger,
# over naive's dots, so that both show.
f = data('cost-memory')
plot f using 1:4 with lines ls 1 title '\texttt{naive}: the pattern', \
     f using 1:6 with lines ls 3 title '\texttt{tiled}: the panel', \
     f using 1:7 with lines ls 5 title '\texttt{flash}: the workspaces', \
     f using 1:2 with points ls 1 ps 0.9 title '\texttt{naive}, whole process', \
     f using 1:3 with points ls 5 ps 1.6 title '\texttt{flash}, whole process'
