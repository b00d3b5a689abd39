/* report_sph.h - the README's SPH tables, printed from a results directory */
#ifndef HARNESS_REPORT_SPH_H
#define HARNESS_REPORT_SPH_H

/* `harness report --sph [--from DIR]` (default results/h100, where this
 * round's SPH rows are): the SPH steps/s table from DIR/sph-table.csv and
 * DIR/sph-large.csv (when there), with the paper's GTX 280 rates from
 * results/published, and the per-phase table at 255,600 particles, as
 * the README prints them. 0, or 2 with one line. */
int report_sph(const char *from);

#endif
