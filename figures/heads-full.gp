# Chapter 5: every head of the full configuration (d_model 64, 8 heads) on the toy sentence,
# three to a row, the colour bar in the empty ninth place (figures/heads-grid.gpi draws the
# grid).
dataset = 'heads-full'
cols = 3
rows = 3
bar_in_last_place = 1
name(h) = sprintf('head %d', h)
load 'figures/heads-grid.gpi'
