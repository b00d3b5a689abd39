# fig31-6.gp - Figure 31-6, "Performance Increase as N Grows": GFLOP/s against N
#
# Curves: unrolled-u4 (the chapter's best kernel) and auto (ours), N from
# 1024 to 1048576. Published: the chapter's 163 GFLOP/s (first
# implementation) and "more than 200 gigaflops" (unrolled by 4, N > 8192)
# on the GeForce 8800 GTX. GFLOP/s (20 flops per interaction) is one
# measure on every GPU, so the 8800 GTX's numbers share the upper panel's
# axis, logarithmic because the devices are two orders of magnitude
# apart, drawn in black and named in the key; below, as a share of that
# GPU's ceiling next to each measured row's share of its own.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" fig31-6.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows: N GFLOP/s %_of_ceiling speedup
#              rel_first noise_%  (NaN: no value)
#   ncurves    number of blocks
#   pubfile    published numbers, a line each: source quantity value n unit device
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   device, source   measured device(s) and CSV, for the title
#   xmin, xmax       the range of N in datafile
#   gtx_ceiling      the 8800 GTX's ceiling, interactions/s (default below)
#
# The 8800 GTX ceiling, in the harness's model (harness/nbody/ceiling.c: the
# slower of 12 arithmetic instructions per interaction on the FP32 lanes
# and one rsqrt on the SFUs), from the chapter's specifications, 128
# processors at 1.35 GHz:
#   gtx_ceiling = 128 x 1.35e9 / 12 = 1.44e10 interactions/s (288 GFLOP/s at 20 flops)
# (The chapter's own best case, 4 interactions in 72 cycles, gives 9.6e9.)
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
if (!exists("gtx_ceiling")) gtx_ceiling = 128 * 1.35e9 / 12
flops_per_interaction = 20
gtx_pct(gflops) = 100 * gflops * 1e9 / flops_per_interaction / gtx_ceiling
is(q) = strcol(2) eq q
noise(y, pct) = (pct == pct) ? y * pct / 100 : 0

set datafile missing "NaN"
set key at screen 0.67, graph 1 left top Left reverse noenhanced title "black: GeForce 8800 GTX (GPU Gems 3)"
set grid
set logscale x 2
set format x "2^{%L}"
set xrange [xmin / 1.5 : xmax * 1.5]
set xlabel "N (bodies)"
set lmargin at screen 0.08
set rmargin at screen 0.60

figure_title = sprintf("Figure 31-6. Performance Increase as N Grows\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced

    set ylabel "GFLOP/s (20 flops per interaction)"
    set logscale y
    set format y "%g"
    set yrange [*:*]
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("first_impl_gflop_per_s") ? $4 : NaN):3 \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, first impl.: 163", \
         pubfile using (is("unroll4_gflop_per_s") ? $4 : NaN):3:(xmax - $4):(0) \
             with vectors nohead dt 2 lw 2 lc rgb "black" title "8800 GTX, unroll 4, N > 8,192: >200"

    unset logscale y
    set ylabel "% of the device's ceiling"
    set yrange [0:*]
    plot for [i=0:ncurves-1] datafile index i using 1:3 with linespoints lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("first_impl_gflop_per_s") ? $4 : NaN):(gtx_pct($3)) \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, first impl.", \
         pubfile using (is("unroll4_gflop_per_s") ? $4 : NaN):(gtx_pct($3)):(xmax - $4):(0) \
             with vectors nohead dt 2 lw 2 lc rgb "black" title "8800 GTX, unroll 4 (lower bound)"
    unset multiplot
    set output
}
