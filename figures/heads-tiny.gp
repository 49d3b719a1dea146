# Chapter 5: the heads of the tiny configuration (d_model 32, 4 heads) on the toy sentence,
# two to a row, the colour bar on the right (figures/heads-grid.gpi draws the grid).
dataset = 'heads-tiny'
cols = 2
rows = 2
bar_in_last_place = 0
name(h) = sprintf('head %d', h)
load 'figures/heads-grid.gpi'
