# Chapter 4: the measured variance of q.k against d (log-log), with the prediction Var = d.
set xlabel '$d$'
set ylabel 'variance of $q\cdot k$'
set logscale xy 2
set format x '$%g$'
set format y '$%g$'
set xrange [0.7:1500]
set yrange [0.7:1500]
set key bottom right spacing 1.4 width 3
plot data('scaling-variance') using 1:4 with lines ls 6 title '$\mathrm{Var} = d$', \
     '' using 1:2:3 with yerrorbars ls 1 title 'measured'
