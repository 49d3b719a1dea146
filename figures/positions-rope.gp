# Chapter 10: RoPE turns two pairs of a query's coordinates, at positions 0 to 12: pair 0 by
# one radian per position (outer circle, numbered), pair 1 by 0.1 radian (inner circle).  Two
# query-key pairs of pair 0 are drawn as arrows from the centre, a query at 3 with a key at 5
# and a query at 8 with a key at 10; each arc marks the angle between them, two radians both
# times, since both are two positions apart.
set terminal cairolatex pdf input colortext size 8cm,9cm font ",9"
set output outfile
set size ratio -1
set xrange [-1.25:1.25]
set yrange [-1.25:1.25]
set xlabel 'first coordinate of the pair'
set ylabel 'second coordinate of the pair'
set parametric
set trange [0:2*pi]
set key outside below height 1 nobox
set label 1 '\scriptsize 2 rad' at 0.32 * cos(4), 0.32 * sin(4) center front
set label 2 '\scriptsize 2 rad' at 0.4 * cos(9), 0.4 * sin(9) center front
# An arc of radius r from angle a to angle b (within one turn): NaN elsewhere on the circle.
arc_x(t, r, a, b) = (t >= a && t <= b) ? r * cos(t) : NaN
arc_y(t, r, a, b) = (t >= a && t <= b) ? r * sin(t) : NaN
set samples 400
plot cos(t), sin(t) with lines lc rgb "#bbbbbb" lw 0.8 notitle, \
     0.6 * cos(t), 0.6 * sin(t) with lines lc rgb "#bbbbbb" lw 0.8 notitle, \
     arc_x(t, 0.22, 3, 5), arc_y(t, 0.22, 3, 5) with lines lc rgb "#000000" lw 0.8 notitle, \
     arc_x(t, 0.5, 8 - 2*pi, 10 - 2*pi), arc_y(t, 0.5, 8 - 2*pi, 10 - 2*pi) with lines \
        lc rgb "#000000" lw 0.8 notitle, \
     data('positions-rope') every ::3::3 using (0):(0):2:3 with vectors \
        lc rgb "#000000" lw 1.2 filled head size 0.06,20 title 'query at 3 and 8', \
     '' every ::8::8 using (0):(0):2:3 with vectors lc rgb "#000000" lw 1.2 filled \
        head size 0.06,20 notitle, \
     '' every ::5::5 using (0):(0):2:3 with vectors lc rgb "#000000" lw 1.2 dt 2 \
        nohead title 'key at 5 and 10', \
     '' every ::10::10 using (0):(0):2:3 with vectors lc rgb "#000000" lw 1.2 dt 2 \
        nohead notitle, \
     data('positions-rope') using 2:3 with points ls 1 pt 7 ps 0.8 title 'pair 0, $\omega_0 = 1$', \
     '' using (1.13 * $2):(1.13 * $3):(sprintf('\\scriptsize %d', $1)) with labels notitle, \
     '' using 4:5 with points ls 2 pt 5 ps 0.6 title 'pair 1, $\omega_1 = 0.1$'
