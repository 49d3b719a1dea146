# Chapter 10: left, the sinusoidal code (positions down, coordinates across); right, the dot
# product of the code at position 100 with the code k places away.
set terminal cairolatex pdf input colortext size 15cm,6.5cm font ",9"
set output outfile
set multiplot
set lmargin at screen 0.09
set rmargin at screen 0.40
set tmargin at screen 0.92
set bmargin at screen 0.16
unset key
unset grid
set cbrange [-1:1]
set cbtics 1
set colorbox user origin screen 0.415, screen 0.16 size screen 0.015, screen 0.76
set xrange [-0.5:63.5]
set yrange [63.5:-0.5]
set xlabel 'coordinate ($2i$: sine, $2i+1$: cosine)'
set ylabel 'position $t$' offset -1,0
set palette grey
plot data('positions-sinusoidal') matrix with image
unset colorbox
set grid
set lmargin at screen 0.58
set rmargin at screen 0.98
set xrange [-100:100]
set yrange [0:*]
set xlabel 'offset $k$'
set ylabel '$P_{100} \cdot P_{100+k}$' offset -1.5,0
plot data('positions-dot') using 1:2 with lines ls 1
unset multiplot
