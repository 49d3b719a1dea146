# Chapter 1: the five softmax weights of a fixed row as the temperature varies, each with its
# own dash type for greyscale; a point marks the largest weight of p2 on the program's grid.
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
set key top right spacing 1.0 width 1 samplen 3 maxrows 3
set label sprintf('$p_2$ peaks: $%.3f$ at $t = %.1f$', peak_p, peak_t) \
    at 2.6, 0.47 left
set arrow from 3.0, 0.44 to peak_t * 1.04, peak_p + 0.015 head size screen 0.012,25 lw 0.8
plot for [j=1:5] data('foundations-temperature') using 1:(column(j+1)) with lines ls j \
     dt j title sprintf('$p_%d$', j), \
     '+' using (peak_t):(peak_p) every ::0::0 with points pt 7 ps 1 lc rgb '#000000' notitle
