# Chapter 12: the trained model's loss at each place of the segment, in the first half and in
# the repeat, with ln V dotted.  Places no sequence reaches are NaN and left out.
set terminal cairolatex pdf input colortext size 12cm,5.5cm font ",9"
set output outfile
stats data('induction-places') using 1 nooutput
last = STATS_max
stats data('induction-phase') using 2 nooutput
set xlabel 'place in the segment'
set ylabel 'cross-entropy (nats)'
set xrange [0:last]
set yrange [0:*]
set key center right
plot data('induction-places') using 1:2 with linespoints ls 1 title 'first half', \
     '' using 1:3 with linespoints ls 2 title 'second half (the repeat)'
