# Chapter 8: FLOPs for one token of GPT-3 175B against its position n (keys it meets), from
# n = 256, where the n part is already well below the rest, to 2^20.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set logscale x 2
set logscale y 10
set xrange [256:1048576]
set yrange [1e9:1e13]
set xtics 256, 4
set format x '$2^{%L}$'
set format y '$10^{%L}$'
set xlabel 'position $n$ of the token (the number of keys it meets)'
set ylabel 'FLOPs for one token'
set key outside bottom center maxrows 2 height 1.5 nobox
plot data('parameters-flops') using 1:6 with lines lc rgb '#333333' dt 2 lw 1.5 title 'all weight products', \
     '' using 1:3 with lines ls 3 title 'MLP', \
     '' using 1:2 with lines ls 1 lw 1.5 title 'attention projections', \
     '' using 1:5 with lines ls 2 dt 1 lw 3.5 title 'scores and values ($n$ part)', \
     data('parameters-flops-marks') using 1:2 with points pt 7 ps 0.8 lc rgb '#333333' notitle, \
     '' every ::0::0 using 1:2:3 with labels left offset 0.8,-0.8 notitle, \
     '' every ::1::1 using 1:2:3 with labels left offset 0.8,-0.8 notitle, \
     '' every ::2::2 using 1:2:3 with labels right offset -0.8,1.4 notitle
