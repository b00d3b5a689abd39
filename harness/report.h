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

#endif
