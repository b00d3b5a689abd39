/* compare.h - two results CSVs side by side: faster, slower or within the noise */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/csv_table.h"
#include "floors.h"

/*
 * `harness compare BASE.csv NEW.csv [--threshold PCT] [--min-change PCT]
 *                  [--allow-missing] [--allow-inconclusive] [--across-devices]
 *                  [--out FILE.csv]`
 *
 * Every kind of results CSV the harness writes is compared the same way;
 * a kind (compare_kinds[]) says which columns its rows are joined on and
 * which figure is compared: N-body rows on (variant, n, tile_p,
 * threads_q, unroll, bodies_k, precision, mode), by interactions_per_s or
 * steps_per_s in steps mode; SPH rows on (variant, column), by steps_per_s,
 * with the per-phase times shown beside. Columns a kind does not name are
 * ignored, so files may gain columns. The rule, for base b and new v with
 * relative noise nb and nv (the rows' noise_pct: relative standard
 * deviation of their samples; an empty cell counts as 0, a row timed by
 * one sample, whose spread is unknown, as infinite):
 *
 *   change = 100 (v / b - 1) %        slowdown s = -change
 *   resolution u = sqrt(nb^2 + nv^2) %   (the change the pair can tell from none)
 *   T = --threshold PCT (default 5), MIN = --min-change (default 1)
 *
 *   SLOWER (a regression)  when s - u > T and s > MIN: slower by more than
 *                          the threshold even at the near end of s +- u
 *   decided, no regression when s + u <= max(T, MIN): the whole of s +- u
 *                          is at or under the threshold (or the floor); then
 *     same    when |change| <= max(u, MIN)
 *     faster  when change > max(u, MIN)
 *     slower  when change < -max(u, MIN) (slower, but by less than T)
 *   inconclusive           otherwise: s +- u straddles the threshold, so
 *                          neither a regression nor its absence can be
 *                          claimed. A row of little change is inconclusive
 *                          exactly when u > max(T, MIN): its noise is too
 *                          large to decide at that threshold.
 *
 * Noises add in quadrature because the two measurements are independent.
 * The sample standard deviation, not the standard error of the median, is
 * used: runs on different days differ by more than one run's samples
 * suggest, so the wider band avoids false alarms. MIN is the practical
 * floor: two builds of the same code differ by a few tenths of a percent
 * from run to run even when each run's samples agree far better, and such
 * a difference is no change worth reading. `harness ab` judges with the
 * same rule and a resolution of its own, from the spread of its rounds
 * (compare_rejudge).
 *
 * Both files must be of one kind and come from the same device
 * (device_name of every joined pair equal) unless across_devices is set;
 * then each pair is also judged on pct_of_ceiling (the share of its own
 * device's ceiling, which has the same relative noise), and that
 * judgement, being the one that says whether code got better or worse on
 * a different chip, is the one that counts for the exit status. Pairs
 * without a ceiling (CPU rows, SPH rows) count by their raw figures.
 *
 * Files with nothing timed to compare (the rows of `check`, of the
 * sph-memory suite, or `sph physics`, whose judged quantities have a
 * pass flag each: its "SPH physics" kind joins them on (variant, check,
 * column, quantity, T, time_s)) are compared on what they hold: each
 * pair by its validation (its pass flag), a row valid in BASE and not in
 * NEW being a regression, as for timed rows.
 *
 * A file whose sidecar says its run was interrupted ("complete": false,
 * results.h) holds only the rows that finished: the rows it planned and
 * never ran count as missing, as rows only in BASE do, whichever side it
 * is.
 *
 * Nothing compared is no pass. Besides the verdicts each row of the join
 * is one of: only in BASE (NEW lacks it), only in NEW (no baseline: shown,
 * never counted against NEW), failed in NEW (invalid or not timed in NEW
 * while BASE's validated, or only in NEW and failed there), not compared
 * (BASE's row failed, whatever NEW's did). NEW's sidecar may also list
 * variants its run skipped as unable to run there ("skipped").
 */

/* Exit statuses of `harness compare` (and `harness ab`), worst first:
 * bad input, then a regression, then undecided, then a pass. */
