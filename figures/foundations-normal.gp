# Chapter 1: histogram of PCG32 + Box-Muller normal samples against the Gaussian density.
set xlabel '$x$'
set ylabel 'density'
set xrange [-4:4]
set yrange [0:*]
set style fill solid 0.5 noborder
set boxwidth 0.1 absolute
set key top right spacing 1.3 width 2
plot data('foundations-normal') using 1:2 with boxes lc rgb "#1b6ca8" title 'samples', \
     '' using 1:3 with lines ls 2 title '$\phi(x)$'
