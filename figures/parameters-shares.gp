# Chapter 8: where the parameters of the twelve published models are, in per cent.
set terminal cairolatex pdf input colortext size 12cm,7.5cm font ",9"
set output outfile
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border lc rgb '#ffffff'
set boxwidth 0.75
set yrange [0:100]
set ylabel 'share of all parameters (\%)'
set xtics rotate by 45 right nomirror scale 0
set grid noxtics
set tmargin 3
set key at screen 0.5, screen 0.98 center top horizontal Left reverse nobox samplen 2 width 3
plot data('parameters-shares') using 2:xtic(1) title 'embeddings' lc rgb '#edae49', \
     '' using 3 title 'attention' lc rgb '#1b6ca8', \
     '' using 4 title 'MLP' lc rgb '#2e933c', \
     '' using 5 title 'layer norms' lc rgb '#d1495b'
