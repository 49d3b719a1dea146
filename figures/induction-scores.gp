# Chapter 12: every head's previous-token score (left) and induction score (right) against the
# training step on the held-out sequences; a head's colour and point from its line style,
# layer 1 solid with filled points, layer 2 dashed with open ones, the phase-change step
# dotted.  Columns: step, then previous and induction score of each head in turn.
set terminal cairolatex pdf input colortext size 13cm,6.5cm font ",9"
set output outfile
stats data('induction-phase') using 1 nooutput
phase = STATS_max
stats data('induction-phase') using 2 nooutput
H = int(STATS_max)
stats data('induction-scores') using 1 nooutput
last = STATS_max
array open[5] = [6, 4, 8, 10, 12]     # the open points of line styles 1 to 5
set multiplot layout 1,2
set xlabel 'training step'
set xrange [0:last]
set yrange [0:1]
set xtics 0, 500
set rmargin 4
set arrow 1 from phase, 0 to phase, 1 nohead lc rgb "#666666" lw 1.5 dt 3
set key top right
set title 'previous-token score'
plot for [k = 0:H - 1] data('induction-scores') using 1:(column(2 + 2 * k)) with linespoints \
         ls k + 1 dt 1 pi 8 title sprintf('layer 1, head %d', k), \
     for [k = H:2 * H - 1] data('induction-scores') using 1:(column(2 + 2 * k)) with linespoints \
         ls k - H + 1 pi 8 dt 2 pt open[k - H + 1] title sprintf('layer 2, head %d', k - H)
set title 'induction score'
unset key
plot for [k = 0:H - 1] data('induction-scores') using 1:(column(3 + 2 * k)) with linespoints \
         ls k + 1 dt 1 pi 8 notitle, \
     for [k = H:2 * H - 1] data('induction-scores') using 1:(column(3 + 2 * k)) with linespoints \
         ls k - H + 1 pi 8 dt 2 pt open[k - H + 1] notitle
unset multiplot
