# scaling.gp - strong scaling of the distributed variants: parallel efficiency against P, interactions/s against N
#
# Curves: from every scaling-p<P>.csv of the results directory (one file
# per number of ranks, see harness/figures/plot_scaling.h). Top: the parallel
# efficiency E(P) = rate(P) / (P x rate of the one-device kernel at the
# same N), one curve per variant and N, against the ranks P (GPUs); 100 %
# is perfect scaling. Bottom: interactions/s against N, one curve per
# variant and P, the one-device kernel (auto) among them. Nothing is
# published to compare with here; the README cites Miki et al. (2013).
#
# `harness plot` runs it as gnuplot -e "VARIABLES" scaling.gp with:
#   datafile   interactions/s curves, one block each: a header line whose
#              first field is the title, then rows (NaN: no value):
#                N interactions/s %_of_ceiling - - noise_%
#   ncurves    number of blocks in datafile
#   efffile    efficiency curves, same layout: P efficiency_% ...
#   neff       number of blocks in efffile
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   device, source   measured device(s) and CSVs, for the title
#   xmin, xmax       the range of N in datafile
#   colours, points, dashes, widths   the rate curves' line styles, a
#              word per curve (plot_line_styles): a colour per variant, the
#              same in both panels, a marker per P (rates) and N (efficiencies), a dash type per variant,
#              so that dash and marker tell the curves apart in grey print;
#              the one-device curve wide and pale beneath the others, which
#              its P = 1 rows coincide with
#   effcolours, effpoints, effdashes, effwidths   the same for efffile
#   effmin, effmax   the efficiency axis, fitted to the points
#              (plot_efficiency_range)

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
if (!exists("points")) points = "7 5 9 11 13 15 6 4 8 10 12 14"
if (!exists("dashes")) dashes = "1"
if (!exists("widths")) widths = "2"
if (!exists("effcolours")) effcolours = colours
if (!exists("effpoints")) effpoints = points
if (!exists("effdashes")) effdashes = dashes
if (!exists("effwidths")) effwidths = widths
if (!exists("effmin")) effmin = 0
if (!exists("effmax")) effmax = 110
pick(list, i) = word(list, i % words(list) + 1)
colour(list, i) = pick(list, i)
marker(list, i) = pick(list, i) + 0
dash(list, i) = pick(list, i) + 0
width(list, i) = pick(list, i) + 0
noise(y, pct) = (pct == pct) ? y * pct / 100 : 0
if (!exists("neff")) neff = 0

set datafile missing "NaN"
set grid
set lmargin at screen 0.08
set rmargin at screen 0.60
set key at screen 0.67, graph 1 left top Left reverse noenhanced

figure_title = sprintf("Strong Scaling over Ranks\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,700 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,700 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced
    set logscale x 2
    set format x "%g"
    set xrange [0.8 : *]
    set xlabel "ranks P (GPUs)"
    set ylabel "parallel efficiency (%)"
    unset logscale y
    set format y "%g"
    set yrange [effmin : effmax]
    plot 100 with lines dt 2 lc rgb "gray40" title "ideal", \
         for [i=0:neff-1] efffile index i using 1:2 with linespoints lw width(effwidths, i) \
             dt dash(effdashes, i) pt marker(effpoints, i) ps 1.3 lc rgb colour(effcolours, i) \
             title columnheader(1)
    set format x "2^{%L}"
    set xrange [xmin / 1.5 : xmax * 1.5]
    set xlabel "N (bodies)"
    set ylabel "interactions/s"
    set logscale y
    set format y "10^{%L}"
    set yrange [*:*]
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw width(widths, i) dt dash(dashes, i) pt marker(points, i) \
             ps (width(widths, i) > 2 ? 2.6 : 1.3) lc rgb colour(colours, i) title columnheader(1)
    unset multiplot
    set output
}
