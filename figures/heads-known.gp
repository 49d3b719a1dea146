# Chapter 5: heads beside the layers' random ones: the head of chapter 2 and the three
# hand-built heads (previous token, first token, duplicate token), two to a row, the colour
# bar on the right (figures/heads-grid.gpi draws the grid).
dataset = 'heads-known'
cols = 2
rows = 2
bar_in_last_place = 0
array titles[4] = ['the head of chapter 2 (random)', 'previous token (built by hand)', \
                   'first token (built by hand)', 'duplicate token (built by hand)']
name(h) = titles[h + 1]
load 'figures/heads-grid.gpi'
