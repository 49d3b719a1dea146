# Chapter 7: the roofline of one core (measured peak and bandwidth) with each variant at
# n = 2048 on one thread, placed by the intensity of the chapter's traffic model.
set terminal cairolatex pdf input colortext size 14cm,7cm font ",9"
set output outfile
set logscale xy
set xrange [0.1:200]
set yrange [0.1:1000]
set format y '$10^{%L}$'
set xlabel 'arithmetic intensity (FLOP per byte from memory)'
set ylabel 'GFLOP/s'
set key outside right top nobox
# online, vexp and flash have the same intensity, and vexp and flash nearly the same speed:
# vexp's open diamond is drawn large, around flash's small filled one drawn over it, and
# online's open circle is large too, so that each of the three shows where they meet.
f = data('cost-roofline')
plot f index 0 using 1:2 with lines lc rgb "#000000" lw 1.5 title 'roof', \
     f index 1 every ::0::0 using 2:3 with points ls 1 ps 1.0 title '\texttt{naive}', \
     f index 1 every ::1::1 using 2:3 with points ls 2 ps 1.0 title '\texttt{causal}', \
     f index 1 every ::2::2 using 2:3 with points ls 3 ps 1.2 title '\texttt{tiled}', \
     f index 1 every ::3::3 using 2:3 with points ls 4 ps 2.0 title '\texttt{online}', \
     f index 1 every ::4::4 using 2:3 with points ls 5 lw 1.5 ps 2.6 title '\texttt{vexp}', \
     f index 1 every ::5::5 using 2:3 with points lc rgb "#000000" pt 13 ps 1.0 title '\texttt{flash}'
