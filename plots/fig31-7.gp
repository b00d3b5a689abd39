# fig31-7.gp - Figure 31-7, "Performance as Block Size Varies"
#
# Curves: N = 1024, 4096 and 16384; x: the tile size p, which is also the
# threads per block (family "tiled", p = 32 to 1024).
# Published: none; the chapter states no number for this figure, only that
# larger tiles help while all multiprocessors stay busy (N/p >= 16 on the
# 8800 GTX). The lower panel shows each row's share of its device's
# ceiling, the scale on which other GPUs' figures compare.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" fig31-7.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows (NaN: no value):
#                p GFLOP/s %_of_ceiling speedup rel_first noise_%
#   ncurves    number of blocks
#   pubfile    published numbers (unused: the chapter gives none for this figure)
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   device, source   measured device(s) and CSV, for the title
#   xmin, xmax       the range of x in datafile
#   gtx_ceiling      the 8800 GTX's ceiling (unused: nothing published here)
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
noise(y, pct) = (pct == pct) ? y * pct / 100 : 0

set datafile missing "NaN"
set grid
set lmargin at screen 0.08
set rmargin at screen 0.60
set key at screen 0.67, graph 1 left top Left reverse noenhanced
set logscale x 2
set xrange [xmin / 1.3 : xmax * 1.3]
set xtics (32, 64, 128, 256, 512, 1024)
set xlabel "tile size p (bodies per tile = threads per block)"
set yrange [0:*]

figure_title = sprintf("Figure 31-7. Performance as Block Size Varies\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced
    set ylabel "GFLOP/s (20 flops per interaction)"
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) title columnheader(1)
    set ylabel "% of the device's ceiling"
    plot for [i=0:ncurves-1] datafile index i using 1:3 with linespoints lw 2 lc rgb colour(i) title columnheader(1)
    unset multiplot
    set output
}
