# Chapter 6: the entropy of each row of the tiny configuration's heads, against the ceiling
# ln(i + 1) of a row that may see i + 1 tokens.  Columns: row, ln(row + 1), one per head, token.
set xlabel 'row $i$ (query)'
set ylabel 'entropy (nats)'
set xrange [-0.3:7.3]
set yrange [0:2.3]
set xtics rotate by 0
set key bottom right samplen 1.5 width -1.5 spacing 1
plot data('entropy-rows') using 1:2:xtic(sprintf('%d %s', int(column(1)), strcol(7))) with lines lc rgb '#000000' lw 4 \
         title '$\ln(i+1)$, the ceiling', \
     for [h=0:3] '' using 1:(column(h + 3)) with linespoints ls h + 1 \
         title sprintf('head %d', h)
