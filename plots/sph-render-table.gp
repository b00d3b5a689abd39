# sph-render-table.gp - the SPH paper's Tables 1 and 2 as grouped bars: physics, extraction, rendering and overall fps
#
# Data: `harness report --render --data --from DIR` (from DIR/sph-render-table.csv
# and results/published/goswami2010_sph.csv): a "# device: NAME" line (the
# measured GPU, which make figures passes as `device`), then four blocks (index 0..3:
# physics, extraction, rendering, overall), a line per particle count:
# n, 8800 GT, GTX 280, the measured zindex-blocks (the paper's method),
# the measured verlet (the harness's fastest step); 0 where there is none.
# make figures runs it as
#   gnuplot -e "datafile='FILE.dat'; outbase='DIR/sph-render-table'; device='H100'" sph-render-table.gp
# and it writes outbase.png and outbase.svg. Log scale: the devices are
# two to three orders of magnitude apart (3 to 20,000 fps on the H200's
# rows). The fps axis, shared by the four panels, runs from the power of
# ten below the lowest bar to half as much again as the highest; one key
# for the four, under the title.

if (!exists("device")) device = "measured"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
# the bars' extremes over every panel, a missing one (0) left out
higher(a, b) = a > b ? a : b
lower(a, b) = (a > 0 && (b <= 0 || a < b)) ? a : b
bar(v) = v > 0 ? v : NaN
stats datafile using (bar(higher(higher($2, $3), higher($4, $5)))) nooutput
fps_max = STATS_max
stats datafile using (bar(lower(lower($2, $3), lower($4, $5)))) nooutput
fps_min = STATS_min
set yrange [10**floor(log10(fps_min)) : fps_max * 1.5]
set format y "%.0f"
set grid ytics
set tics out nomirror
set xtics nomirror

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,820 enhanced font "sans,10"
    } else {
        set terminal svg size 1200,820 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,2 title "Goswami et al. 2010, Tables 1 and 2 (collapsing column): frames per second, log scale\n " margins 0.07, 0.98, 0.09, 0.88 spacing 0.08, 0.13
    do for [q=0:3] {
        if (q == 0) {
            set key at screen 0.5, screen 0.955 center top horizontal font ",9" samplen 2 width 2
        } else {
            unset key
        }
        set title word("physics extraction rendering overall", q + 1)
        set ylabel "fps"
        plot datafile index q using ($2 > 0 ? $2 : NaN):xtic(1) title "8800 GT (paper)" lc rgb "#bbbbbb", \
             '' index q using ($3 > 0 ? $3 : NaN) title "GTX 280 (paper)" lc rgb "#777777", \
             '' index q using ($4 > 0 ? $4 : NaN) title device . " zindex-blocks" lc rgb "#4a90d9", \
             '' index q using ($5 > 0 ? $5 : NaN) title device . " verlet" lc rgb "#d9534f"
    }
    unset multiplot
    set output
}
