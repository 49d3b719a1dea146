# Chapter 6: each head's mean row entropy, with and without the 1/sqrt(d_head) scale, for the
# tiny (index 0) and the full (index 1) configuration; lines at ln T and ln(T!)/T.
# Columns: head, scaled, unscaled, fraction, ln T, ceiling.
set terminal cairolatex pdf input colortext size 15cm,6.5cm font ",9"
set output outfile
stats data('entropy-heads') index 0 using 5:6 nooutput
ln_t = STATS_max_x
ceiling = STATS_max_y
set multiplot
set style fill solid 0.8 border lc rgb '#000000'
set boxwidth 0.38
set yrange [0:ln_t * 1.08]
set ylabel 'mean entropy (nats)'
set xlabel 'head'
set xtics 1 scale 0
set tmargin at screen 0.82
set bmargin at screen 0.16
set lmargin at screen 0.08
set rmargin at screen 0.37
unset key
set xrange [-0.6:3.6]
set title 'tiny' offset 0,-0.6
plot data('entropy-heads') index 0 using ($1 - 0.2):2 with boxes ls 1, \
     '' index 0 using ($1 + 0.2):3 with boxes ls 2 dt 1 fs pattern 4, \
     ln_t with lines ls 6 lw 2, ceiling with lines lc rgb "#6a4c93" lw 1.5 dt 4
set lmargin at screen 0.45
set rmargin at screen 0.99
unset ylabel
set xrange [-0.6:7.6]
set title 'full' offset 0,-0.6
set key at screen 0.5, screen 0.995 center top horizontal maxrows 1 nobox
plot data('entropy-heads') index 1 using ($1 - 0.2):2 with boxes ls 1 title 'scaled', \
     '' index 1 using ($1 + 0.2):3 with boxes ls 2 dt 1 fs pattern 4 title 'no scale', \
     ln_t with lines ls 6 lw 2 title '$\ln T$', \
     ceiling with lines lc rgb "#6a4c93" lw 1.5 dt 4 title '$\ln(T!)/T$'
unset multiplot
