# Chapter 1: the five softmax weights of a fixed row as the temperature varies, each with its
# own line style (dash pattern and, every few temperatures, a point of its own type, so that they
# part in grey); a black point marks the largest weight of p2 on the program's grid.  The label
# for it sits in the empty space under p1, left of the peak.
set terminal cairolatex pdf input colortext size 12cm,4.9cm font ",9"
set output outfile
stats data('foundations-temperature') using 1:3 name 'second' nooutput
peak_t = second_pos_max_y
peak_p = second_max_y
set xlabel 'temperature $t$'
set ylabel 'weight'
set logscale x
set xrange [0.05:20]
set yrange [0:1]
set key top right maxrows 3
set label sprintf('$p_2$ peaks: $%.3f$ at $t = %.1f$', peak_p, peak_t) \
    at 0.062, 0.42 left front
set arrow from 0.95, 0.39 to peak_t * 0.96, peak_p + 0.02 head size screen 0.012,25 lw 0.8
# The points of the five curves are staggered along the grid, and left off where a weight is
# still about 0, so that they do not pile up on one another.
visible(p) = p > 0.01 ? p : NaN
plot for [j=1:5] data('foundations-temperature') using 1:(column(j+1)) with lines ls j notitle, \
     for [j=1:5] data('foundations-temperature') every 6::j using 1:(visible(column(j+1))) \
         with points ls j notitle, \
     for [j=1:5] NaN with linespoints ls j title sprintf('$p_%d$', j), \
     '+' using (peak_t):(peak_p) every ::0::0 with points pt 7 ps 1 lc rgb '#000000' notitle
