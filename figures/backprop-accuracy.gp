# Chapter 9: accuracy on fresh sequences against the training step, for the model whose
# attention learns and for the one frozen to uniform attention, with chance and the best
# accuracy possible without attention.  Step 0 has no place on the logarithmic axis.
set xlabel 'training step'
set ylabel 'accuracy on fresh sequences (\%)'
set logscale x
set xrange [1:3000]
set yrange [0:105]
set ytics 0, 20, 100
set key outside bottom center maxrows 2 height 1.5 nobox
positive(x) = x > 0 ? x : NaN
plot data('backprop-learned') using (positive($1)):2 with linespoints ls 1 title 'learned attention', \
     data('backprop-uniform') using (positive($1)):2 with linespoints ls 2 title 'uniform attention', \
     data('backprop-learned') using (positive($1)):4 with lines ls 6 title 'best without attention', \
     data('backprop-learned') using (positive($1)):3 with lines lc rgb "#666666" lw 1.5 dt 3 title 'chance'
