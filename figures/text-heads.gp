# Chapter 13: the best previous-token head (left) and layer 2's best induction head (right) on a
# passage of held-out text; query rows, key columns, the passage's bytes on both axes.  The
# data has two blocks of "query key weight"; the labels are a command the program wrote.
set terminal cairolatex pdf input colortext size 15cm,8.6cm font ",9"
set output outfile
stats data('text-heads') using 1 nooutput
P = int(STATS_max) + 1
set xrange [-0.5:P - 0.5]
set yrange [P - 0.5:-0.5]
set cbrange [0:1]
set tics scale 0 font ",5"
unset key
unset grid
set size ratio 1
# The program's tic labels are one byte each, one to a row or column of 2 mm; LaTeX sets them
# at the text's size unless told (the font above only sizes gnuplot's guesses), so each is made
# \scriptsize on the way in, lest its neighbours overlap.  Down the side the bytes stack one
# above the next, 2 mm apart, and a \scriptsize bracket or underscore is taller than that: the
# rows' labels are made \tiny, which fits.
load "< sed -e '/^set xtics/s/\\\\texttt{/\\\\scriptsize\\\\texttt{/g' -e '/^set ytics/s/\\\\texttt{/\\\\tiny\\\\texttt{/g' " . data('text-heads-tics')
set multiplot
do for [k = 0:1] {
    set lmargin at screen 0.06 + k * 0.45
    set rmargin at screen 0.45 + k * 0.45
    set tmargin at screen 0.93
    set bmargin at screen 0.07
    set title (k == 0 ? 'the best previous-token score' : 'the best induction score of layer 2') \
        offset 0,-0.4 font ",8"
    if (k == 1) {
        set colorbox user origin screen 0.925, screen 0.15 size screen 0.012, screen 0.7
    } else {
        unset colorbox
    }
    plot data('text-heads') index k using 2:1:3 with image
}
unset multiplot
