/* compare_judge.h - compare's rule applied to a joined pair, and the counts of a report: what the join and the table ask of it */
#ifndef HARNESS_COMPARE_JUDGE_H
#define HARNESS_COMPARE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"

/* How compare finds a pair's resolution. */
#define COMPARE_NOISE_RULE                                                                    \
	"sqrt(noise_base^2 + noise_new^2 + floor^2): the rows' noise_pct and the between-run "   \
	"floor of their device, kind and time per call (harness/gate/floors.def; none where not "\
	"calibrated)"

/* Judges a joined pair of kind on its raw figures and, across devices, on
 * its share of each device's ceiling, with the estimate x (NAN parts: the
 * files' figures and the rows' combined noise with the between-run floor). */
void compare_judge_entry(struct compare_entry *e, const struct compare_kind *kind,
			 const struct compare_opts *o, struct compare_estimate x);

/* The judgement that decides the exit status for a joined pair. */
const struct compare_judgement *compare_counting(const struct compare_entry *e);

/* Whether a side's row of e failed: invalid, or valid but not timed
 * (where e is judged by its timing). */
bool compare_side_failed(const struct compare_entry *e, const struct compare_side *s);

/* Counts every entry of r afresh. */
void compare_recount(struct compare_report *r);

/* Rows compared: both sides there and timed, whatever the verdict. */
size_t compare_compared(const struct compare_report *r);

#endif /* HARNESS_COMPARE_JUDGE_H */
