# Chapter 1: histogram of PCG32 + Box-Muller normal samples against the Gaussian density (top),
# and the residual, measured density minus phi, inside a band of two standard errors (bottom).
# Columns: x, measured density, phi(x), standard error of the measured density.
set terminal cairolatex pdf input colortext size 12cm,6.8cm font ",9"
set output outfile
set multiplot
set lmargin at screen 0.12
set rmargin at screen 0.97
set xrange [-4:4]
set tmargin at screen 0.98
set bmargin at screen 0.40
set format x ''
set ylabel 'density' offset -1,0
set yrange [0:*]
set style fill solid 0.5 noborder
set boxwidth 0.1 absolute
# One key for both panels, in the empty top right corner of the top one: a key in the narrow
# residual panel would hide its points.
set key top right
plot data('foundations-normal') using 1:2 with boxes lc rgb "#1b6ca8" title 'samples', \
     '' using 1:3 with lines ls 2 dt 1 title '$\phi(x)$', \
     NaN with filledcurves lc rgb "#555555" fs transparent solid 0.25 noborder \
         title '$\pm 2\sigma$', \
     NaN with points pt 7 ps 0.45 lc rgb "#1b6ca8" title 'residual'
set tmargin at screen 0.37
set bmargin at screen 0.11
set format x '$%g$'
set xlabel '$x$'
set ylabel 'measured $-\ \phi$'
set yrange [-0.0125:0.0125]
set ytics 0.005
set format y '$%g$'
set style fill transparent solid 0.25 noborder
unset key
plot data('foundations-normal') using 1:(-2 * $4):(2 * $4) with filledcurves \
         lc rgb "#555555", \
     '' using 1:($2 - $3) with points pt 7 ps 0.45 lc rgb "#1b6ca8", \
     0 with lines lc rgb "#000000" lw 0.6 notitle
unset multiplot
