# scaling-model.gp - the scaling model: predicted parallel efficiency of the three distributed schemes against P
#
# Data: the predictions CSV of `bin/harness model --out FILE` (columns
# variant, n, ranks, ..., efficiency_pct, ..., measured_efficiency_pct).
# Panels at N = 2^20, 2^23 and 2^26; one line per scheme against the ranks
# P = 1 .. 1024, the measured rows (P = 2 and 4 where the suites ran at that
# N) as points on their scheme's colour. Inside a node the collectives'
# latency and bandwidth were fitted to commbench; between nodes they are
# the stated inputs named in the subtitle.
#
#   gnuplot -e "datafile='FILE'; outbase='OUT'; subtitle='...'" plots/scaling-model.gp
# writes OUT.png (pngcairo) and OUT.svg.

if (!exists("subtitle")) subtitle = ""
set datafile separator comma
set datafile missing ""
set grid
set key bottom left noenhanced
set logscale x 2
set format x "%g"
set xrange [0.8 : 1300]
set yrange [0 : 110]
set xlabel "ranks P (GPUs)"
set ylabel "parallel efficiency (%)"

# column 1 is the variant, 2 N, 3 P, 7 the predicted and 10 the measured efficiency
at(v, n, col) = (strcol(1) eq v && column(2) == n) ? column(col) : NaN
schemes = "dist-allgather dist-ring dist-2d"
colours = "#1f77b4 #d62728 #2ca02c"

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1500,500 enhanced font "sans,10"
    } else {
        set terminal svg size 1500,500 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 1,3 title "Parallel efficiency predicted from measured parts\n" . subtitle noenhanced
    do for [e in "20 23 26"] {
        n = 2**int(e)
        set title sprintf("N = 2^{%s}", e)
        plot 100 with lines dt 2 lc rgb "gray40" title "ideal", \
             for [k=1:3] datafile using 3:(at(word(schemes, k), n, 7)) every ::1 \
                 with lines lw 2 lc rgb word(colours, k) title word(schemes, k), \
             for [k=1:3] datafile using 3:(at(word(schemes, k), n, 10)) every ::1 \
                 with points pt 7 ps 1.2 lc rgb word(colours, k) title word(schemes, k) . " measured"
    }
    unset multiplot
}
