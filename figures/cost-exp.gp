# Chapter 7: error of the vectorised exponential and of the C library's expf, in ulps.  The two
# clouds would cover each other on one plot, in grey above all: each has a panel of its own, on
# one scale, vexp's above expf's.
set multiplot
set lmargin at screen 0.12
set rmargin at screen 0.97
set xrange [-10:0]
set yrange [-2.2:2.7]
set ytics -2,1,2
unset key
set format x ''
set tmargin at screen 0.98
set bmargin at screen 0.57
set label 1 '\texttt{vexp}' at graph 0.02, graph 0.88 left front
plot data('cost-exp') using 1:2 with points ls 1 pt 7 ps 0.2
set tmargin at screen 0.53
set bmargin at screen 0.12
set format x '$%g$'
set xlabel '$x$'
set label 1 '\texttt{expf}'
set label 2 'error (units in the last place)' at screen 0.03, screen 0.55 center rotate by 90
plot data('cost-exp') using 1:3 with points ls 2 pt 7 ps 0.2
unset multiplot
