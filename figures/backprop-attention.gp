# Chapter 9: where the query position's attention goes.  Left: the mean weight on the matching
# pair, on each other pair and on the query itself, learned head against uniform attention.
# Right: the learned head's four weights on one test sequence.
set terminal cairolatex pdf input colortext size 12cm,6cm font ",9"
set output outfile
set multiplot layout 1,2
set style fill solid 0.7 noborder
set yrange [0:1]
set ylabel 'attention weight'
set grid noxtics
set xtics scale 0
set lmargin 7
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
set key top right
set title 'mean over the test sequences'
plot data('backprop-attention') using 3:xtic(2) lc rgb "#1b6ca8" title 'learned', \
     '' using 4 lc rgb "#d1495b" title 'uniform'
set title 'one test sequence, learned head'
unset ylabel
set style data boxes
set boxwidth 0.6
set xrange [-0.6:3.6]
plot data('backprop-example') using 1:3:xtic(2) lc rgb "#1b6ca8" notitle, \
     '' using 1:($3 + 0.05):(sprintf('%.2f', $3)) with labels notitle
unset multiplot
