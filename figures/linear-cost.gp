# Chapter 14: time a token of the forward pass against the length n (log-log), for chapter 7's
# flash kernel and the chunked delta rule (delta_fast), one head of width d on the same
# threads, best of several runs; the crossover, where the program found one between two
# measured lengths, is marked with a circle and a dashed line.  Columns: n, then the two times
# in microseconds; the crossover's file holds its n, its time and whether it was found.
set datafile missing '?'
set logscale xy
set format y '$10^{%L}$'
set xlabel 'tokens $n$'
set ylabel 'time a token ($\mu$s)'
set key top left nobox
f = data('linear-cost')
x = data('linear-cost-crossover')
stats f using 1 name 'N' nooutput
stats x using 1 name 'CROSS' nooutput
stats x using 2 name 'AT' nooutput
stats x using 3 name 'FOUND' nooutput
set xrange [N_min / 1.3 : N_max * 1.3]
set xtics (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
if (FOUND_max > 0) {
    set arrow 1 from CROSS_max, graph 0 to CROSS_max, graph 1 nohead ls 6
    set label 1 '' at CROSS_max, AT_max point pt 6 ps 1.6
    set label 2 sprintf('crossover, $n \approx %.0f$', CROSS_max) at CROSS_max, graph 0.07 \
        left offset 0.6, 0
}
plot f using 1:2 with linespoints ls 1 title '\texttt{flash}', \
     f using 1:3 with linespoints ls 2 title 'chunked delta rule'
