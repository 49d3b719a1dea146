# Chapter 10: RoPE turns two pairs of a query's coordinates, at positions 0 to 12: pair 0 by
# one radian per position (outer circle, numbered), pair 1 by 0.1 radian (inner circle).
set terminal cairolatex pdf input colortext size 8cm,9cm font ",9"
set output outfile
set size ratio -1
set xrange [-1.25:1.25]
set yrange [-1.25:1.25]
set xlabel 'first coordinate of the pair'
set ylabel 'second coordinate of the pair'
set parametric
set trange [0:2*pi]
set key outside below spacing 1.2
plot cos(t), sin(t) with lines lc rgb "#bbbbbb" lw 0.8 notitle, \
     0.6 * cos(t), 0.6 * sin(t) with lines lc rgb "#bbbbbb" lw 0.8 notitle, \
     data('positions-rope') using 2:3 with points ls 1 pt 7 ps 0.8 title 'pair 0, $\omega_0 = 1$', \
     '' using (1.13 * $2):(1.13 * $3):(sprintf('\\scriptsize %d', $1)) with labels notitle, \
     '' using 4:5 with points ls 2 pt 5 ps 0.6 title 'pair 1, $\omega_1 = 0.1$'
