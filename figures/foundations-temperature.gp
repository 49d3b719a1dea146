# Chapter 1: the five softmax weights of a fixed row as the temperature varies.
set xlabel 'temperature $t$'
set ylabel 'weight'
set logscale x
set xrange [0.05:20]
set yrange [0:1]
set key top right spacing 1.3 width 2
plot for [j=1:5] data('foundations-temperature') using 1:(column(j+1)) with lines ls j \
     title sprintf('$p_%d$', j)
