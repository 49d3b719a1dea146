# Chapter 10: where each trained model looks.  For the head of each of the five models that
# gives most weight to the previous token, its mean weight at each offset i - j that training
# showed, over the queries that have that offset, in test sequences four times the training
# length; the y-axis is logarithmic, and weights below 10^-4 fall off its foot.
set terminal cairolatex pdf input colortext size 12cm,7cm font ",9"
set output outfile
set xlabel 'offset $i - j$ of the key from the query'
set ylabel 'mean weight'
set logscale y
set format y '$10^{%T}$'
set yrange [1e-4:1]
set xrange [0:*]
set key outside right top
plot data('positions-offsets') using 1:2 with linespoints ls 1 title 'none', \
     '' using 1:3 with linespoints ls 2 title 'sinusoidal', \
     '' using 1:4 with linespoints ls 3 title 'learned', \
     '' using 1:5 with linespoints ls 4 lw 3 title 'RoPE', \
     '' using 1:6 with linespoints ls 5 title 'ALiBi'
