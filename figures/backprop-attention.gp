# Chapter 9: where the query position's attention goes.  Left: the mean weight on the matching
# pair, on each of the other pairs and on the query itself, learned head against uniform
# attention.  Right: the learned head's four weights on one test sequence ("k5 v2", "k5 query").
set terminal cairolatex pdf input colortext size 12cm,6.5cm font ",9"
set output outfile
set multiplot
# Learned bars solid, uniform ones hatched, both outlined, so that they part in grey.
set style fill solid 0.75 border lc rgb '#000000'
set yrange [0:1.05]
set ytics 0, 0.2, 1
set grid noxtics
set xtics scale 0 offset 0,-0.6
set bmargin 4
set size 0.58, 1
set origin 0, 0
set title 'mean over the test sequences'
set ylabel 'attention weight'
set xrange [-0.6:2.6]
set xtics ('\shortstack{matching\\pair}' 0, '\shortstack{other\\pair}' 1, \
           '\shortstack{query\\itself}' 2)
set boxwidth 0.36
set key top right
plot data('backprop-attention') using ($1 - 0.19):3 with boxes ls 1 title 'learned', \
     '' using ($1 + 0.19):4 with boxes ls 2 dt 1 fs pattern 4 title 'uniform'
set size 0.42, 1
set origin 0.58, 0
set title 'one test sequence, learned head'
unset ylabel
unset key
set xrange [-0.6:3.6]
set boxwidth 0.6
stack(s) = sprintf('\shortstack{%s\\%s}', word(s, 1), word(s, 2))
plot data('backprop-example') using 1:3:xtic(stack(strcol(2))) with boxes ls 1, \
     '' using 1:($3 + 0.06):(sprintf('%.2f', $3)) with labels
unset multiplot
