/* keep.h - what an interrupted run keeps: its plan by row label, and its finished rows as an incomplete results file */
#ifndef HARNESS_KEEP_H
#define HARNESS_KEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

/* Room for a row's label: "auto N=65536 steps", "sph-gpu-verlet on 255600". */
#define KEEP_LABEL 96

/*
 * A measuring command plans its rows before it runs them, each by a label
 * that names it (its variant and size), and counts each row once it is
 * finished. When a signal interrupts it (interrupt.h), keep_rows, the
 * keeper, writes the finished rows through the command's writer with a
 * results_incomplete record that names the planned rows that never ran,
 * and says what it did. The command changes *nrows, written and out only
 * under interrupt_lock, and writes its complete file under it too,
 * setting written.
 */
struct keep {
	/* what the command sets */
	const char *out;       /* the results file; NULL: none asked for */
	const size_t *nrows;   /* the rows finished so far */
	/* the label of finished row r into out (KEEP_LABEL bytes) */
	void (*label)(void *ctx, size_t r, char *out);
	/* prints (unless quiet) and writes the finished rows with inc (NULL
	 * when every planned row finished): 0, or -1 with one line in err */
	int (*write)(void *ctx, const struct results_incomplete *inc, char *err, size_t errlen);
	void *ctx;
	const char *unit;      /* what *nrows counts in messages: "row" (NULL) or "check" */
	const char *made_dir;  /* a folder the command made: removed when nothing is kept */
	char later[512];       /* what the command had not begun ("suites not begun: ...") */
	bool written;          /* out is written whole: nothing left to keep */
	/* the plan, by keep_plan */
	char (*planned)[KEEP_LABEL];
	size_t nplanned, cap;
};

/* A keep with no plan: the fields the command sets, the rest empty. */
void keep_init(struct keep *k, const char *out, const size_t *nrows,
	       void (*label)(void *ctx, size_t r, char *out),
	       int (*write)(void *ctx, const struct results_incomplete *inc, char *err, size_t errlen),
	       void *ctx);

/* Adds a planned row, its label by printf format (nothing when k is
 * NULL or memory runs out). */
void keep_plan(struct keep *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Forgets the plan (a suite's next file plans its own). */
void keep_plan_reset(struct keep *k);

/* The keeper (an interrupt_keeper): ctx is a struct keep. */
void keep_rows(void *ctx, int sig, char *said, size_t saidlen);

/* For commands that run named suites, a suite a line at a time (lines of
 * one suite share its name; name(i) is line i's): whether line e is the
 * first of its suite and that suite is one asked for (its name, or
 * "all"). */
bool keep_suite_starts(const char *(*name)(size_t), size_t e, const char *asked);

/* Fills k->later with "suites not begun: " and the suites asked for that
 * start after line e of count ("" when none), taking interrupt_lock. */
void keep_later_suites(struct keep *k, const char *(*name)(size_t), size_t count, size_t e,
		       const char *asked);

/* Frees the plan. */
void keep_free(struct keep *k);

#endif /* HARNESS_KEEP_H */
