# Chapter 4: the head of chapter 2 on the toy sentence, causal, with and without the
# 1/sqrt(d_head) scale, side by side on one colour scale, in the style of Fig. 3.1: the weight
# written in each cell, masked cells hatched, rows and columns labelled "position token".
# The data file has one line per cell: row, column, scaled, unscaled, row token, column token.
set terminal cairolatex pdf input colortext size 15cm,8.2cm font ",9"
set output outfile
unset key
unset grid
unset colorbox
set cbrange [0:1]
set tmargin at screen 0.93
set bmargin at screen 0.21
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics scale 0 rotate by 45 right
set ytics scale 0
set xlabel 'key $j$' offset 0,-0.9
short(w) = w == 1 ? '1' : w >= 0.995 ? sprintf('%.2f', w) : sprintf('%.2f', w)[2:]
cell(w) = '\\scriptsize ' . short(w)
tic(n, token) = sprintf('%d %s', n, token)
allowed(i, j) = j <= i
# The masked cells, above the diagonal, hatched with light lines over their dark colour.
do for [i = 0:6] {
    do for [j = i + 1:7] {
        set object rectangle from j - 0.5, i - 0.5 to j + 0.5, i + 0.5 front \
            fillstyle transparent pattern 4 noborder fillcolor rgb '#d0d0d0'
    }
}
set multiplot
set lmargin at screen 0.11
set rmargin at screen 0.485
set title 'with $1/\sqrt{d_{\text{head}}}$'
set ylabel 'query $i$' offset -0.5,0
plot data('scaling-toy') using 2:1:3 with image, \
     '' using 2:1:(allowed($1, $2) && $3 < 0.5 ? cell($3) : '') with labels tc rgb 'white', \
     '' using 2:1:(allowed($1, $2) && $3 >= 0.5 ? cell($3) : '') with labels tc rgb 'black', \
     '' using 2:(-10):xtic(tic($2, strcol(6))) with points, \
     '' using (-10):1:ytic(tic($1, strcol(5))) with points
set lmargin at screen 0.505
set rmargin at screen 0.88
set title 'without the scale'
unset ylabel
unset ytics
plot data('scaling-toy') using 2:1:4 with image, \
     '' using 2:1:(allowed($1, $2) && $4 < 0.5 ? cell($4) : '') with labels tc rgb 'white', \
     '' using 2:1:(allowed($1, $2) && $4 >= 0.5 ? cell($4) : '') with labels tc rgb 'black', \
     '' using 2:(-10):xtic(tic($2, strcol(6))) with points
# The colour bar, drawn as an image of its own so that it is one smooth gradient.
unset object
set lmargin at screen 0.905
set rmargin at screen 0.925
unset title
unset xtics
unset xlabel
set xrange [0:1]
set yrange [0:1]
set y2range [0:1]
set y2tics 0.2 scale 0.5
set y2label 'weight'
set print $bar
do for [k = 0:255] { print sprintf('0 %g %g', k / 255.0, k / 255.0); print sprintf('1 %g %g', k / 255.0, k / 255.0) }
unset print
plot $bar using 1:2:3 with image
unset multiplot
