# Chapter 10: ALiBi's bias against the distance between query and key, one line per head.
set terminal cairolatex pdf input colortext size 12cm,6cm font ",9"
set output outfile
set xlabel 'distance $i - j$'
set ylabel 'bias added to the score'
set key at graph 0.3, graph 0.06 left bottom
plot data('positions-alibi') using 1:2 with linespoints ls 1 title 'head 1', \
     '' using 1:3 with linespoints ls 2 title 'head 2', \
     '' using 1:4 with linespoints ls 3 title 'head 3', \
     '' using 1:5 with linespoints ls 4 title 'head 4'
