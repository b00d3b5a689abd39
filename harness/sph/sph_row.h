/* sph_row.h - bin/harness sph's options and its rows: what its command line, its timed window and its printing share */
#ifndef HARNESS_SPH_ROW_H
#define HARNESS_SPH_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../kernels/sph/sph.h"
#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../cli.h"
#include "../core/timing.h"
#include "../render/render_run.h"
#include "sph_validate.h"

struct sph_journal;

/* Most columns one command takes. */
#define SPH_RUN_MAX_COLUMNS 32

/* The default timed window (--window-steps): the steps of every timed
 * call, from the same kept state. On a GPU, 8 of the batches of 16 steps
 * the GPU variants capture as one graph (kernels/sph/sph_gpu_common.cuh),
 * so no step runs outside a graph; the Verlet lists, built afresh at the
 * window's first step, are rebuilt inside it as often as the flow makes
 * them. On the CPU, where a step of the paper's columns takes
 * milliseconds, 16. */
#define SPH_RUN_WINDOW_GPU 128
#define SPH_RUN_WINDOW_CPU 16

/* --warm-steps: the most one moment may take (cli.h's rule). Its default
 * is the flow, SPH_FLOW_MOMENTS (sph_flow.h), "flow" names it. */
#define SPH_RUN_MAX_WARM CLI_MOMENT_MAX_STEPS

struct sph_options {
	enum { SPH_LIST, SPH_CHECK, SPH_RUN, SPH_SNAPSHOT } cmd;
	bool help, quiet, variant_given;
	bool selected[SPH_VARIANT_COUNT];
	bool filter_given;
	bool filtered[SPH_VARIANT_COUNT]; /* from --filter */
	int gpu;                          /* --gpu INDEX; -1: not given */
	struct sph_column columns[SPH_RUN_MAX_COLUMNS];
	size_t ncolumns;
	uint64_t seed;
	struct cli_moments warm; /* --warm-steps: the moments of the flow timed */
	bool warm_given;         /* --warm-steps was given (a suite line's moments else) */
	const char *states_dir;  /* --states DIR: the flow's states kept there; NULL: temporary */
	bool resume;             /* --resume: take back the rows an interrupted run kept */
	const char *args;        /* the arguments, --resume left out, as a journal records them */
	const char *journal;     /* where the finished rows are kept (sph_journal.h); NULL: nowhere */
	const struct sph_journal *resumed; /* the rows taken back, NULL when none */
	int window_steps; /* --window-steps; 0: the variant's device's default */
	struct timing_opts timing;
	const char *out;
	const char *suite;   /* --suite NAME or all */
	const char *out_dir; /* --out-dir for suites */
	unsigned long at[16]; /* snapshot: the steps to record, ascending */
	size_t nat;
	size_t format;	/* snapshot: --format, an index of sph_snap_formats */
	bool format_given;
	bool render;	/* every row also runs the rendering pipeline (render_run.h) */
	struct render_run_opts ro;
};


/* One (variant, column) result. */
struct sph_row {
	const struct sph_variant *v;
	struct sph_column col;
	size_t n, nb;      /* fluid and boundary particles */
	unsigned long long clamps; /* last-resort clamps, warm-up and timing included */
	const char *device_name;
	uint64_t seed;
	int warm_steps;    /* the moment: the state validated and timed is that of this step */
	int window_steps;  /* the steps of every timed call, from the kept state */
	uint64_t window_fnv1a64; /* of the positions and velocities every window ends on */
	uint64_t state_fnv1a64;  /* of the state at warm_steps (sph_state.h) */
	const char *state_by;    /* the variant that made it */
	unsigned long long state_clamps; /* the flow's clamps up to it */
	bool state_reused;       /* read from --states, not made by this run */
	double dt;               /* the column's time step, s */
	/* A row of the whole flow (sph_flow_combine): its moments' rows are
	 * the ones before it, from warm_steps to flow_to; 0: a moment's row. */
	unsigned long flow_to;
	double flow_phase_ms[4]; /* a flow row's build, density, force, integrate ms a step */
	struct sph_validation val;
	struct sph_counts counts;
	bool timed;
	struct timing_result t;
	struct sph_phase_times ph; /* summed over ph_steps timed steps */
	long long ph_steps;
	struct render_run_result r; /* with --render */
	bool resumed;		    /* taken back by --resume from an interrupted run's journal */
};

/*
 * Bytes one fluid particle costs at most on the host while a row is
 * checked: the scene's positions and velocities (32), what is read back
 * from the variant (52), the CPU variant's state (108), the double
 * reference's state (88) and its neighbour lists (some 40 pairs of 8
 * bytes: 320), the validation's arrays (40); rounded up.
 */
#define SPH_RUN_BYTES_PER_PARTICLE 768

/* Whether column col fits in this machine's memory (sysinfo_check_memory);
 * 0, or -1 with one line in err naming it and both amounts. */
int sph_run_check_memory(const struct sph_column *col, char *err, size_t errlen);

/* Whether SPH variant i is selected: by --variant (every one without it)
 * and by --filter. */
bool sph_wants(const struct sph_options *o, size_t i);

/* A row's build, density, force and integrate ms a step: its windows'
 * (or its flow's) phase times. */
void sph_row_phase_ms(const struct sph_row *row, double ms[4]);

#endif /* HARNESS_SPH_ROW_H */
