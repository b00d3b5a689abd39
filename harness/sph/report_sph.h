/* report_sph.h - the README's SPH tables, printed from a results directory */
#ifndef HARNESS_REPORT_SPH_H
#define HARNESS_REPORT_SPH_H

#include <stdbool.h>

/* `harness report --sph [--from DIR]` (default results/h200): the SPH
 * steps/s table from DIR/sph-table.csv and DIR/sph-large.csv (when
 * there), each rate that of the whole flow where the files have its rows,
 * with the paper's GTX 280 rates from results/published; the per-phase
 * table at 255,600 particles, as the README prints them; then for each
 * column the rates at each moment of the flow and the methods' order at
 * each. With data, instead, a line per moment row for plots/sph-flow.gp.
 * 0, or 2 with one line. */
int report_sph(const char *from, bool data);

#endif
