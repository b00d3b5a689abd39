/* sph_window.h - the timed window of bin/harness sph and the moments of the flow: what its command line asks of them */
#ifndef HARNESS_SPH_WINDOW_H
#define HARNESS_SPH_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/keep.h"
#include "../core/progress.h"
#include "sph_flow.h"
#include "sph_row.h"

/* A row's stages, in the order sph_measure runs them. */
enum sph_stage {
	SPH_STAGE_SETUP,     /* the variant's state, and the scene on the column's first row */
	SPH_STAGE_WARM,      /* the flow's state read and evaluated by the variant */
	SPH_STAGE_REFERENCE, /* the double reference on the state reached */
	SPH_STAGE_RENDER,    /* the rendering's validation and timing */
	SPH_STAGE_TIMING,    /* the physics timing */
	SPH_STAGES
};

/* The predicted seconds of a row's stages (sph_row_costs). */
struct sph_cost {
	double stage[SPH_STAGES];
};

/* The steps of v's timed window: --window-steps, else its registry
 * line's, else its device's. */
int sph_window_steps(const struct sph_options *o, const struct sph_variant *v);

/* Predicted seconds of the row of v on col, by stage: the scene (first:
 * the column's first row, which builds it), reading the flow's state and
 * one evaluation (the states themselves: sph_states_cost), the double
 * reference, and for run the timing (repetitions_predict), and
 * --max-time twice again for the rendering's validation and timing. */
struct sph_cost sph_row_costs(const struct sph_options *o, const struct sph_variant *v,
			      const struct sph_column *col, bool first);

double sph_cost_total(const struct sph_cost *c);

/* The state of the flow at the row's moment (fs), validation of the
 * variant started from it, then (run) timing, each stage reported on pg
 * as a part of the row's predicted cost c. Returns CLI_OK, or CLI_FAILED
 * when the variant failed or is invalid. */
int sph_measure(const struct sph_options *o, const struct sph_scene *sc,
		const struct sph_flow_states *fs, struct sph_row *row,
		const struct sph_cost *c, struct progress *pg);

/* The steps of --warm-steps' moments on column col (seconds of flow in
 * its time step). 0, or -1 with one line in err. */
int sph_warm_steps(const struct sph_options *o, const struct sph_column *col,
		   unsigned long warm[CLI_MAX_MOMENTS], char *err, size_t errlen);

/* A row's label, in the plan, the progress, the sidecar and compare's
 * list of rows never run: "sph-gpu-verlet on 255600 at step 20", or
 * for the row of the whole flow "sph-gpu-verlet on 255600 over steps 20
 * to 8929". */
void sph_row_label(const char *variant, const char *column, unsigned long warm,
		   unsigned long flow_to, char *out, size_t len);

/* The first and last of the moments warm (o->warm.n of them) when they
 * make a row of the whole flow: a timed run of two or more distinct
 * moments. Else false. */
bool sph_flow_planned(const struct sph_options *o, const unsigned long *warm,
		      unsigned long *lo, unsigned long *hi);

/* The variants of o that run here, on every column, planned on pg and
 * by label on keep (either may be NULL): each column's states, then its
 * rows, a row of the whole flow after each variant's moments. */
void sph_plan(const struct sph_options *o, struct progress *pg, struct keep *keep);

/* Every column of o: against this machine's memory (sph_run_check_memory),
 * and its --warm-steps in its time step (sph_warm_steps). */
int sph_check_columns(const struct sph_options *o, char *err, size_t errlen);

/* The states of col's flow (scene sc) at the moments warm, made by the
 * producer once per process (sph_state_cache) as a progress item of its
 * own; NULL with one line in err. */
const struct sph_flow_states *sph_states_of(const struct sph_options *o,
					    const struct sph_column *col,
					    const struct sph_scene *sc,
					    const unsigned long *warm, struct progress *pg,
					    char *err, size_t errlen);

/* The row of the whole flow of the moment rows m[0..count) (all of one
 * variant and column, at distinct steps) into *out (sph_flow.h): valid
 * and timed when every moment is. */
void sph_flow_row(const struct sph_row *m, size_t count, struct sph_row *out);

#endif /* HARNESS_SPH_WINDOW_H */
