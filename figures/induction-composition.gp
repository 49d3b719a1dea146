# Chapter 12: the composition scores of every pair of a layer-1 head (first index) and a
# layer-2 head (second index), for Q-, K- and V-composition, as a small grid with each score
# printed in its cell.  Rows of the data: kind (0 Q, 1 K, 2 V), pair, score.
set terminal cairolatex pdf input colortext size 10cm,4.6cm font ",9"
set output outfile
stats data('induction-phase') using 2 nooutput
H = int(STATS_max)
set xrange [-0.5:H * H - 0.5]
set yrange [2.5:-0.5]
set xtics ("" 0)
set xtics add (sprintf('%d$\to$%d', 0, 0) 0)
do for [p = 0:H * H - 1] {
    set xtics add (sprintf('%d$\to$%d', p / H, p % H) p)
}
set ytics ("Q" 0, "K" 1, "V" 2)
set tics scale 0
set xlabel 'layer-1 head $\to$ layer-2 head'
unset key
unset grid
set palette defined (0 "#ffffff", 1 "#777777")
set cbrange [0:*]
plot data('induction-composition') using 2:1:3 with image, \
     '' using 2:1:(sprintf('%.2f', $3)) with labels font ",8"
