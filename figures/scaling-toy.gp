# Chapter 4: the toy sentence's causal attention (one head, d_head = 32) with and without
# the 1/sqrt(d_head) scale, side by side on one colour scale.
set terminal cairolatex pdf input colortext size 15cm,7.2cm font ",9"
set output outfile
set multiplot
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set cbrange [0:1]
set tics scale 0
set xtics rotate by 90 right
unset key
unset grid
set tmargin at screen 0.90
set bmargin at screen 0.20
set lmargin at screen 0.08
set rmargin at screen 0.43
unset colorbox
set title 'with $1/\sqrt{d_{\mathrm{head}}}$'
plot data('scaling-toy') using 2:1:3 with image, \
     '' using 2:(-10):xtic(6) with points, '' using (-10):1:ytic(5) with points
set lmargin at screen 0.50
set rmargin at screen 0.85
set colorbox user origin screen 0.88, screen 0.20 size screen 0.025, screen 0.70
unset ytics
set title 'without'
plot data('scaling-toy') using 2:1:4 with image, '' using 2:(-10):xtic(6) with points
unset multiplot