enum compare_status {
	COMPARE_OK = 0,        /* every row compared and decided, none regressed, none missing */
	COMPARE_REGRESSED = 1, /* a row SLOWER, or a row that failed in NEW */
	COMPARE_BAD_INPUT = 2, /* unreadable or malformed file, bad option, devices differ */
	COMPARE_UNDECIDED = 3, /* inconclusive or incomplete: a row inconclusive (unless
				* --allow-inconclusive), a row of BASE missing from NEW or not
				* compared, variants NEW skipped (unless --allow-missing), or
				* no row compared at all (always) */
};

#define COMPARE_DEFAULT_THRESHOLD_PCT 5.0
#define COMPARE_DEFAULT_MIN_CHANGE_PCT 1.0

enum compare_verdict {
	COMPARE_SAME,      /* decided: the change is within the resolution, or under --min-change */
	COMPARE_FASTER,
	COMPARE_SLOWER,    /* slower; a regression when judgement.regression */
	COMPARE_INCONCLUSIVE, /* too noisy to decide at the threshold */
	COMPARE_UNCOMPARED, /* a side failed validation or was not timed */
	COMPARE_ONLY_BASE,
	COMPARE_ONLY_NEW,
};

struct compare_opts {
	double threshold_pct;  /* T above; >= 0 */
	bool across_devices;
	double min_change_pct; /* MIN above; >= 0 (0: the resolution alone decides) */
	bool allow_missing;    /* rows only in BASE, not compared, or skipped by NEW: exit 0 */
	bool allow_inconclusive; /* inconclusive rows: exit 0 */
	bool unchecked;        /* --unchecked: a file its sidecar cannot check is compared as it is */
};

#define COMPARE_MAX_KEYS 10
#define COMPARE_MAX_DETAILS 6
#define COMPARE_MAX_OPTIONAL 3
#define COMPARE_MAX_COUNTERS 12

/*
 * A kind of results CSV. Adding one (rendering rows, multi-GPU rows with
 * a `ranks` key) is one entry of compare_kinds[] in compare.c.
 */
struct compare_kind {
	const char *name;      /* in messages: "N-body", "SPH" */
	const char *slug;      /* in exported names: "nbody", "sph" */
	const char *signature; /* a column that only this kind's files have */
	/* Join columns, NULL-terminated; the first names the row (variant).
	 * Those in numeric[] must hold integers. */
	const char *keys[COMPARE_MAX_KEYS + 1];
	const char *numeric[COMPARE_MAX_KEYS + 1];
	/* Key columns files written before them lack, each with the value
	 * such a file means (N-body: "ranks", "1") and what a file without
	 * it holds, for the line that says so when the other file has it;
	 * a NULL key ends the list. */
	struct compare_optional {
		const char *key, *dflt, *absent;
	} optional[COMPARE_MAX_OPTIONAL + 1];
	/* The figure compared (higher is better): metric[0], or metric[1]
	 * where the column mode_col holds mode_when[1] (it must hold
	 * mode_when[0] or mode_when[1]); mode_col NULL: always metric[0]. */
	const char *metric[2];
	const char *mode_col, *mode_when[2];
	const char *unit;      /* what the figures are, for the printout */
	/* Key columns printed after the variant, with their headings. */
	const char *shown[6], *shown_heading[6];
	/* Further figures shown as new/base beside the verdict (times, lower
	 * is better), NULL-terminated; they do not count. */
	const char *details[COMPARE_MAX_DETAILS + 1], *detail_heading[COMPARE_MAX_DETAILS + 1];
	/* The metric's noise, % (NULL: noise_pct); valid_col, beside valid,
	 * must also hold 1 for a valid row (NULL: none). */
	const char *noise_col, *valid_col;
	/* For `harness export`: the median seconds per timed call, how many
	 * samples and calls per sample (NULL: 1), and the figures exported as
	 * counters (NULL-terminated). */
	const char *time_col, *samples_col, *reps_col;
	/* The column that times time_col by the units of work of one timed
	 * call (SPH: window_steps), for the between-run floor's band
	 * (floors.h); NULL: time_col is per call. */
	const char *call_units_col;
	const char *counters[COMPARE_MAX_COUNTERS + 1];
	/* A kind whose rows are verdicts, never timed (sph physics): no
	 * metric, no noise; a row passed where valid_name holds 1 ("valid"
	 * when NULL), and only the rows whose row_filter holds 1 are joined
	 * (NULL: every row). */
	bool untimed;
	const char *valid_name, *row_filter;
};

