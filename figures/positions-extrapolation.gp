# Chapter 10: accuracy against the test length for the five encodings, each trained at one
# length (the dotted vertical line), with the bag bound (the best without positions) and
# chance.  Dash types and point types tell the curves apart in greyscale.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set xlabel 'test length $T$ (tokens)'
set ylabel 'accuracy (\%)'
set yrange [0:105]
set ytics 0, 20, 100
set xrange [0:*]
set key outside right top
# The bag bound is a wide pale band drawn first, so that the curve of the model without
# positions, which follows it, stays visible on top of it; chance and the training length are
# black, so that they read in greyscale.
plot data('positions-extrapolation') using 1:7 with lines lc rgb "#c8c8c8" lw 7 \
        title 'bag bound', \
     '' using 1:2 with linespoints ls 1 title 'none', \
     '' using 1:3 with linespoints ls 2 title 'sinusoidal', \
     '' using 1:4 with linespoints ls 3 title 'learned', \
     '' using 1:5 with linespoints ls 4 title 'RoPE', \
     '' using 1:6 with linespoints ls 5 title 'ALiBi', \
     '' using 1:8 with lines lc rgb "#000000" lw 1.5 dt (10,3,2,3,2,3) title 'chance', \
     '' every ::0::0 using 9:(0):(0):(105) with vectors nohead lc rgb "#000000" lw 1.5 dt 3 \
        title 'training length'
