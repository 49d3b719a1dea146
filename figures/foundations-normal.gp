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
set ylabel 'density'
set yrange [0:*]
set style fill solid 0.5 noborder
set boxwidth 0.1 absolute
set key top right spacing 1.3 width 2
plot data('foundations-normal') using 1:2 with boxes lc rgb "#1b6ca8" title 'samples', \
     '' using 1:3 with lines ls 2 title '$\phi(x)$'
set tmargin at screen 0.37
set bmargin at screen 0.11
set format x '$%g$'
set xlabel '$x$'
set ylabel 'measured $-\ \phi$'
set yrange [-0.0125:0.0125]
set ytics 0.005
set format y '$%g$'
set style fill transparent solid 0.25 noborder
set key top left horizontal spacing 1.3 width 1
plot data('foundations-normal') using 1:(-2 * $4):(2 * $4) with filledcurves \
         lc rgb "#555555" title '$\pm 2\sigma$', \
     '' using 1:($2 - $3) with points pt 7 ps 0.45 lc rgb "#1b6ca8" title 'residual', \
     0 with lines lc rgb "#000000" lw 0.6 notitle
unset multiplot
