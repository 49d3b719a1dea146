# Chapter 12: the in-context learning score (the loss late in the second half minus the loss
# early in the first half, in nats; negative when the context helps) against the training
# step, with the phase-change step dotted.
set terminal cairolatex pdf input colortext size 12cm,5.5cm font ",9"
set output outfile
stats data('induction-phase') using 1 nooutput
phase = STATS_max
stats data('induction-loss') using 1 nooutput
last = STATS_max
set xlabel 'training step'
# The axis title in two lines, as it is longer than the axis; the y range leaves room under
# its lowest label, so that it does not meet the first of the x axis.
set ylabel '\shortstack{in-context learning\\score (nats)}' offset -2,0
set lmargin 11
set yrange [-3.25:0.15]
set ytics -3, 0.5, 0
set xrange [0:last]
set arrow 1 from phase, graph 0 to phase, graph 1 nohead lc rgb "#666666" lw 1.5 dt 3
unset key
plot data('induction-loss') using 1:6 with lines ls 1
