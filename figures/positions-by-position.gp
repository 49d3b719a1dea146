# Chapter 10: accuracy at each position of a sequence four times the training length, for the
# five encodings and the two-layer model without positions (thin black, with crosses), with the
# bag bound of each position (the best without positions) as a pale band under them, and the
# training length, which is also the learned table's length, as a dotted vertical line.  The
# line styles' dash patterns, and widths, tell the curves apart in greyscale; at 1.5 points
# the thin ones' patterns tangle, so each also carries its style's marker every few points,
# at a different interval for each curve, so that the markers do not line up.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set xlabel 'query position $t$'
set ylabel 'accuracy at $t$ (\%)'
set yrange [0:105]
set ytics 0, 20, 100
set xrange [0:*]
set key outside right top
plot data('positions-by-position') using 1:9 with lines lc rgb "#c8c8c8" lw 7 \
        title 'bag bound', \
     '' using 1:2 with linespoints ls 1 lw 1.5 ps 0.7 pi 8 title 'none', \
     '' using 1:3 with linespoints ls 2 lw 1.5 ps 0.7 pi 9 title 'sinusoidal', \
     '' using 1:4 with linespoints ls 3 lw 1.5 ps 0.8 pi 7 title 'learned', \
     '' using 1:5 with linespoints ls 4 lw 3 ps 0.8 pi 10 title 'RoPE', \
     '' using 1:6 with linespoints ls 5 lw 1.5 ps 0.9 pi 6 title 'ALiBi', \
     '' using 1:8 with linespoints lc rgb "#000000" lw 1 dt 1 pt 2 ps 0.5 pi 4 \
        title 'none, two layers', \
     '' every ::0::0 using 10:(0):(0):(105) with vectors nohead lc rgb "#000000" lw 1.5 dt 3 \
        title 'training length'
