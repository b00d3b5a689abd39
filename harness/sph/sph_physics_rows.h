/* sph_physics_rows.h - inside sph physics: its options, rows and checks, shared by its three files */
#ifndef HARNESS_SPH_PHYSICS_ROWS_H
#define HARNESS_SPH_PHYSICS_ROWS_H

/*
 * sph physics in three files: sph_physics.c the command (options, the
 * table, the CSV and its sidecar), sph_physics_run.c the looks of a check
 * with its checkpoints and restarts, sph_physics_checks.c the three checks
 * (the dam break, water at rest, the leak check). Not for other commands.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/keep.h"
#include "../core/progress.h"
#include "sph_checkpoint.h"
#include "sph_physics_checks.h"
#include "sph_trace.h"

/* How long and how finely each check runs. */
#define SPH_PHYSICS_DAM_T_END	3.4	/* past the last point of Table 2 */
#define SPH_PHYSICS_DAM_DT	0.02	/* samples of the curve, in T */
#define SPH_PHYSICS_REST_S	1.0	/* seconds of water at rest */
#define SPH_PHYSICS_REST_DT	0.01	/* a sample every this many seconds */
#define SPH_PHYSICS_REST_COLUMN	"16x16x16@0"
#define SPH_PHYSICS_LEAK_DT	0.05	/* seconds between the leak check's looks */
#define SPH_PHYSICS_LEAK_COLUMNS "16128,75200,255600"
#define SPH_PHYSICS_LEAK_MAX_COLUMNS 8
/* The time step against the flow, on the smoothing length h / 2 (half
 * the support radius h of sph_ref.h, the h of Monaghan and of
 * DualSPHysics): Monaghan's CFL condition dt (c + v) / (h / 2) <= 0.4 and
 * force condition dt sqrt(a / (h / 2)) <= 0.25 for the fastest and the
 * most accelerated particle (Monaghan 1992, "Smoothed particle
 * hydrodynamics", ARA&A 30; DualSPHysics asks 0.2 of both), judged in the
 * leak check at its looks. */
#define SPH_PHYSICS_CFL_LIMIT	0.4
#define SPH_PHYSICS_FORCE_LIMIT	0.25

struct phys_options {
	int variant; /* index into sph_variants */
	bool dambreak, rest, leak, quiet;
	struct sph_column dam_col, rest_col;
	struct sph_column leak_cols[SPH_PHYSICS_LEAK_MAX_COLUMNS];
	size_t nleak;
	double leak_s; /* seconds of flow the leak check runs */
	int layers;    /* --wall-layers; 0: the scene's default */
	int lid;       /* --lid */
	double top;    /* --wall-height; 0: the scene's default */
	uint64_t seed;
	double friction; /* the dam break's wall_friction */
	double cfl;	 /* --cfl: dt = cfl h / c; 0: the scene's (SPH_WATER_CFL) */
	int gpu;	 /* --gpu INDEX; -1: not given */
	const char *out;
	const char *checkpoint; /* --checkpoint FILE: where checkpoints go */
	double ck_every_s;	/* --checkpoint-every S s: at the first look this long after the last */
	long ck_every_steps;	/* --checkpoint-every STEPS: ... this many steps after */
	const char *restart;	/* --restart FILE */
	bool trace;		/* --trace: the leak check's fastest particle at each look, closely */
};

/* The checks in the order they run: the dam break, water at rest, then
 * one leak check per leak column (PHYS_CHECK_LEAK + c). */
enum { PHYS_CHECK_DAMBREAK, PHYS_CHECK_REST, PHYS_CHECK_LEAK, PHYS_CHECKS = PHYS_CHECK_LEAK + SPH_PHYSICS_LEAK_MAX_COLUMNS };

/* What a check keeps from look to look, so that a checkpoint holds it:
 * arrays of a value per look (samples + 1 each) and scalars. */
#define PHYS_MAX_SERIES 32
#define PHYS_MAX_EXTRAS 4
struct phys_series {
	size_t count, nextra;
	double *v[PHYS_MAX_SERIES];
	double *extra[PHYS_MAX_EXTRAS];
};

/* A restart: the checkpoint, and what it says of the check under way. */
struct phys_resume {
	const char *path;
	struct sph_checkpoint ck; /* the particles at look k */
	int check;
	size_t k, samples;
	long every;
	unsigned long long clamps; /* the check's, from its start to look k */
	size_t nser, nextra;
	double *ser[PHYS_MAX_SERIES]; /* k + 1 values each */
	double extra[PHYS_MAX_EXTRAS];
};

/* The state a check ended on: its last look's particles' hash. */
struct phys_end {
	int check;
	unsigned long step;
	uint64_t fnv;
};


/* One output row. */
struct phys_row {
	const char *check, *quantity;
	char column[48];
	size_t n, nb;
	double T, t, sim, meas, rel, tol;
	bool judged, pass;
	unsigned long long clamps;
};

