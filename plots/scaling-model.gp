# scaling-model.gp - the scaling model: predicted parallel efficiency of the three distributed schemes against P
#
# Data: the predictions CSV of `bin/harness model --out FILE` (columns
# variant, n, ranks, ..., efficiency_pct, ..., measured_efficiency_pct).
# Panels at N = 2^20, 2^23 and 2^26; one line per scheme against the ranks
# P = 1 .. 1024, the measured rows (P = 2 and 4 where the suites ran at that
# N) as points on their scheme's colour. Inside a node the collectives'
# latency and bandwidth were fitted to commbench; between nodes they are
# the stated inputs named in the subtitle. A scheme has a colour, a dash
# type and a marker (open: predicted, filled: measured), so the lines part
# in grey print too. The three panels share one efficiency axis, so that
# the N can be compared: it runs from 0 (at N = 2^20 the predictions fall
# to a few % by P = 1024, 1,024 bodies a rank) to just above 100 %.
#
#   gnuplot -e "datafile='FILE'; outbase='OUT'; subtitle='...'" plots/scaling-model.gp
# writes OUT.png (pngcairo) and OUT.svg.

if (!exists("subtitle")) subtitle = ""
set datafile separator comma
set datafile missing ""
set grid
# samples first: the key then keeps to the empty bottom left of each panel
set key bottom left Left reverse noenhanced
set logscale x 2
set format x "%g"
set xrange [0.8 : 1300]
set yrange [0 : 105]
set xlabel "ranks P (GPUs)"
set ylabel "parallel efficiency (%)"

# column 1 is the variant, 2 N, 3 P, 7 the predicted and 10 the measured efficiency
at(v, n, col) = (strcol(1) eq v && column(2) == n) ? column(col) : NaN
schemes = "dist-allgather dist-ring dist-2d"
colours = "#1f77b4 #d62728 #2ca02c"
dashes = "1 2 4"
predicted = "4 8 12"   # open square, triangle, diamond
measured = "5 9 13"    # the same shapes filled

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
                 with linespoints lw 2 dt int(word(dashes, k)) pt int(word(predicted, k)) ps 0.9 \
                 lc rgb word(colours, k) title word(schemes, k), \
             for [k=1:3] datafile using 3:(at(word(schemes, k), n, 10)) every ::1 \
                 with points pt int(word(measured, k)) ps 1.6 lc rgb word(colours, k) \
                 title word(schemes, k) . " measured"
    }
    unset multiplot
}
