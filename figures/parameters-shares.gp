# Chapter 8: where the parameters of the twelve published models are, in per cent, with each
# model's total written at the top of its bar.  The layer norms (column 5, under 0.1 %) are too thin to draw.
# Columns: model, embeddings %, attention %, MLP %, layer norms %, total.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border lc rgb '#333333'
set boxwidth 0.75
set yrange [0:100]
set ylabel 'share of all parameters (\%)'
set xtics rotate by 45 right nomirror scale 0
set grid noxtics
set tmargin 3
set key at screen 0.5, screen 0.99 center top horizontal nobox samplen 2
plot data('parameters-shares') using 2:xtic(1) title 'embeddings' \
         lc rgb '#c98a1b' fs pattern 4, \
     '' using 3 title 'attention' lc rgb '#1b4f8a' fs solid 0.9, \
     '' using 4 title 'MLP' lc rgb '#a6d96a' fs solid 0.9, \
     '' using 0:(97):6 with labels rotate by 90 right font ',8' notitle
