# Chapter 12: the trained induction head read from its weights.  Left: its OV circuit
# M = E W_OV U, row s the token attended to, column the logit it raises.  Right: its QK
# circuit against the previous-token head, row s the query's token, column s' the token that
# the previous-token head wrote at the key.  Each panel has a colour scale of its own, centred
# on 0; an induction circuit is a bright diagonal in both.
set terminal cairolatex pdf input colortext size 13cm,6.4cm font ",9"
set output outfile
stats data('induction-circuits') index 0 using 1 nooutput
V = int(STATS_max) + 1
stats data('induction-circuits') index 0 using 3 nooutput
top_ov = abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max)
stats data('induction-circuits') index 1 using 3 nooutput
top_qk = abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max)
set multiplot layout 1,2
set xrange [-0.5:V - 0.5]
set yrange [V - 0.5:-0.5]
set size ratio 1
set tics scale 0 font ",7"
set xtics 0, 4
set ytics 0, 4
unset key
unset grid
# Diverging, blue below 0 and red above, but not symmetric in lightness: the reds darken to
# nearly black, the blues only to a pale tone (80 % grey, where the old mid blue printed at
# 56 %, as dark as a middling red), so that in grey the sign still shows (positive dark,
# negative pale).
set palette defined (0 "#b3d4ea", 1 "#f7f7f7", 2 "#8b0a1f")
set cbrange [-top_ov:top_ov]
set title 'OV circuit' font ",8"
set xlabel 'logit raised'
set ylabel 'token attended to'
plot data('induction-circuits') index 0 using 2:1:3 with image
set cbrange [-top_qk:top_qk]
set title 'QK circuit, against the previous-token head' font ",8"
set xlabel 'previous token at the key'
set ylabel 'token at the query'
plot data('induction-circuits') index 1 using 2:1:3 with image
unset multiplot
