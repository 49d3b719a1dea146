# Chapter 9: the learned head's score for every query key (rows) against every pair key
# (columns), averaged over the pair's value: the head has learned to match keys.
set terminal cairolatex pdf input colortext size 10cm,8.5cm font ",9"
set output outfile
set xlabel 'key of the pair'
set ylabel 'key of the query' offset -1.5,0
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics 0, 1, 7 format 'k%.0f' scale 0
set ytics 0, 1, 7 format 'k%.0f' scale 0
set grid noxtics noytics
set cblabel 'mean score $q\cdot k/\sqrt{d}$' offset 3.5,0
set size ratio -1
unset key           # an empty key would still draw its box as a short rule
bright(z) = z > 1.0        # dark numbers on the light half of the palette, light on the dark
# The numbers are set a size smaller than the text, so that two neighbours with minus signs do
# not touch (the doubled backslash: gnuplot eats one in a label taken from a using spec).
shown(z) = sprintf('\\footnotesize $%.1f$', abs(z) < 0.05 ? 0.0 : z)   # no "-0.0"
plot data('backprop-scores') using 1:2:3 with image notitle, \
     '' using 1:2:(bright($3) ? shown($3) : '') with labels font ",8" tc rgb "#000000" notitle, \
     '' using 1:2:(bright($3) ? '' : shown($3)) with labels font ",8" tc rgb "#ffffff" notitle
