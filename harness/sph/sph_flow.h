/* sph_flow.h - the dam break as a user runs it: its moments' states, made once, and the rate of the whole flow */
#ifndef HARNESS_SPH_FLOW_H
#define HARNESS_SPH_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../../variants/sph_registry.h"
#include "../core/progress.h"
#include "sph_state.h"

/*
 * The moments of the flow that `--warm-steps flow` (the default) times:
 * step 20, while the column has barely started to fall, then every 0.1 s
 * to 0.4 s: the column's collapse and the surge along the floor toward
 * the far wall of the tank, four column widths away, while the Verlet
 * lists are rebuilt more and more often (results/sph.md). Each moment is
 * a row of its own; the rate of the whole stretch is a row more
 * (sph_flow_combine).
 */
#define SPH_FLOW_MOMENTS "20,0.1s,0.2s,0.3s,0.4s"
#define SPH_FLOW_MAX 16

/*
 * The weight of each moment in the rate of the whole flow: the steps of
 * flow it stands for, by the trapezoid rule over steps s_0 < ... < s_k
 * (the cost of a step taken as linear between two moments):
 * w_0 = (s_1 - s_0) / 2, w_i = (s_{i+1} - s_{i-1}) / 2, w_k = (s_k -
 * s_{k-1}) / 2; they add up to s_k - s_0. Returns 0, or -1 when there are
 * fewer than two moments or the steps do not ascend strictly.
 */
int sph_flow_weights(const unsigned long *steps, size_t k, double *w);

/* A moment's timing, or the flow's: seconds per step (median, fastest and
 * slowest sample), the samples' relative spread (%) and each phase's ms
 * per step (build, density, force, integrate). */
struct sph_flow_timing {
	double median_s, min_s, max_s;
	double noise_pct;
	double phase_ms[4];
};

/*
 * The flow from k moments of weights w (sph_flow_weights): its time is
 * T = sum w_i t_i for each moment's seconds per step t_i (median, min and
 * max alike), its seconds per step T / sum w_i, and so its steps/s the
 * rate of the whole stretch, a slow moment weighing as the steps it
 * stands for do in a run; its noise the relative spread of T from
 * independent moments, sqrt(sum (w_i t_i n_i)^2) / T; each phase's ms the
 * same weighted mean.
 */
void sph_flow_combine(const struct sph_flow_timing *m, const double *w, size_t k,
		      struct sph_flow_timing *out);

/*
 * The states of one column's flow at its moments, made once by one
 * producer and read by every variant's rows: every variant times the
 * same water. The producer is the fastest variant that can run here
 * (sph_flow_producer); it runs the flow from step 0 to the last moment
 * in one context and writes each moment's state (sph_state.h) as it
 * passes it. With a directory, the files are kept there and a later run
 * of the same flow, producer and clean build reads them instead
 * (sph_flow_states.reused); without one they are temporary files, gone
 * when freed or when the process ends.
 */
struct sph_flow_states {
	size_t k;
	unsigned long step[SPH_FLOW_MAX];    /* ascending, distinct */
	struct sph_state_meta meta[SPH_FLOW_MAX];
	char path[SPH_FLOW_MAX][1024];       /* kept files ("" for temporary ones) */
	FILE *fp[SPH_FLOW_MAX];              /* temporary ones, unlinked, open */
	const struct sph_variant *producer;
	bool reused;                         /* read from kept files, not made */
	double seconds;                      /* making them (0 when reused) */
};

/* The variant that makes the states here: the first of sph-gpu-verlet
 * (the fastest valid GPU search on the H200: results/sph.md) and
 * sph-cpu-grid that can run here, or NULL. */
const struct sph_variant *sph_flow_producer(void);

/* Makes (or, from dir, reads) the states of scene sc (column col, seed)
 * at the k steps (any order, repeats allowed) into *fs, with producer;
 * dir NULL: temporary files. Reports progress as parts of the item under
 * way on pg (may be NULL). 0, or -1 with one line in err. */
int sph_flow_produce(struct sph_flow_states *fs, const struct sph_variant *producer,
		     const struct sph_column *col, uint64_t seed, const struct sph_scene *sc,
		     const unsigned long *steps, size_t k, const char *dir, struct progress *pg,
		     char *err, size_t errlen);

/* The state at step (one of fs's) into pos4, vel4 (4n floats each) and
 * *m. 0, or -1 with one line in err. */
int sph_flow_load(const struct sph_flow_states *fs, unsigned long step, float *pos4, float *vel4,
		  struct sph_state_meta *m, char *err, size_t errlen);

/* Closes fs's temporary files (they vanish) and empties it. */
void sph_flow_states_free(struct sph_flow_states *fs);

#endif
