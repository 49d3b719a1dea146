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
set ylabel 'in-context learning score (nats)'
set xrange [0:last]
set arrow 1 from phase, graph 0 to phase, graph 1 nohead lc rgb "#666666" lw 1.5 dt 3
unset key
plot data('induction-loss') using 1:6 with lines ls 1
