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
# two to three orders of magnitude apart.

if (!exists("device")) device = "measured"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [1:1e6]
set grid ytics
set tics out nomirror
set xtics rotate by -30
set key top left font ",8" maxrows 2

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,820 enhanced font "sans,10"
    } else {
        set terminal svg size 1200,820 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,2 title "Goswami et al. 2010, Tables 1 and 2 (collapsing column): frames per second, log scale"
    do for [q=0:3] {
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