extern const struct compare_kind compare_kinds[];
extern const size_t compare_kind_count;

/* The entry of kind's optional key columns for col, or NULL when col is
 * not one. */
const struct compare_optional *compare_optional_of(const struct compare_kind *kind,
						   const char *col);

/* The kind whose signature column t has, or NULL. */
const struct compare_kind *compare_kind_of(const struct csv_table *t);

/* Whether col is one of kind's numeric columns. */
bool compare_is_numeric(const struct compare_kind *kind, const char *col);

/* What rows are joined on: the kind's key cells, in its order. Owned by
 * the report. */
struct compare_key {
	char *cells[COMPARE_MAX_KEYS];
	size_t count;
};

/* One side of a joined row, as its CSV states it. */
struct compare_side {
	size_t line;           /* line of the row in its file */
	char *device_name;     /* owned by the report */
	bool valid;            /* passed validation */
	double value;          /* interactions_per_s, or steps_per_s in steps mode; NAN: not timed */
	double noise_pct;      /* 0 when the cell is empty */
	double pct_of_ceiling; /* NAN when the cell is empty */
	double samples;        /* the kind's samples_col; NAN when it has none or the cell is empty */
	double call_s;         /* seconds a timed call (time_col x call_units_col); NAN: not known */
	char device_class[8];  /* the device column: "gpu", "cpu"; "" when none */
	double details[COMPARE_MAX_DETAILS]; /* the kind's details; NAN when empty */
};

/* The rule above applied to one pair of figures. */
struct compare_judgement {
	enum compare_verdict verdict;
	bool regression;  /* slower by more than the threshold beyond the resolution */
	double ratio;     /* new / base */
	double noise_pct; /* combined noise of the two rows */
	double resolution_pct; /* u: the change the pair can tell from none */
};

struct compare_entry {
	struct compare_key key;
	bool in_base, in_new;
	bool untimed;         /* judged on validation alone (compare_report.untimed) */
	struct compare_side base, new;
	struct compare_judgement raw;     /* on value */
	struct compare_judgement ceiling; /* on pct_of_ceiling; UNCOMPARED without both */
	bool counts_ceiling;              /* the exit status follows ceiling, not raw */
	/* The between-run floor in the resolution (floors.h): NULL where none
	 * is calibrated for the rows' device, kind and band, or where the
	 * resolution came from elsewhere (ab's rounds). */
	const struct floor_class *floor;
	bool by_noise; /* judged on the rows' noise (and floor), not an estimate of ab's */
};

#define COMPARE_NOTE_LEN 512

#define COMPARE_SKIPPED_LEN 1024

struct compare_report {
	char notes[2][COMPARE_NOTE_LEN]; /* BASE's and NEW's pair against its sidecar (compare_files) */
	const struct compare_kind *kind;
	struct compare_entry *entries;   /* base order, then rows only in NEW */
	size_t count;
	struct compare_opts opts;
	size_t faster, same, slower, regressions, inconclusive, only_base, only_new, failed_new,
	       uncompared;
	/* Variants NEW's run skipped (its sidecar's "skipped"), and which
	 * with why, for the summary (compare_files; 0 and "" otherwise). */
	size_t skipped_new;
	char skipped_note[COMPARE_SKIPPED_LEN];
	/* Rows a side's run planned and never ran: its sidecar says the run
	 * was interrupted ("complete": false); [0] BASE, [1] NEW, with what
	 * it says of them (compare_files; 0 and "" otherwise). */
	size_t incomplete[2];
	char incomplete_note[2][COMPARE_SKIPPED_LEN];
	/* Nothing to time: the kind's rows are verdicts, or no row of either
	 * file was timed (a check's, the memory suite's); every pair is then
	 * judged on its validation alone, valid in both a pass, valid in
	 * BASE and not in NEW a regression. */
	bool untimed;
	/* How the resolution was found, for the printout and the verdict
	 * file, and over how many rounds (0: from the rows' noise). */
	char resolution_rule[512];
	int rounds;
	/* Timed pairs judged with a calibrated floor, and without one (their
	 * device, kind and band have none: the resolution is their noise
	 * alone, blind to what changes between runs). */
	size_t floored, unfloored;
};

