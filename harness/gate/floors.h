/* floors.h - what two separate runs of the same code differ by: the between-run floor of a row's resolution */
#ifndef HARNESS_FLOORS_H
#define HARNESS_FLOORS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A row's samples spread by its noise_pct within one run; two separate
 * runs of the same code on the same machine differ by more (clocks,
 * where the process's memory and threads land, the device's state at
 * its start), which no run sees in its own samples. The floor is that
 * difference, measured: `harness calibrate` joins the rows of several
 * separate runs of one suite pair by pair, and for each class of rows
 * (one device, one kind of results, one device class and one band of
 * time per timed call) takes the between-run excess of every pair,
 *
 *   e = sqrt(max(d^2 - n^2, 0)),  d = 100 |ln(v2 / v1)| %,
 *                                 n = sqrt(noise1^2 + noise2^2) %,
 *
 * and its floor F, the 95th percentile of e (nearest rank) rounded up to
 * 0.05 %: then d <= sqrt(n^2 + F^2) for at least 95 % of the class's
 * pairs. compare takes a pair's resolution as sqrt(n^2 + F^2). A class
 * of fewer than FLOORS_MIN_PAIRS pairs gets no floor.
 *
 * The floors compare uses are harness/gate/floors.def, each line derived by
 * `harness calibrate --def` from the committed runs it names (a test
 * derives them again from those files).
 */
#define FLOORS_MIN_PAIRS 20
#define FLOORS_QUANTILE 0.95
#define FLOORS_STEP_PCT 0.05

/* The bands of time per timed call: a call shorter than this is of
 * launch and clock effects as much as of the kernel's work. */
#define FLOORS_SHORT_CALL_S 1e-4

struct floor_class {
	const char *device_name; /* the rows' device_name: "NVIDIA H200" */
	const char *kind;        /* compare's kind slug: "nbody", "sph" */
	const char *device;      /* the rows' device column: "gpu", "cpu" */
	double min_call_s, max_call_s; /* the band: min <= seconds per call < max */
	double floor_pct;
	int pairs;               /* pairs of separate runs it was derived from */
	const char *source;      /* where those runs are */
};

extern const struct floor_class floors_table[];
extern const size_t floors_count;

/* The band (0: shorter than FLOORS_SHORT_CALL_S, 1: the rest) of a call
 * of seconds; NAN counts as the rest. */
int floors_band(double call_s);

/* The floor of a row of kind on device_name (its device column device)
 * whose timed call takes call_s seconds, or NULL when none is
 * calibrated. */
const struct floor_class *floors_find(const char *device_name, const char *kind,
				      const char *device, double call_s);

/* A pair's between-run excess e (above) from its difference and noise,
 * both percent. */
double floors_excess(double d_pct, double noise_pct);

/* The floor of excesses e[0..n) (reordered): their 95th percentile by
 * nearest rank, rounded up to FLOORS_STEP_PCT; NAN when n <
 * FLOORS_MIN_PAIRS. */
double floors_derive(double *e, size_t n);

#endif
