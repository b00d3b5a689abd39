# fig31-8.gp - Figure 31-8, "Performance Increase by Using Multiple Threads per Body"
#
# Curves: N = 256 to 16384; x: q, the threads sharing one body's row
# (family "threads-per-body", p x q = 256).
# Published: "Using two threads to divide the work increased performance
# for N = 1024 by 44 percent" (GeForce 8800 GTX). A gain is a ratio, so it
# is drawn where it compares across GPUs: in the lower panel, performance
# over q = 1 at the same N (1.44 at q = 2 for the 8800 GTX); `harness
# plot` computes it against each curve's smallest q, which is 1 in the suite.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" fig31-8.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows (NaN: no value):
#                q GFLOP/s %_of_ceiling speedup gain_over_q1 noise_%
#   ncurves    number of blocks
#   pubfile    published numbers, a line each: source quantity value n unit device
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   device, source   measured device(s) and CSV, for the title
#   xmin, xmax       the range of x in datafile
#   gtx_ceiling      the 8800 GTX's ceiling (not needed here: no share of a
#                    ceiling is drawn)
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
is(q) = strcol(2) eq q
noise(y, pct) = (pct == pct) ? y * pct / 100 : 0

set datafile missing "NaN"
set grid
set lmargin at screen 0.08
set rmargin at screen 0.60
set key at screen 0.67, graph 1 left top Left reverse noenhanced
set logscale x 2
set xrange [xmin / 1.3 : xmax * 1.3]
set xtics (1, 2, 4, 8, 16, 32)
set xlabel "threads per body q"

figure_title = sprintf("Figure 31-8. Performance Increase by Using Multiple Threads per Body\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced
    set ylabel "GFLOP/s (20 flops per interaction)"
    set yrange [0:*]
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) title columnheader(1)
    set key title "black: published (GPU Gems 3)"
    set ylabel "performance over q = 1 (same N)"
    set yrange [0:*]
    plot for [i=0:ncurves-1] datafile index i using 1:5 with linespoints lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("two_threads_gain_pct") ? 2 : NaN):(1 + $3 / 100) \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, N = 1,024: +44% at q=2"
    unset multiplot
    set key title ""
    set output
}
