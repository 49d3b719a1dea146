# Chapter 12: layer 2's bias by distance against the training step, one panel per head of
# layer 2.  The data has a block per head, "step distance bias", a scan line per step.  The
# dashed lines bound the admissible distances (shortest - 1 to T/2 - 1), where the right key
# can be; the dotted line is the phase-change step.  One colour scale for both panels, centred
# on 0: diverging, red above 0 and blue below, with the reds darkening to nearly black and the
# blues only to a pale tone, so that in grey high prints dark and low prints pale.
set terminal cairolatex pdf input colortext size 13cm,5.6cm font ",9"
set output outfile
stats data('induction-phase') using 1 nooutput
phase = STATS_max
stats data('induction-phase') using 2 nooutput
H = int(STATS_max)
stats data('induction-phase') using 3 nooutput
shortest = int(STATS_max)
stats data('induction-bias') using 1 nooutput
last = STATS_max
stats data('induction-bias') using 2 nooutput
T = int(STATS_max) + 1
stats data('induction-bias') using 3 nooutput
top = abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max)
set palette defined (0 "#b3d4ea", 1 "#f7f7f7", 2 "#8b0a1f")
set cbrange [-top:top]
set xrange [0:last]
set yrange [-0.5:T - 1.5]
set xtics 0, 500
set ytics 0, 2
set tics scale 0.5 font ",8"
set xlabel 'training step'
unset key
unset grid
set arrow 1 from phase, graph 0 to phase, graph 1 nohead lc rgb "#333333" lw 1.5 dt 3 front
set arrow 2 from 0, shortest - 1.5 to last, shortest - 1.5 nohead lc rgb "#333333" lw 1 dt 2 front
set arrow 3 from 0, T / 2 - 0.5 to last, T / 2 - 0.5 nohead lc rgb "#333333" lw 1 dt 2 front
set multiplot layout 1, H
do for [h = 0:H - 1] {
    set title sprintf('layer 2, head %d', h) font ",8"
    if (h == 0) {
        set ylabel 'distance $i - j$' offset -1,0
    } else {
        unset ylabel
    }
    if (h < H - 1) {
        unset colorbox
    } else {
        set colorbox
    }
    plot data('induction-bias') index h using 1:2:3 with image
}
unset multiplot