struct phys_rows {
	struct phys_row *r;
	size_t n, cap;
	const struct sph_variant *v;
	const char *device_name;
	double friction;	/* the dam break's wall friction, for the sidecar */
	double cfl;		/* dt = cfl h / c, for the sidecar */
	struct progress *pg;	/* one item per check, its part the steps done */
	long steps_done, steps_total; /* of the check under way */
	float *vel4, *acc4;	/* set by phys_run for the check under way when
				 * it wants the motion: each look's velocities
				 * and accelerations (else NULL) */
	bool want_motion;
	unsigned long long clamps_now; /* set by phys_run at each look: since create */
	/* what an interruption keeps (core/keep.h): the rows of the checks
	 * finished, and their labels; changed under interrupt_lock */
	size_t kept, checks_done;
	char done[SPH_PHYSICS_LEAK_MAX_COLUMNS + 2][KEEP_LABEL];
	/* checkpoints and restarts (sph_checkpoint.h) */
	const struct phys_options *o;
	char options[SPH_CHECKPOINT_OPTIONS_LEN]; /* phys_options_text */
	int check;			  /* the check under way (PHYS_CHECK_*) */
	struct sph_state_meta start;	  /* its scene as built (phys_begin), step 0 */
	struct phys_resume *resume;	  /* the restart's, NULL when none */
	double ck_last_s;		  /* when the last checkpoint was written */
	long ck_steps;			  /* steps run since */
	size_t checkpoints;		  /* written */
	struct keep *keep;		  /* whose `later` names the last checkpoint */
	struct phys_end ends[PHYS_CHECKS];
	size_t nends;
	char *names;			  /* the restored rows' check and quantity names */
};

/* Runs v on sc for samples + 1 looks, every `every` steps apart; at each
 * the callback gets the positions and densities (evaluated there) and
 * keeps what it needs in ser. */
typedef int (*phys_sample_fn)(void *arg, size_t k, double t, const float *pos4, const float *rho);

/* --trace: the fastest particle at each look (sph_trace.h), as curves. */
enum { TRACE_PARTICLE, TRACE_X, TRACE_Y, TRACE_Z, TRACE_SPEED, TRACE_CFL, TRACE_WALL_H,
       TRACE_WALLS_NEAR, TRACE_FLUID_H, TRACE_BOUNDARY_H, TRACE_FLUID_NBRS, TRACE_BOUNDARY_NBRS,
       TRACE_DENSITY, TRACE_ACC, /* SPH_TRACE_TERMS of them */
       TRACE_ACC_REFERENCE = TRACE_ACC + SPH_TRACE_TERMS, TRACE_ACC_VARIANT, TRACE_DOMINANT,
       TRACE_CURVES };
extern const char *const trace_curve_names[TRACE_CURVES];

/* The options' changes to a scene just built: the time step. */
void phys_scene_apply(const struct phys_options *o, struct sph_scene *sc);

/* ---- sph_physics_run.c ---- */

/* For the line an interruption prints: check on column is under way. */
void phys_doing(const char *check, const char *column);

/* The check under way is finished, its rows complete: an interruption
 * from now on keeps them. label as phys_plan planned it. */
void phys_check_done(struct phys_rows *rs, const char *check, const char *column);

/* steps more of the check under way are done. */
void phys_advance(struct phys_rows *rs, long steps);

/* A new row at the end of rs, zeroed with its numbers NAN; NULL when
 * memory ran out. */
struct phys_row *phys_add(struct phys_rows *rs);

/* A row like proto for quantity at T (or NAN) and t seconds, sim against
 * meas: rel = sim / meas - 1 and tol as given; judged rows outside it
 * clear *all_pass. 0, or -1 when memory ran out. */
int phys_add_judged(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
		    double T, double t, double sim, double meas, double tol, bool judged,
		    bool *all_pass);

/* The options that change what sph physics computes, as text: a
 * checkpoint goes on only under the same (sph_checkpoint_check). */
void phys_options_text(const struct phys_options *o, char *out, size_t len);

/* Reads the restart's checkpoint (o->restart) into res: the check under
 * way, its looks so far, and the rows and ends of the checks before it
 * added to rs. 0, or -1 with one line in err. */
int phys_resume_read(struct phys_rows *rs, struct phys_resume *res, char *err, size_t errlen);

/* Frees what phys_resume_read gave res. */
void phys_resume_free(struct phys_resume *res);

/* Whether check is before the restart's: finished, its rows restored. */
bool phys_restored(const struct phys_rows *rs, int check);

/* The check under way starts on sc, built from col and not yet changed
 * (water at rest relaxes it first): what its checkpoints say of its
 * scene. */
void phys_begin(struct phys_rows *rs, const struct sph_column *col, const struct sph_scene *sc);

/*
 * The looks of a check: from its start, or from the restart's look when
 * the restart is of this check. Between two looks the variant is made
 * again from the particles of the look, as a restart from a checkpoint
 * of that look makes it: the GPU variants keep their particles in the
 * order of their last sort and their Verlet lists from their last
 * rebuild, which a variant made fresh from the same particles does not
 * share, so that only this makes a restarted run end bit for bit where
 * an unbroken one does, at whatever look it was cut.
 */
int phys_run(struct phys_rows *rs, const struct sph_scene *sc, long every, size_t samples,
	     phys_sample_fn fn, void *arg, struct phys_series *ser, unsigned long long *clamps);

/* ---- sph_physics_checks.c ---- */

/* The dam break of Martin and Moyce's column (sph_physics.h): its curves
 * and judged points as rows of rs; *all_pass cleared by one outside its
 * bound. 0, or -1 when it could not run. The same for phys_rest (water
 * at rest) and phys_leak. */
int phys_dambreak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass);

int phys_rest(const struct phys_options *o, struct phys_rows *rs, bool *all_pass);

/* The dam break of each leak column through the impact on the far wall
 * and the slosh back: no coordinate may need the last-resort clamp
 * (leak_clamps) and no particle may be outside the box at a look
 * (leak_outside). */
int phys_leak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass);

/* The checks of o on pg, each costing its particles times its steps,
 * and by label on keep. */
void phys_plan(const struct phys_options *o, struct progress *pg, struct keep *keep);

#endif /* HARNESS_SPH_PHYSICS_ROWS_H */
