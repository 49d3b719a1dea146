# Chapter 4: the measured variance of q.k divided by d, against d (log x), with error bars of one
# standard error, and the prediction Var/d = 1.  Columns: d, variance, standard error, d.
set xlabel '$d_k$'
set ylabel 'variance of $q\cdot k$, divided by $d_k$'
set logscale x 2
set format x '$%g$'
set format y '$%.2f$'
set xrange [0.7:1500]
set yrange [0.9:1.1]
set ytics 0.05
set key top right
plot 1 with lines ls 6 title '$\mathrm{Var} = d_k$', \
     data('scaling-variance') using 1:($2 / $1):($3 / $1) with yerrorbars ls 1 \
     title 'measured, $\pm 1$ standard error'