/* Judges new against base (both > 0) with their noises (percent, >= 0),
 * the regression threshold and the practical floor (percent): the rule
 * above with u = sqrt(base_noise^2 + new_noise^2). */
struct compare_judgement compare_judge(double base, double base_noise_pct, double new,
				       double new_noise_pct, double threshold_pct,
				       double min_change_pct);

/* The rule above for new against base (both > 0) with resolution u
 * (percent, >= 0) given. noise_pct of the result is NAN (not known here). */
struct compare_judgement compare_decide(double base, double new, double resolution_pct,
					double threshold_pct, double min_change_pct);

/* The cell of key column col of entry e, or NULL when the kind of r has
 * no such key column. */
const char *compare_key_value(const struct compare_report *r, const struct compare_entry *e,
			      const char *col);

/*
 * Joins the rows of two results tables and judges every pair. Returns 0
 * with *out filled (free with compare_report_free), or -1 with one line in
 * err ("path:LINE: column 'x': ..." or "path:LINE: no column 'x' ...") for
 * a file of no known kind, files of two kinds, a missing column, a
 * malformed cell, a key repeated within one file, or (without
 * across_devices) a pair measured on different devices.
 */
int compare_rows(const struct csv_table *base, const struct csv_table *new,
		 const struct compare_opts *o, struct compare_report *out, char *err,
		 size_t errlen);

/* Reads both files and calls compare_rows. Returns 0, or -1 with err. */
int compare_files(const char *base_path, const char *new_path, const struct compare_opts *o,
		  struct compare_report *out, char *err, size_t errlen);

/* What a judge other than the rows' noise says of a pair: new/base and
 * the resolution (percent); NAN in either keeps the files' own. base and
 * new, when not NAN, are the figures the ratio is of (new / base =
 * ratio), shown and written in place of the files' own, so that the
 * columns and the ratio beside them never point different ways. */
struct compare_estimate {
	double ratio, resolution_pct;
	double base, new;
};

/*
 * Judges every joined pair of r again with the estimate est(ctx, e)
 * returns for it, and counts again. rule says in a few words how those
 * estimates were found, rounds over how many rounds (`harness ab`: from
 * its rounds, ab_judge.h).
 */
void compare_rejudge(struct compare_report *r,
		     struct compare_estimate (*est)(void *ctx, const struct compare_entry *e),
		     void *ctx, const char *rule, int rounds);

/* The exit status r calls for (enum compare_status, never BAD_INPUT):
 * REGRESSED when an entry is a regression that counts or failed in NEW;
 * else UNDECIDED when nothing was compared, or when an entry is
 * inconclusive, only in BASE or not compared, NEW skipped variants, or a
 * side's run was interrupted before all its rows ran, and the options do
 * not allow it; else OK. */
int compare_exit_status(const struct compare_report *r);

/* Prints the table, the rule, a summary line and a verdict line that
 * names the exit status and what caused it. */
void compare_print(FILE *fp, const struct compare_report *r, const char *base_path,
		   const char *new_path);

/* One line (no newline) saying why the exit status is not 0, naming up
 * to three rows of each kind of trouble; "" when it is 0. */
void compare_why_not_passed(const struct compare_report *r, char *out, size_t outlen);

/*
 * Writes the verdicts to csv_path (atomically, with a sidecar): one row
 * per entry of r, its kind's key columns, then metric, base_value,
 * new_value, ratio, change_pct, noise_pct, resolution_pct (the smallest
 * change the row could tell from none), threshold_pct, rounds and verdict
 * (same, faster, slower, SLOWER, inconclusive, or why it was not
 * compared: "only in BASE", "invalid in NEW", ...). The sidecar holds the
 * rule, the counts, the exit status, the files compared and argv.
 * Returns 0, or -1 with one line in err.
 */
int compare_write_verdicts(const char *csv_path, const struct compare_report *r,
			   const char *base_path, const char *new_path, int argc, char **argv,
			   char *err, size_t errlen);

/* Frees what r holds and leaves it empty; harmless to repeat. */
void compare_report_free(struct compare_report *r);

/* The subcommand: argv[0] is "compare". Returns the exit status. */
int compare_command(int argc, char **argv);

#endif /* HARNESS_COMPARE_H */
