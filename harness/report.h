/* report.h - the README's N-body results tables, printed from a results directory */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * `harness report [--from DIR]` (default results/h200) prints, in the
 * README's Markdown, the table of the best variant and `auto` at the
 * chapter's N (from DIR/baseline.csv), the whole-step rates at N = 16,384
 * (DIR/steps.csv) and auto's share of the ceiling along Figure 31-6
 * (DIR/fig31-6.csv), so the README's numbers are regenerated from data,
 * never typed. Only valid, timed rows count. Exit status: 0, or 2 when a
 * file is missing, malformed or lacks a row the tables need (one line).
 */
int report_command(int argc, char **argv);

/* `harness report --sph [--from DIR]` (default results/h100, where this
 * round's SPH rows are): the SPH steps/s table from DIR/sph-table.csv and
 * DIR/sph-large.csv (when there), with the paper's GTX 280 rates from
 * results/published, and the per-phase table at 255,600 particles, as
 * the README prints them. 0, or 2 with one line. */
int report_sph(const char *from);

/* `harness report --render [--data] [--from DIR]` (default results/h100):
 * the SPH paper's Tables 1 and 2 beside the measured rows of
 * DIR/sph-render-table.csv (the paper's method and the fastest variant),
 * and every variant's stage times; with --data the same fps as gnuplot
 * blocks for plots/sph-render-table.gp. 0, or 2 with one line. */
int report_render(const char *from, bool data);

/* v with thousands separated as the README writes them: 1,048,576. */
void report_grouped(char *buf, size_t len, long long v);

#endif
