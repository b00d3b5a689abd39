/* report_render.h - the README's rendering tables, printed from a results directory */
#ifndef HARNESS_REPORT_RENDER_H
#define HARNESS_REPORT_RENDER_H

#include <stdbool.h>

/* `harness report --render [--data] [--from DIR]` (default results/h100):
 * the SPH paper's Tables 1 and 2 beside the measured rows of
 * DIR/sph-render-table.csv (the paper's method and the fastest variant),
 * and every variant's stage times; with --data the same fps as gnuplot
 * blocks for plots/sph-render-table.gp. 0, or 2 with one line. */
int report_render(const char *from, bool data);

#endif
