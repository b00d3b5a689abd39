# cpu-speedup.gp - GPU against CPU: interactions/s, and speedup over portable C
#
# Curves: cpu-portable (the chapter's portable C), cpu-simd and auto.
# Published: about 20 million interactions/s for the portable C on an
# Intel Core 2 Duo 6300 (1.87 GHz), 100 million for tuned CPU codes, and
# more than 10 billion on the GeForce 8800 GTX at N = 16384; below, the
# chapter's speedups: 250x over its portable C, more than 50x over a
# highly tuned serial code. Interactions/s and speedups compare across
# machines as they are, so they share the measured axes.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" cpu-speedup.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows (NaN: no value):
#                N interactions/s %_of_ceiling speedup_over_cpu-portable rel_first noise_%
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
set key at screen 0.67, graph 1 left top Left reverse noenhanced title "black: published (GPU Gems 3)"
set logscale x 2
set format x "2^{%L}"
set xrange [xmin / 1.5 : xmax * 1.5]
set xlabel "N (bodies)"
set logscale y
set format y "10^{%L}"

figure_title = sprintf("GPU against CPU\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced
    set ylabel "interactions/s"
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("cpu_interactions_per_s") ? xmin : NaN):3:(xmax - xmin):(0) \
             with vectors nohead dt 2 lw 2 lc rgb "gray40" title "Core 2 Duo 6300, portable C: 2e7", \
         pubfile using (is("tuned_cpu_interactions_per_s") ? xmin : NaN):3:(xmax - xmin):(0) \
             with vectors nohead dt 3 lw 2 lc rgb "gray40" title "tuned CPU codes: 1e8", \
         pubfile using (is("interactions_per_s") ? $4 : NaN):3 \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, N = 16,384: 1e10"
    set ylabel "speedup over cpu-portable (same N)"
    plot for [i=0:ncurves-1] datafile index i using 1:4 with linespoints lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("speedup_vs_portable_c") ? xmin : NaN):3:(xmax - xmin):(0) \
             with vectors nohead dt 2 lw 2 lc rgb "black" title "8800 GTX / portable C: 250x", \
         pubfile using (is("speedup_vs_tuned_cpu") ? xmin : NaN):3:(xmax - xmin):(0) \
             with vectors nohead dt 3 lw 2 lc rgb "black" title "8800 GTX / tuned serial: >50x"
    unset multiplot
    set output
}
