# Chapter 13: held-out bits per byte at each position of the window, with the bigram model's
# and the Witten-Bell 3-, 4- and 5-gram models' on the same windows (text-ngrams.dat).
stats data('text-positions') using 1 nooutput
last = STATS_max
set xlabel 'position in the window'
set ylabel 'bits per byte'
set xrange [0:last]
set yrange [0:*]
set key top right
plot data('text-positions') using 1:2 with lines ls 1 title 'the model', \
     data('text-positions') using 1:3 with lines lc rgb "#000000" lw 1.5 dt 3 title 'bigram', \
     data('text-ngrams') using 1:2 with linespoints ls 2 pi 12 title '3-gram', \
     data('text-ngrams') using 1:3 with linespoints ls 3 pi 12 title '4-gram', \
     data('text-ngrams') using 1:4 with linespoints ls 4 pi 12 title '5-gram'
