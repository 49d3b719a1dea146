# Chapter 7: error of the vectorised exponential and of the C library's expf, in ulps.
set xlabel '$x$'
set ylabel 'error (units in the last place)'
set xrange [-10:0]
set yrange [-3:4]
set ytics -3,1,3
set key top center horizontal Left reverse nobox samplen 1
plot data('cost-exp') using 1:2 with points ls 1 pt 7 ps 0.2 title '\texttt{vexp}', \
     '' using 1:3 with points ls 2 pt 7 ps 0.2 title '\texttt{expf}'
