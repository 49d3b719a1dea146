# Chapter 9: the mean cross-entropy loss on the fresh test sequences against the training step,
# for the model whose attention learns and for the one frozen to uniform attention, with the
# loss ln 8 of a uniform guess.  Columns of the curves: step, accuracy, chance, bound, loss.
# Both axes are logarithmic, so step 0 has no place.
stats data('backprop-learned') using 3 name 'chance' nooutput
values = int(100 / chance_max + 0.5)      # the value vocabulary: chance is one in values
set xlabel 'training step'
set ylabel 'loss on fresh sequences (nats)' offset -1.5,0
set logscale xy
set xrange [1:3000]
set yrange [5e-5:5]
set format y '$10^{%L}$'
set key outside bottom center maxrows 2 height 1.5 nobox
positive(x) = x > 0 ? x : NaN
plot data('backprop-learned') using (positive($1)):5 with linespoints ls 1 title 'learned attention', \
     data('backprop-uniform') using (positive($1)):5 with linespoints ls 2 title 'uniform attention', \
     data('backprop-learned') using (positive($1)):(log(100 / $3)) with lines lc rgb "#666666" lw 1.5 dt 3 \
         title sprintf('uniform guess, $\ln %d$', values)
