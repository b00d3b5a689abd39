/* sph_run.c - bin/harness sph: list, validate and time the SPH variants on the dam break */
#define _GNU_SOURCE
#include "sph_run.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/atomic_file.h"
#include "../core/interrupt.h"
#include "../core/keep.h"
#include "../core/csv_table.h"
#include "../cli.h"
#include "../core/gpu_device.h"
#include "../core/json_out.h"
#include "../core/progress.h"
#include "../core/repetitions.h"
#include "../render/render_run.h"
#include "../core/results.h"
#include "../core/skips.h"
#include "sph_flow.h"
#include "sph_physics.h"
#include "../render/sph_render.h"
#include "sph_validate.h"
#include "sph_vtk.h"
#include "../core/sysinfo.h"
#include "../core/testhook.h"
#include "../core/timing.h"

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

/* The SPH suites: SPH_SUITE(name, variants, columns, moments, timed, render) lines. */
struct sph_suite_line {
	const char *name, *variants, *columns, *moments;
	bool timed, render;
};
static const struct sph_suite_line sph_suite_lines[] = {
#define SPH_SUITE(name_, variants_, columns_, moments_, timed_, render_)                   \
	{ .name = name_, .variants = variants_, .columns = columns_, .moments = moments_,  \
	  .timed = timed_, .render = render_ },
#include "../../variants/sph_suites.def"
#undef SPH_SUITE
};
static const size_t sph_suite_count = sizeof sph_suite_lines / sizeof sph_suite_lines[0];

static bool sph_suite_exists(const char *name)
{
	for (size_t e = 0; e < sph_suite_count; e++)
		if (strcmp(sph_suite_lines[e].name, name) == 0)
			return true;
	return strcmp(name, "all") == 0;
}

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
};

static void sph_help(void)
{
	printf("usage: harness sph list\n"
	       "       harness sph check|run [options]\n"
	       "       harness sph snapshot --variant NAME --column C --at 0,300,600 --out FILE.csv\n"
	       "       harness sph snapshot ... --format vtk --out DIR\n"
	       "       harness sph physics [options]   (see harness sph physics --help)\n"
	       "       harness sph render --variant NAME --column C --at STEPS --out DIR\n\n"
	       "The SPH step of reference/sph_ref.h (Mueller 2003 water, walls of boundary\n"
	       "particles) on the dam-break columns of the SPH paper: the flow's state at each\n"
	       "moment of --warm-steps is made once per column (by the fastest variant that runs\n"
	       "here: sph-gpu-verlet, else sph-cpu-grid); every variant starts from it, is\n"
	       "validated against the double reference there, then (run) timed over a window\n"
	       "of steps, phase by phase; with two or more moments a row more gives the rate\n"
	       "of the whole flow from the first moment to the last.\n\n"
	       "  --variant, -v PAT   SPH variant name or glob, comma-separated (all available)\n"
	       "  --filter REGEX      only variants whose name the POSIX extended regex matches\n"
	       "                      anywhere (^ $ anchor it); with --variant, those both select\n"
	       "  --gpu INDEX         the GPU to use among those visible (CUDA_VISIBLE_DEVICES),\n"
	       "                      recorded in the sidecar (0)\n"
	       "  --column LIST       columns, comma-separated: a name (16128 ... 4207500,\n"
	       "                      martin-moyce), NXxNYxNZ[@L] (L: the tank's length in\n"
	       "                      column widths, 4; @0 a box that fits), 'paper'\n"
	       "                      (16128,75200,129024,255600) or 'all' (every name) (16128)\n"
	       "  --seed S            jitter of the lattice (42)\n"
	       "  --warm-steps LIST   the moments of the flow validated and timed: steps, or\n"
	       "                      seconds of flow where a value ends in s (0.1s: the\n"
	       "                      nearest step), each a row of its own, at most %d values,\n"
	       "                      each " CLI_MOMENTS_STEPS " or " CLI_MOMENTS_SECONDS ";\n"
	       "                      'flow' (the default) is %s: the column's fall\n"
	       "                      and its surge toward the far wall, and a row of the whole flow\n"
	       "  --states DIR        keep the flow's states there (sph-state/1 files) and read\n"
	       "                      them back in a later run of the same build (temporary)\n"
	       "  --window-steps K    the steps of every timed call: each call starts again from\n"
	       "                      the state kept after the warm-up and runs the same K steps\n"
	       "                      (%d on a GPU, whole batches of its captured steps; %d on\n"
	       "                      the CPU and for sph-gpu-brute: variants/sph.def)\n"
	       "  --min-time S, --max-time S, --max-noise PCT, --min-samples K, --repetitions R\n"
	       "                      as for 'harness run'\n"
	       "  --out, -o FILE.csv  results (run: results/local/sph-<UTC time>.csv)\n"
	       "  --suite NAME|all    sph-table (every variant on the paper's four columns),\n"
	       "                      sph-large (the five fastest at 1 and 4.2 million),\n"
	       "                      sph-scale (to 4.2 million), sph-memory (memory only),\n"
	       "                      sph-render-table (the paper's Tables 1 and 2, rendering):\n"
	       "                      variants/sph_suites.def; one CSV each in --out-dir\n"
	       "  --out-dir DIR       where suites write (results/local)\n"
	       "  --render            also run the SPH paper's rendering pipeline on every\n"
	       "                      row (surface extraction with the variant's search,\n"
	       "                      distance field, raycast), validated, then timed over\n"
	       "                      the same %d frames from the validated state for every\n"
	       "                      variant (GPU variants; the sph-render-table suite)\n"
	       "  --width W, --height H  the rendered image (%d x %d)\n"
	       "  --res R             distance-field voxels along the box's longest side\n"
	       "                      (derived from the particle spacing: reference/render_ref.h)\n"
	       "  --samples S         ray samples per unit distance, the box's longest side\n"
	       "                      (derived; the paper's 250 went with a 64^3 field)\n"
	       "  --shading phong|paper  the rendering's lighting: Phong (the default), or the\n"
	       "                      paper's refractions, Fresnel term and environment\n"
	       "                      (reference/render_ref.h); a suite's file is then\n"
	       "                      <suite>-paper.csv\n"
	       "  --at LIST           snapshot: steps at which to record every particle\n"
	       "                      (step, time, x, y, z, speed, density) for pictures\n"
	       "  --format csv|vtk    snapshot: one CSV (the default), or for ParaView a\n"
	       "                      directory --out DIR (created) of VTK XML PolyData:\n"
	       "                      <variant>-<column>-fluid-<step>.vtp (position, velocity,\n"
	       "                      density, pressure), <variant>-<column>-boundary.vtp (the\n"
	       "                      walls, with psi) and the time series <variant>-<column>.pvd\n"
	       "                      (open it: fluid part 0, boundary part 1)\n"
	       "  --quiet, -q         no table, no progress, no line of skipped variants (the\n"
	       "                      progress: rewritten in place on a terminal, else a line\n"
	       "                      every $HARNESS_PROGRESS_INTERVAL seconds, 10)\n"
	       "Variants that cannot run here are left out, named in one line on stderr and\n"
	       "listed in the sidecar (\"skipped\"); a suite none of whose rows can run here\n"
	       "writes no file.\n"
	       "Exit status: 0 all valid, 1 a variant failed, 2 bad input, or nothing selected\n"
	       "can run here.\n",
	       CLI_MAX_MOMENTS, SPH_FLOW_MOMENTS, SPH_RUN_WINDOW_GPU, SPH_RUN_WINDOW_CPU,
	       RENDER_RUN_FRAMES, RENDER_RUN_WIDTH,
	       RENDER_RUN_HEIGHT);
}

/* Adds the columns of s: named ones ("16128", "martin-moyce"), NXxNYxNZ[@L],
 * "paper" (the paper's four) or "all" (every named column). */
static int sph_parse_columns(const char *s, struct sph_options *o, char *err, size_t errlen)
{
	size_t count;
	const struct sph_column *all = sph_scene_columns(&count);
	char *copy = strdup(s), *save = NULL;
	if (!copy)
		return CLI_USAGE;
	int rc = CLI_OK;
	for (char *w = strtok_r(copy, ",", &save); w && rc == CLI_OK; w = strtok_r(NULL, ",", &save)) {
		bool group = strcmp(w, "all") == 0 || strcmp(w, "paper") == 0;
		struct sph_column one;
		if (!group && sph_scene_column_parse(w, &one, err, errlen) != 0) {
			rc = CLI_USAGE;
			break;
		}
		for (size_t i = 0; i < (group ? count : 1) && rc == CLI_OK; i++) {
			if (group && !(w[0] == 'a' || all[i].paper))
				continue;
			if (o->ncolumns == SPH_RUN_MAX_COLUMNS) {
				snprintf(err, errlen, "--column: at most %d columns", SPH_RUN_MAX_COLUMNS);
				rc = CLI_USAGE;
			} else {
				o->columns[o->ncolumns++] = group ? all[i] : one;
			}
		}
	}
	free(copy);
	return rc;
}

static const char *sph_run_variant_name(size_t i)
{
	return sph_variants[i].name;
}

static int sph_parse_variants(const char *s, struct sph_options *o, char *err, size_t errlen)
{
	char *copy = strdup(s), *save = NULL;
	if (!copy)
		return CLI_USAGE;
	int rc = CLI_OK;
	o->variant_given = true;
	for (char *w = strtok_r(copy, ",", &save); w && rc == CLI_OK; w = strtok_r(NULL, ",", &save)) {
		if (sph_variant_match(w, o->selected) == 0) {
			const int used = snprintf(err, errlen, "unknown SPH variant '%s' (known: ", w);
			cli_names_list(err, errlen, used > 0 ? (size_t)used : 0, sph_run_variant_name,
				       SPH_VARIANT_COUNT, "harness sph list",
				       "; globs such as 'sph-gpu-*' work; see 'harness sph list')",
				       "; globs such as 'sph-gpu-*' work)");
			rc = CLI_USAGE;
		}
	}
	free(copy);
	return rc;
}

static int sph_parse_format(const char *s, struct sph_options *o, char *err, size_t errlen);

/* --warm-steps LIST, or "flow" for SPH_FLOW_MOMENTS, into o->warm. */
static int sph_parse_moments(const char *s, struct sph_options *o, char *err, size_t errlen)
{
	o->warm_given = true;
	int rc = cli_parse_moments("--warm-steps", strcmp(s, "flow") == 0 ? SPH_FLOW_MOMENTS : s,
				   &o->warm, err, errlen);
	o->warm.arg = s;
	return rc;
}

enum { SPH_OPT_COLUMN = 300, SPH_OPT_SEED, SPH_OPT_WARM, SPH_OPT_MIN, SPH_OPT_MAX, SPH_OPT_NOISE,
       SPH_OPT_SUITE, SPH_OPT_OUT_DIR, SPH_OPT_AT, SPH_OPT_RENDER, SPH_OPT_WIDTH, SPH_OPT_HEIGHT,
       SPH_OPT_RES, SPH_OPT_SAMPLES, SPH_OPT_SHADING, SPH_OPT_MIN_SAMPLES, SPH_OPT_REPETITIONS,
       SPH_OPT_FILTER, SPH_OPT_GPU, SPH_OPT_FORMAT, SPH_OPT_WINDOW, SPH_OPT_STATES };

/* Whether SPH variant i is selected: by --variant (every one without it)
 * and by --filter. */
static bool sph_wants(const struct sph_options *o, size_t i)
{
	return (!o->variant_given || o->selected[i]) && (!o->filter_given || o->filtered[i]);
}

static int sph_parse(int argc, char **argv, struct sph_options *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "column", required_argument, NULL, SPH_OPT_COLUMN },
		{ "seed", required_argument, NULL, SPH_OPT_SEED },
		{ "warm-steps", required_argument, NULL, SPH_OPT_WARM },
		{ "window-steps", required_argument, NULL, SPH_OPT_WINDOW },
		{ "states", required_argument, NULL, SPH_OPT_STATES },
		{ "min-time", required_argument, NULL, SPH_OPT_MIN },
		{ "max-time", required_argument, NULL, SPH_OPT_MAX },
		{ "max-noise", required_argument, NULL, SPH_OPT_NOISE },
		{ "out", required_argument, NULL, 'o' },
		{ "suite", required_argument, NULL, SPH_OPT_SUITE },
		{ "out-dir", required_argument, NULL, SPH_OPT_OUT_DIR },
		{ "at", required_argument, NULL, SPH_OPT_AT },
		{ "render", no_argument, NULL, SPH_OPT_RENDER },
		{ "width", required_argument, NULL, SPH_OPT_WIDTH },
		{ "height", required_argument, NULL, SPH_OPT_HEIGHT },
		{ "res", required_argument, NULL, SPH_OPT_RES },
		{ "samples", required_argument, NULL, SPH_OPT_SAMPLES },
		{ "shading", required_argument, NULL, SPH_OPT_SHADING },
		{ "min-samples", required_argument, NULL, SPH_OPT_MIN_SAMPLES },
		{ "repetitions", required_argument, NULL, SPH_OPT_REPETITIONS },
		{ "filter", required_argument, NULL, SPH_OPT_FILTER },
		{ "gpu", required_argument, NULL, SPH_OPT_GPU },
		{ "format", required_argument, NULL, SPH_OPT_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->seed = 42;
	if (sph_parse_moments("flow", o, err, errlen) != CLI_OK)
		return CLI_USAGE;
	o->warm_given = false;
	o->ro.width = RENDER_RUN_WIDTH;
	o->ro.height = RENDER_RUN_HEIGHT;
	o->ro.res = RENDER_RUN_RES;
	o->gpu = -1;
	timing_opts_default(&o->timing);
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		o->help = true;
		return CLI_OK;
	}
	if (strcmp(argv[1], "list") == 0)
		o->cmd = SPH_LIST;
	else if (strcmp(argv[1], "check") == 0)
		o->cmd = SPH_CHECK;
	else if (strcmp(argv[1], "snapshot") == 0)
		o->cmd = SPH_SNAPSHOT;
	else if (strcmp(argv[1], "run") == 0)
		o->cmd = SPH_RUN;
	else {
		snprintf(err, errlen, "unknown command '%s' (allowed: list, check, run, snapshot, physics, render)", argv[1]);
		return CLI_USAGE;
	}
	char **av = argv + 1;
	int rc = CLI_OK, c;
	uint64_t seed;
	optind = 0;
	opterr = 0;
	while (rc == CLI_OK && (c = getopt_long(argc - 1, av, ":v:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': rc = sph_parse_variants(optarg, o, err, errlen); break;
		case SPH_OPT_COLUMN: rc = sph_parse_columns(optarg, o, err, errlen); break;
		case SPH_OPT_SEED:
			rc = cli_parse_u64("--seed", optarg, &seed, err, errlen);
			o->seed = seed;
			break;
		case SPH_OPT_WARM: rc = sph_parse_moments(optarg, o, err, errlen); break;
		case SPH_OPT_STATES: o->states_dir = optarg; break;
		case SPH_OPT_WINDOW:
			rc = cli_parse_int("--window-steps", optarg, 1, 100000, &o->window_steps, err,
					   errlen);
			break;
		case SPH_OPT_MIN: rc = cli_parse_timing("--min-time", optarg, &o->timing, err, errlen); break;
		case SPH_OPT_MAX: rc = cli_parse_timing("--max-time", optarg, &o->timing, err, errlen); break;
		case SPH_OPT_NOISE: rc = cli_parse_timing("--max-noise", optarg, &o->timing, err, errlen); break;
		case SPH_OPT_MIN_SAMPLES:
			rc = cli_parse_timing("--min-samples", optarg, &o->timing, err, errlen);
			break;
		case SPH_OPT_REPETITIONS:
			rc = cli_parse_timing("--repetitions", optarg, &o->timing, err, errlen);
			break;
		case SPH_OPT_FILTER:
			rc = cli_filter_names(optarg, sph_run_variant_name, SPH_VARIANT_COUNT, o->filtered,
					      "SPH variant", "harness sph list", err, errlen);
			o->filter_given = true;
			break;
		case SPH_OPT_GPU: rc = cli_parse_gpu(optarg, &o->gpu, err, errlen); break;
		case 'o': o->out = optarg; break;
		case SPH_OPT_SUITE:
			o->suite = optarg;
			if (!sph_suite_exists(optarg)) {
				snprintf(err, errlen, "unknown suite '%s' (sph-table, sph-large, sph-scale, sph-memory, sph-render-table or all)", optarg);
				rc = CLI_USAGE;
			}
			break;
		case SPH_OPT_OUT_DIR: o->out_dir = optarg; break;
		case SPH_OPT_AT:
			rc = cli_parse_steps("--at", optarg, 16, 1000000, o->at, &o->nat, err, errlen);
			break;
		case SPH_OPT_RENDER: o->render = true; break;
		case SPH_OPT_WIDTH:
			rc = cli_parse_int("--width", optarg, 1, RENDER_RUN_MAX_SIDE, &o->ro.width, err, errlen);
			break;
		case SPH_OPT_HEIGHT:
			rc = cli_parse_int("--height", optarg, 1, RENDER_RUN_MAX_SIDE, &o->ro.height, err, errlen);
			break;
		case SPH_OPT_RES:
			rc = cli_parse_int("--res", optarg, 2, RENDER_RUN_MAX_RES, &o->ro.res, err, errlen);
			break;
		case SPH_OPT_SAMPLES:
			rc = cli_parse_double("--samples", optarg, 1, RENDER_RUN_MAX_SAMPLES,
					      &o->ro.samples_per_unit, err, errlen);
			break;
		case SPH_OPT_SHADING:
			if ((o->ro.shading = render_shading_of(optarg)) < 0) {
				snprintf(err, errlen, "--shading '%s': phong or paper", optarg);
				rc = CLI_USAGE;
			}
			break;
		case SPH_OPT_FORMAT: rc = sph_parse_format(optarg, o, err, errlen); break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		default: rc = cli_getopt_error(c, av[optind - 1], "sph", err, errlen); break;
		}
	}
	if (rc == CLI_OK && optind < argc - 1) {
		snprintf(err, errlen, "unexpected argument '%s'", av[optind]);
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && o->suite && (o->cmd != SPH_RUN || o->variant_given || o->ncolumns || o->out)) {
		snprintf(err, errlen, "--suite sets variants and columns and writes to --out-dir: it takes no --variant, --column or --out (run only)");
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && o->out_dir && !o->suite) {
		snprintf(err, errlen, "--out-dir goes with --suite; use --out FILE.csv otherwise");
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && o->format_given && o->cmd != SPH_SNAPSHOT) {
		snprintf(err, errlen, "--format goes with snapshot");
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && o->render && o->cmd != SPH_RUN && o->cmd != SPH_CHECK) {
		snprintf(err, errlen, "--render goes with check or run");
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK)
		rc = cli_check_timing(&o->timing, err, errlen);
	if (rc == CLI_OK && o->ncolumns == 0)
		rc = sph_parse_columns("16128", o, err, errlen);
	if (rc == CLI_OK && o->cmd == SPH_SNAPSHOT) {
		size_t nsel = 0;
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
			nsel += sph_wants(o, i);
		if (nsel != 1 || o->ncolumns != 1 || o->nat == 0 || !o->out) {
			snprintf(err, errlen, "snapshot needs exactly one --variant, one --column, --at STEPS and --out FILE.csv (DIR with --format vtk)");
			rc = CLI_USAGE;
		}
	}
	return rc;
}

/* The variants, then the named columns that --column takes. */
static int sph_list(void)
{
	struct skips *unavailable = calloc(1, sizeof *unavailable);
	if (!unavailable)
		return cli_usage_error("sph", "out of memory");
	printf("%-22s %-16s %-4s %-10s %s\n", "variant", "method", "dev", "available", "summary");
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++) {
		const struct sph_variant *v = &sph_variants[i];
		const char *why;
		bool ok = sph_variant_available(v, &why);
		printf("%-22s %-16s %-4s %-10s %s\n", v->name, v->method, variant_device_name(v->device),
		       ok ? "yes" : "no", v->summary);
		if (!ok)
			skips_add(unavailable, v->name, why);
	}
	skips_say_each(stdout, unavailable, "unavailable");
	free(unavailable);
	size_t count;
	const struct sph_column *c = sph_scene_columns(&count);
	printf("\n%-14s %10s %12s %6s %s\n", "column", "particles", "NXxNYxNZ", "tank", "paper");
	for (size_t k = 0; k < count; k++) {
		char lattice[48];
		snprintf(lattice, sizeof lattice, "%dx%dx%d", c[k].nx, c[k].ny, c[k].nz);
		printf("%-14s %10zu %12s %6g %s\n", c[k].name,
		       sph_scene_particles(c[k].nx, c[k].ny, c[k].nz), lattice, c[k].tank,
		       c[k].paper ? "yes" : "");
	}
	printf("--column also takes 'paper' (the paper's columns), 'all' (every named one) and\n"
	       "NXxNYxNZ[@L] (L: the tank's length in column widths, %g; @0 a box that fits)\n",
	       SPH_SCENE_TANK);
	return CLI_OK;
}

/*
 * The timed window: every call starts a fresh context of the variant from
 * the state kept after the warm-up and validation (kept: its positions and
 * velocities, read back bit for bit, and the walls) and runs the same
 * window steps, so every sample does the same work whatever the flow's
 * own cost does over time. Starting the context is not timed; the window
 * is, by the variant's phase times. The positions and velocities each
 * window ends on are hashed and must be the first window's, bit for bit:
 * a window that ended elsewhere fails the row.
 */
struct sph_window {
	const struct sph_ops *ops;
	const struct sph_params *p;
	const struct sph_input *kept;
	int steps;               /* of a window */
	int drift;               /* the test hook's planted drift (testhook.h); 0 */
	void *ctx;               /* the last window's, NULL before the first */
	float *pos4, *vel4;      /* 4n each: the state a window ended on */
	bool hashed;
	uint64_t fnv1a64;        /* of the first window's end */
	unsigned long long clamps; /* in a window (the last one's) */
	struct sph_phase_times *ph;
	long long *ph_steps;
	char err[256];
};

/* The hash of what a window ended on: positions then velocities, as bytes. */
static uint64_t sph_window_hash(const float *pos4, const float *vel4, size_t n)
{
	uint64_t h[2] = { results_fnv1a64(pos4, 4 * n * sizeof *pos4),
			  results_fnv1a64(vel4, 4 * n * sizeof *vel4) };
	return results_fnv1a64(h, sizeof h);
}

/* One window from the kept state (sph_window). 0, or -1 with w->err. */
static int sph_window_one(struct sph_window *w, double *seconds)
{
	struct sph_phase_times ph = { 0 }, ignored = { 0 };
	struct sph_counts c;
	if (w->ctx && w->drift > 0) {
		/* the planted fault (testhook.h): the flow goes on */
		if (w->ops->steps(w->ctx, w->drift, &ignored) != 0) {
			snprintf(w->err, sizeof w->err, "%s", w->ops->error(w->ctx));
			return -1;
		}
	} else {
		if (w->ctx)
			w->ops->destroy(w->ctx);
		w->ctx = NULL;
		if (w->ops->create(&w->ctx, w->kept, w->p, w->err, sizeof w->err) != 0)
			return -1;
	}
	if (w->ops->steps(w->ctx, w->steps, &ph) != 0 ||
	    w->ops->read(w->ctx, w->pos4, w->vel4, NULL, NULL) != 0) {
		snprintf(w->err, sizeof w->err, "%s", w->ops->error(w->ctx));
		return -1;
	}
	const uint64_t h = sph_window_hash(w->pos4, w->vel4, w->kept->n);
	if (w->hashed && h != w->fnv1a64) {
		snprintf(w->err, sizeof w->err,
			 "a window of %d steps from the kept state ended on other positions or "
			 "velocities than the first one (fnv1a64 %016llx, not %016llx): the samples "
			 "would not time the same work",
			 w->steps, (unsigned long long)h, (unsigned long long)w->fnv1a64);
		return -1;
	}
	w->hashed = true;
	w->fnv1a64 = h;
	w->ops->counts(w->ctx, &c);
	w->clamps = c.clamps;
	*seconds += ph.build_s + ph.density_s + ph.force_s + ph.integrate_s;
	w->ph->build_s += ph.build_s;
	w->ph->density_s += ph.density_s;
	w->ph->force_s += ph.force_s;
	w->ph->integrate_s += ph.integrate_s;
	*w->ph_steps += w->steps;
	return 0;
}

/* timing_fn: reps windows; a call's seconds are its windows' phase times
 * (CUDA events on a GPU, the wall clock on the CPU). */
static int sph_window_calls(void *arg, int reps, double *seconds)
{
	*seconds = 0;
	for (int r = 0; r < reps; r++)
		if (sph_window_one(arg, seconds) != 0)
			return -1;
	return 0;
}

/* The steps of v's timed window: --window-steps, else its registry
 * line's, else its device's. */
static int sph_window_steps(const struct sph_options *o, const struct sph_variant *v)
{
	return o->window_steps   ? o->window_steps
	       : v->window_steps ? v->window_steps
	       : v->device == VARIANT_GPU ? SPH_RUN_WINDOW_GPU : SPH_RUN_WINDOW_CPU;
}

/* The rendering pipeline on row's variant (render_run.h): what = its
 * validation (after the physics validation), with its timing or not.
 * 0, or -1 with one line (the row has failed). */
static int sph_render_step(const struct sph_options *o, struct sph_row *row,
			   const struct sph_params *p, void *ctx, int what)
{
	char err[256];
	struct render_run_opts ro = o->ro;
	ro.slowdown = testhook_slowdown(row->v->name);
	if (render_run(row->v->ops, ctx, row->v->device == VARIANT_GPU, p, row->n, &ro, what,
		       &row->r, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: rendering %s on %s failed: %s\n", row->v->name,
			row->col.name, err);
		return -1;
	}
	if (!row->r.valid) {
		fprintf(stderr,
			"harness: sph: %s on %s FAILED rendering validation: surface %zu mismatches (%zu borderline), field %.2f of its bound (%zu max mismatches, %zu non-finite), image PSNR %.1f dB (min %.0f), against converged %.1f dB (min %.0f) and holes %.2f %% (max %.0f %%)\n",
			row->v->name, row->col.name, row->r.surface.mismatches,
			row->r.surface.borderline, row->r.field.worst_ratio,
			row->r.field.max_mismatches, row->r.field.nonfinite, row->r.image.psnr_db,
			RENDER_VALIDATE_PSNR_DB, row->r.converge.psnr_db, RENDER_CONVERGE_PSNR_DB,
			100.0 * row->r.converge.holes.share, 100.0 * RENDER_CONVERGE_HOLES);
		return -1;
	}
	return 0;
}

/* The registry's test hook (sph_variant_planted_drop_wall): a copy of the
 * scene's nb boundary particles less the one nearest fluid particle 0,
 * nb - 1 of them. Returns the copy (caller frees), or NULL when out of
 * memory. */
static float *sph_plant_drop_wall(const struct sph_scene *sc)
{
	float *copy = malloc((sc->nb ? 4 * sc->nb : 1) * sizeof(float));
	size_t near = 0;
	double best = HUGE_VAL;
	if (!copy)
		return NULL;
	for (size_t b = 0; b < sc->nb; b++) {
		double d2 = 0;
		for (int c = 0; c < 3; c++)
			d2 += ((double)sc->bnd4[4 * b + c] - sc->pos4[c]) *
			      ((double)sc->bnd4[4 * b + c] - sc->pos4[c]);
		if (d2 < best)
			best = d2, near = b;
	}
	memcpy(copy, sc->bnd4, 4 * near * sizeof(float));
	if (sc->nb > near + 1)
		memcpy(copy + 4 * near, sc->bnd4 + 4 * (near + 1),
		       4 * (sc->nb - near - 1) * sizeof(float));
	return copy;
}

/* Seconds one particle's step takes, roughly: the scale of the predicted
 * costs (the progress estimate corrects it by what the rows took). */
#define SPH_RUN_CPU_STEP 1e-6
#define SPH_RUN_GPU_STEP 5e-9

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

/* Predicted seconds of the row of v on col, by stage: the scene (first:
 * the column's first row, which builds it), reading the flow's state and
 * one evaluation (the states themselves: sph_states_cost), the double
 * reference, and for run the timing (repetitions_predict), and
 * --max-time twice again for the rendering's validation and timing. */
static struct sph_cost sph_row_costs(const struct sph_options *o, const struct sph_variant *v,
				     const struct sph_column *col, bool first)
{
	double n = (double)sph_scene_particles(col->nx, col->ny, col->nz);
	double step = n * (v->device == VARIANT_GPU ? SPH_RUN_GPU_STEP : SPH_RUN_CPU_STEP);
	struct sph_cost c = { { 0 } };
	c.stage[SPH_STAGE_SETUP] = 0.01 + (first ? n * SPH_RUN_CPU_STEP : 0);
	c.stage[SPH_STAGE_WARM] = step + n * SPH_RUN_CPU_STEP / 8;
	c.stage[SPH_STAGE_REFERENCE] = 2 * n * SPH_RUN_CPU_STEP;
	if (o->cmd == SPH_RUN) {
		double limit = o->timing.max_time > o->timing.min_time ? o->timing.max_time
								       : o->timing.min_time;
		/* a call: a window, and a context started from the kept state */
		c.stage[SPH_STAGE_TIMING] =
			repetitions_predict(&o->timing, sph_window_steps(o, v) * step +
							       n * SPH_RUN_CPU_STEP / 8);
		if (o->render)
			c.stage[SPH_STAGE_RENDER] = 2 * limit;
	}
	return c;
}

/* The predicted seconds of the stages before stage upto and of it. */
static double sph_cost_upto(const struct sph_cost *c, enum sph_stage upto)
{
	double s = 0;
	for (int k = 0; k <= (int)upto; k++)
		s += c->stage[k];
	return s;
}

static double sph_cost_total(const struct sph_cost *c)
{
	return sph_cost_upto(c, SPH_STAGES - 1);
}

/* Predicted seconds of the row of v on col (sph_row_costs, added up). */
static double sph_row_cost(const struct sph_options *o, const struct sph_variant *v,
			   const struct sph_column *col, bool first)
{
	struct sph_cost c = sph_row_costs(o, v, col, first);
	return sph_cost_total(&c);
}

/* On pg: stage done of a row with predicted stages c, so the part of it
 * done is the stages up to that one. */
static void sph_row_part(struct progress *pg, const struct sph_cost *c, enum sph_stage done)
{
	double total = sph_cost_total(c);
	if (total > 0)
		progress_part(pg, sph_cost_upto(c, done) / total);
}

/* Whether the variant holds the state it was created from: its positions
 * and velocities read back (x, y, z; the fourth float is the variant's)
 * are the state's, bit for bit. */
static bool sph_holds_state(const float *pos4, const float *vel4, const float *sp4,
			    const float *sv4, size_t n)
{
	for (size_t i = 0; i < 4 * n; i++)
		if (i % 4 != 3 && (memcmp(&pos4[i], &sp4[i], sizeof *pos4) != 0 ||
				   memcmp(&vel4[i], &sv4[i], sizeof *vel4) != 0))
			return false;
	return true;
}

/* The state of the flow at the row's moment (fs), validation of the
 * variant started from it, then (run) timing, each stage reported on pg
 * as a part of the row's predicted cost c. Returns CLI_OK, or CLI_FAILED
 * when the variant failed or is invalid. */
static int sph_measure(const struct sph_options *o, const struct sph_scene *sc,
		       const struct sph_flow_states *fs, struct sph_row *row,
		       const struct sph_cost *c, struct progress *pg)
{
	const struct sph_params *p = &sc->p;
	const struct sph_ops *ops = row->v->ops;
	size_t n = row->n;
	char err[512];
	void *ctx = NULL;
	int status = CLI_FAILED;
	const size_t n4 = 4 * (n ? n : 1) * sizeof(float);
	float *sp = malloc(n4), *sv = malloc(n4); /* the state */
	float *rp = malloc(n4), *rv = malloc(n4), *ra = malloc(n4);
	float *rr = malloc((n ? n : 1) * sizeof(float));
	const bool planted = sph_variant_planted_drop_wall(row->v) && sc->nb > 0;
	float *walls = planted ? sph_plant_drop_wall(sc) : NULL;
	struct sph_state_meta sm;
	if (!sp || !sv || !rp || !rv || !rr || !ra || (planted && !walls)) {
		fprintf(stderr, "harness: sph: out of memory for %zu particles\n", n);
		goto out_free;
	}
	if (sph_flow_load(fs, (unsigned long)row->warm_steps, sp, sv, &sm, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s on %s: %s\n", row->v->name, row->col.name, err);
		goto out_free;
	}
	row->state_fnv1a64 = sm.payload_fnv;
	row->state_by = fs->producer->name;
	row->state_clamps = sm.clamps;
	row->state_reused = fs->reused;
	const struct sph_input in = { n, sp, sv, planted ? sc->nb - 1 : sc->nb,
				      planted ? walls : sc->bnd4 };
	if (ops->create(&ctx, &in, p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s on %s: %s\n", row->v->name, row->col.name, err);
		goto out_free;
	}
	sph_row_part(pg, c, SPH_STAGE_SETUP);
	if (ops->evaluate(ctx, 1) != 0 || ops->read(ctx, rp, rv, rr, ra) != 0) {
		fprintf(stderr, "harness: sph: %s on %s failed: %s\n", row->v->name, row->col.name,
			ops->error(ctx));
		goto out_destroy;
	}
	if (!sph_holds_state(rp, rv, sp, sv, n)) {
		fprintf(stderr, "harness: sph: %s on %s FAILED: created from the flow's state at "
			"step %d, it reads back other positions or velocities\n", row->v->name,
			row->col.name, row->warm_steps);
		goto out_destroy;
	}
	sph_row_part(pg, c, SPH_STAGE_WARM);
	ops->counts(ctx, &row->counts);
	if (sph_validate(p, rp, rv, rr, ra, n, sc->bnd4, sc->nb, &row->counts, &row->val) != 0) {
		fprintf(stderr, "harness: sph: the reference could not evaluate %s's state\n", row->v->name);
		goto out_destroy;
	}
	sph_row_part(pg, c, SPH_STAGE_REFERENCE);
	if (!row->val.pass) {
		fprintf(stderr,
			"harness: sph: %s on %s FAILED validation: rho_err %.3e (tol %.0e) at %zu, acc_err %.3e (tol %.0e) at %zu, pairs %llu vs %llu (+-%llu near h)%s\n",
			row->v->name, row->col.name, row->val.rho_err, SPH_VALIDATE_RHO_TOL,
			row->val.worst_rho, row->val.acc_err, SPH_VALIDATE_ACC_TOL, row->val.worst_acc,
			row->val.var_pairs, row->val.ref_pairs, row->val.near_h,
			row->val.overflow ? ", a bucket overflowed" : "");
		goto out_destroy;
	}
	/* the rendering pipeline validated on the same state as the physics,
	 * and timed from it: every variant's frames are the same stretch of
	 * flow (render_run.h) */
	if (o->render &&
	    sph_render_step(o, row, p, ctx,
			    RENDER_RUN_VALIDATE | (o->cmd == SPH_RUN ? RENDER_RUN_TIME : 0)) != 0)
		goto out_destroy;
	if (o->render)
		sph_row_part(pg, c, SPH_STAGE_RENDER);
	status = CLI_OK;
	struct sph_counts after;
	ops->counts(ctx, &after);
	/* the flow's clamps up to the moment, then the variant's own */
	row->clamps = sm.clamps + after.clamps;
	/* its memory back before the windows' contexts take theirs */
	ops->destroy(ctx);
	ctx = NULL;
	if (o->cmd == SPH_RUN) {
		/* the kept state: the flow's, which was validated, not what
		 * the rendering's frames moved ctx to */
		const struct sph_input kept = { n, sp, sv, in.nb, in.bnd4 };
		struct sph_window w = { .ops = ops, .p = p, .kept = &kept,
					.steps = row->window_steps, .pos4 = rp, .vel4 = rv,
					.drift = testhook_drift(row->v->name),
					.ph = &row->ph, .ph_steps = &row->ph_steps };
		struct timing_opts topt = o->timing;
		topt.slowdown = testhook_slowdown(row->v->name);
		topt.test_work = testhook_work(row->v->name);
		if (repetitions_measure(sph_window_calls, &w, &topt, &row->t) != 0) {
			fprintf(stderr, "harness: sph: timing %s on %s failed: %s\n", row->v->name,
				row->col.name, w.err);
			status = CLI_FAILED;
		} else {
			/* a sample's figure is seconds per step */
			timing_result_per(&row->t, row->window_steps);
		}
		if (w.ctx)
			ops->destroy(w.ctx);
		row->timed = status == CLI_OK;
		row->window_fnv1a64 = w.fnv1a64;
		row->clamps += w.clamps;
	}
out_destroy:
	if (ctx)
		ops->destroy(ctx);
out_free:
	free(walls);
	free(sp);
	free(sv);
	free(rp);
	free(rv);
	free(rr);
	free(ra);
	return status;
}

static const char *const sph_columns_csv[] = {
	"variant", "method", "device", "device_name", "column", "n", "boundary_particles", "seed",
	"warm_steps", "window_steps", "window_fnv1a64", "flow_to_steps", "state_fnv1a64", "clamps",
	"valid", "rho_max_rel_err", "acc_max_rel_rms_err", "tol_rho", "tol_acc",
	"neighbour_pairs", "reference_pairs", "near_h_pairs", "candidate_pairs",
	"candidates_per_neighbour", "aux_bytes", "aux_bytes_per_particle", "samples",
	"time_min_step_s", "time_median_step_s", "time_max_step_s", "noise_pct", "noise_met",
	"steps_per_s", "build_ms", "density_ms", "force_ms", "integrate_ms",
};
#define SPH_NCOLS (sizeof sph_columns_csv / sizeof sph_columns_csv[0])

/* With --render, after those: the rendering pipeline's row. The fps are
 * the paper's (Tables 1 and 2): physics = steps_per_s; extraction =
 * 1 / extraction; rendering = 1 / (field + raycast); overall = 1 / (one
 * step + extraction + field + raycast). */
static const char *const sph_render_columns_csv[] = {
	"render_valid", "shading", "surface_particles", "surface_mismatches", "surface_borderline",
	"field_max_ulps", "field_worst_bound_ratio", "image_check_px", "image_psnr_db",
	"image_max_diff", "converged_res", "converged_samples_per_unit", "converged_psnr_db",
	"converged_holes_pct", "width", "height", "field_res", "voxels", "voxels_set", "frames",
	"frame_noise_pct", "extraction_ms", "field_ms", "raycast_ms", "physics_fps",
	"extraction_fps", "rendering_fps", "overall_fps",
};
#define SPH_RENDER_NCOLS (sizeof sph_render_columns_csv / sizeof sph_render_columns_csv[0])

/* A row's build, density, force and integrate ms a step: its windows'
 * (or its flow's) phase times. */
static void sph_row_phase_ms(const struct sph_row *row, double ms[4])
{
	const double per = row->ph_steps > 0 ? 1e3 / (double)row->ph_steps : NAN;
	const double s[4] = { row->ph.build_s, row->ph.density_s, row->ph.force_s,
			      row->ph.integrate_s };
	for (int k = 0; k < 4; k++)
		ms[k] = row->flow_to ? row->flow_phase_ms[k] : s[k] * per;
}

static void sph_num(char *cell, double v)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, "%.6g", v);
}

static void sph_format(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct sph_row *row = &((const struct sph_row *)ctx)[r];
	size_t i = 0;
	double ms[4];
	sph_row_phase_ms(row, ms);
	snprintf(c[i++], 64, "%s", row->v->name);
	snprintf(c[i++], 64, "%s", row->v->method);
	snprintf(c[i++], 64, "%s", variant_device_name(row->v->device));
	snprintf(c[i++], 64, "%s", row->device_name);
	snprintf(c[i++], 64, "%s", row->col.name);
	snprintf(c[i++], 64, "%zu", row->n);
	snprintf(c[i++], 64, "%zu", row->nb);
	snprintf(c[i++], 64, "%llu", (unsigned long long)row->seed);
	snprintf(c[i++], 64, "%d", row->warm_steps);
	if (row->timed)
		snprintf(c[i++], 64, "%d", row->window_steps);
	else
		c[i++][0] = '\0';
	if (row->timed && !row->flow_to)
		snprintf(c[i++], 64, "%016llx", (unsigned long long)row->window_fnv1a64);
	else
		c[i++][0] = '\0';
	if (row->flow_to)
		snprintf(c[i++], 64, "%lu", row->flow_to);
	else
		c[i++][0] = '\0';
	if (!row->flow_to)
		snprintf(c[i++], 64, "%016llx", (unsigned long long)row->state_fnv1a64);
	else
		c[i++][0] = '\0';
	snprintf(c[i++], 64, "%llu", row->clamps);
	snprintf(c[i++], 64, "%d", row->val.pass ? 1 : 0);
	snprintf(c[i++], 64, "%.3e", row->val.rho_err);
	snprintf(c[i++], 64, "%.3e", row->val.acc_err);
	snprintf(c[i++], 64, "%.0e", SPH_VALIDATE_RHO_TOL);
	snprintf(c[i++], 64, "%.0e", SPH_VALIDATE_ACC_TOL);
	if (row->flow_to) {
		/* pairs are of one state: its moments' rows hold them */
		for (int k = 0; k < 5; k++)
			c[i++][0] = '\0';
	} else {
		snprintf(c[i++], 64, "%llu", row->counts.neighbours);
		snprintf(c[i++], 64, "%llu", row->val.ref_pairs);
		snprintf(c[i++], 64, "%llu", row->val.near_h);
		snprintf(c[i++], 64, "%llu", row->counts.candidates);
		sph_num(c[i++], row->counts.neighbours ? (double)row->counts.candidates /
							      (double)row->counts.neighbours : NAN);
	}
	snprintf(c[i++], 64, "%zu", row->counts.aux_bytes);
	sph_num(c[i++], (double)row->counts.aux_bytes / (double)row->n);
	if (!row->timed) {
		while (i < SPH_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	snprintf(c[i++], 64, "%zu", row->t.count);
	sph_num(c[i++], row->t.s.min);
	sph_num(c[i++], row->t.s.median);
	sph_num(c[i++], row->t.s.max);
	sph_num(c[i++], 100.0 * row->t.s.rel_stddev);
	snprintf(c[i++], 64, "%d", row->t.noise_met ? 1 : 0);
	sph_num(c[i++], 1.0 / row->t.s.median);
	for (int k = 0; k < 4; k++)
		sph_num(c[i++], ms[k]);
}

static void sph_format_render(const struct sph_row *row, char (*c)[RESULTS_CELL])
{
	const struct render_run_result *r = &row->r;
	size_t i = 0;
	snprintf(c[i++], 64, "%d", r->done && r->valid ? 1 : 0);
	if (!r->done) {
		while (i < SPH_RENDER_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	snprintf(c[i++], 64, "%s", render_shading_name(r->shading));
	if (row->flow_to) {
		/* the checks are of one state each: its moments' rows hold them */
		while (i < 14)
			c[i++][0] = '\0';
		snprintf(c[i++], 64, "%d", r->width);
		snprintf(c[i++], 64, "%d", r->height);
		snprintf(c[i++], 64, "%d", r->res);
		c[i++][0] = '\0';
		c[i++][0] = '\0';
		goto timed;
	}
	snprintf(c[i++], 64, "%zu", r->surface_count);
	snprintf(c[i++], 64, "%zu", r->surface.mismatches);
	snprintf(c[i++], 64, "%zu", r->surface.borderline);
	snprintf(c[i++], 64, "%llu", r->field.max_ulps);
	sph_num(c[i++], r->field.worst_ratio);
	snprintf(c[i++], 64, "%dx%d", RENDER_RUN_CHECK_W, RENDER_RUN_CHECK_H);
	sph_num(c[i++], isinf(r->image.psnr_db) ? 999.0 : r->image.psnr_db);
	sph_num(c[i++], r->image.max_diff);
	snprintf(c[i++], 64, "%d", r->converge_res);
	sph_num(c[i++], r->converge_samples);
	sph_num(c[i++], isinf(r->converge.psnr_db) ? 999.0 : r->converge.psnr_db);
	sph_num(c[i++], 100.0 * r->converge.holes.share);
	snprintf(c[i++], 64, "%d", r->width);
	snprintf(c[i++], 64, "%d", r->height);
	snprintf(c[i++], 64, "%d", r->res);
	snprintf(c[i++], 64, "%zu", r->voxels);
	snprintf(c[i++], 64, "%zu", r->voxels_set);
timed:
	if (!r->timed || !row->timed) {
		while (i < SPH_RENDER_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	const struct render_fps f = render_run_fps(r, row->t.s.median);
	snprintf(c[i++], 64, "%zu", r->frames);
	sph_num(c[i++], r->frame_noise_pct);
	sph_num(c[i++], 1e3 * r->extraction_s);
	sph_num(c[i++], 1e3 * r->field_s);
	sph_num(c[i++], 1e3 * r->raycast_s);
	sph_num(c[i++], f.physics);
	sph_num(c[i++], f.extraction);
	sph_num(c[i++], f.rendering);
	sph_num(c[i++], f.overall);
}

struct sph_table_ctx {
	const struct sph_row *rows;
	size_t nrows;
	bool render;
	double samples_per_unit;	/* of the rendering rows (0: derived per column,
					 * reference/render_ref.h) */
};

static void sph_format_table(const void *ctx, size_t r, char (*cells)[RESULTS_CELL])
{
	const struct sph_table_ctx *t = ctx;
	sph_format(t->rows, r, cells);
	if (t->render)
		sph_format_render(&t->rows[r], cells + SPH_NCOLS);
}

static void sph_json(struct json_out *j, const void *ctx)
{
	const struct sph_table_ctx *t = ctx;
	json_key(j, "validation");
	json_begin_object(j);
	json_kv_string(j, "rho_max_rel_err", "max_i |rho_i - rho_ref_i| / rho0, every particle");
	json_kv_string(j, "acc_max_rel_rms_err", "max_i |a_i - a_ref_i| / rms_i |a_ref_i|, every particle");
	json_kv_string(j, "pairs", "variant pair count = reference's, +- pairs with |r^2/h^2 - 1| < 1e-4");
	json_kv_string(j, "positions", "the flow's state at warm_steps (moments, below), from which the variant was created");
	json_end_object(j);
	json_kv_string(j, "physics", "reference/sph_ref.h: Mueller 2003, clamped pressure, walls of boundary particles (Akinci 2012) with a last-resort reflective clamp, symplectic Euler");
	json_kv_string(j, "pairs_counted", "fluid-fluid and fluid-boundary, i != j, in the density pass");
	json_kv_string(j, "clamps", "coordinates the last-resort clamp put back on a wall: the flow's up to warm_steps (its states' maker), the variant's own from its state (and the rendering's frames), plus one timed window's (every window is the same steps); a flow row: its moments' largest");
	json_kv_string(j, "window", "every timed call starts a fresh context from the positions and velocities validated after warm_steps and runs the same window_steps steps (the context's start untimed); every window must end on the same positions and velocities, bit for bit (window_fnv1a64: FNV-1a 64 over the fluid's positions then velocities as floats, in the original order, hashed again with each other); a sample's seconds_per_call are seconds per step, its windows' seconds over their steps");
	if (t->render) {
		json_key(j, "rendering");
		json_begin_object(j);
		json_kv_string(j, "pipeline", "Goswami et al. 2010 section 4 (reference/render_ref.h): surface particles by the variant's own neighbour search, compacted with CUB select; distance field rasterised on the GPU; one thread per pixel raycast (kernels/render/render_gpu.h)");
		json_kv_string(j, "validated", "surface flags vs render_ref_surface on the variant's positions (borderline particles within float rounding of a threshold excused and counted); field vs render_ref_field of the same surface particles, every voxel; image vs render_ref_raycast at image_check_px, PSNR >= 40 dB; converged: the same image against the GPU raycast of the same particles at converged_res and converged_samples_per_unit (twice the derived field resolution within 2^31 voxels and 40 % of the GPU's memory, four times its samples), PSNR >= 30 dB and holes (silhouette pixels of the converged image where the image's opacity is below half of it) <= 1 %");
		json_kv_string(j, "fps", "physics = steps_per_s; extraction = 1 / extraction_ms; rendering = 1 / (field_ms + raycast_ms); overall = 1 / (one step + extraction + field + raycast), as the paper's Tables 1 and 2");
		char timing[320];
		snprintf(timing, sizeof timing, "medians over the same %d frames for every variant (render_run.h: from the validated state after warm_steps, before the physics timing), each one step, extraction, field, raycast, CUDA events per stage; extraction includes the neighbour structure's build on the frame's positions", RENDER_RUN_FRAMES);
		json_kv_string(j, "timing", timing);
		json_kv_string(j, "camera", "render_camera_default: the whole box from the front, 20 degrees above, 40 degree vertical field of view; 1280 x 720 by default (the paper does not state its resolution)");
		json_kv_double(j, "samples_per_unit", t->samples_per_unit);
		json_end_object(j);
	}
	json_kv_string(j, "moments", "each row's state is that of the flow at warm_steps, made once per column by the variant the states list names (the fastest that ran there: sph-gpu-verlet, else sph-cpu-grid) and read by every variant: all rows of a column time the same water (state_fnv1a64: the payload hash of sph-state/1, harness/sph/sph_state.h)");
	json_kv_string(j, "flow", "a row with flow_to_steps is the whole flow from warm_steps to flow_to_steps: its seconds per step T / (flow_to_steps - warm_steps) with T = sum w_i t_i over its moments' rows (t_i their median seconds per step, w_i the steps each stands for by the trapezoid rule), so steps_per_s is the rate of that stretch of a run; min and max alike; its noise sqrt(sum (w_i t_i noise_i)^2) / T; its phases the same weighted mean; samples the moments' together; valid when all are, its errors their largest (harness/sph/sph_flow.h)");
	json_key(j, "states");
	json_begin_array(j);
	for (size_t r = 0; r < t->nrows; r++) {
		const struct sph_row *row = &t->rows[r];
		bool seen = row->flow_to || !row->state_by;
		for (size_t q = 0; q < r && !seen; q++)
			seen = !t->rows[q].flow_to && t->rows[q].state_by &&
			       strcmp(t->rows[q].col.name, row->col.name) == 0 &&
			       t->rows[q].warm_steps == row->warm_steps;
		if (seen)
			continue;
		char fnv[24];
		snprintf(fnv, sizeof fnv, "%016llx", (unsigned long long)row->state_fnv1a64);
		json_begin_object(j);
		json_kv_string(j, "column", row->col.name);
		json_kv_int(j, "step", row->warm_steps);
		json_kv_double(j, "time_s", row->warm_steps * row->dt);
		json_kv_string(j, "by", row->state_by);
		json_kv_string(j, "fnv1a64", fnv);
		json_kv_int(j, "clamps", (long long)row->state_clamps);
		json_kv_bool(j, "reused", row->state_reused);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "samples");
	json_begin_array(j);
	for (size_t r = 0; r < t->nrows; r++)
		results_json_samples(j, t->rows[r].v->name, t->rows[r].n, &t->rows[r].t,
				     t->rows[r].timed && !t->rows[r].flow_to);
	json_end_array(j);
}

/* Under a table with a row whose clamps are not 0. */
static void sph_print_clamp_note(const struct sph_row *rows, size_t nrows)
{
	for (size_t r = 0; r < nrows; r++)
		if (rows[r].clamps) {
			printf("clamps: coordinates the last-resort clamp put back onto a wall; a row "
			       "with any (!) is of water that left the walls\n");
			return;
		}
}

static void sph_print(const struct sph_row *rows, size_t nrows)
{
	size_t reps = 0; /* the repetitions a row had (--repetitions), 0 when none */
	bool moments = false; /* rows after different warm-ups: the column says which */
	for (size_t r = 0; r < nrows && !reps; r++)
		reps = rows[r].timed && rows[r].t.nreps > 1 ? rows[r].t.nreps : 0;
	for (size_t r = 1; r < nrows; r++)
		moments = moments || rows[r].warm_steps != rows[0].warm_steps || rows[r].flow_to;
	printf("%-20s %8s", "variant", "N");
	if (moments)
		printf(" %7s", "after");
	printf(" %-5s %9s %9s %9s %9s", "valid", "rho_err", "acc_err", "ms/step", "steps/s");
	if (reps)
		printf(" %10s", "reps range");
	printf(" %8s %8s %8s %8s %7s %7s\n", "build", "density", "force", "integr", "aux B/p",
	       "clamps");
	for (size_t r = 0; r < nrows; r++) {
		const struct sph_row *row = &rows[r];
		double ms[4];
		sph_row_phase_ms(row, ms);
		printf("%-20s %8zu", row->v->name, row->n);
		if (moments && row->flow_to)
			printf(" %7s", "flow");
		else if (moments)
			printf(" %7d", row->warm_steps);
		printf(" %-5s %9.2e %9.2e", row->val.pass ? "ok" : "FAIL", row->val.rho_err,
		       row->val.acc_err);
		char range[32];
		repetitions_cell(range, sizeof range, &row->t);
		if (row->timed)
			printf(" %9.3f %9.1f", 1e3 * row->t.s.median, 1.0 / row->t.s.median);
		else
			printf(" %9s %9s", "-", "-");
		if (reps)
			printf(" %10s", range);
		if (row->timed)
			printf(" %8.3f %8.3f %8.3f %8.3f", ms[0], ms[1], ms[2], ms[3]);
		else
			printf(" %8s %8s %8s %8s", "-", "-", "-", "-");
		printf(" %7.1f %6llu%s\n", (double)row->counts.aux_bytes / (double)row->n, row->clamps,
		       row->clamps ? "!" : " ");
	}
	sph_print_clamp_note(rows, nrows);
	for (size_t r = 0; r < nrows; r++)
		if (rows[r].flow_to) {
			printf("flow: the rate of the whole flow from the first moment to the last, "
			       "each moment weighing the steps it stands for\n");
			break;
		}
	if (reps)
		repetitions_note(stdout, reps);
}

static void sph_print_render(const struct sph_row *rows, size_t nrows)
{
	printf("%-20s %8s %-5s %8s %7s %9s %8s %8s %8s %8s %8s %8s %8s\n", "variant", "N", "valid",
	       "surface", "psnr", "field/bd", "extr ms", "field", "raycast", "phys fps", "extr fps",
	       "rend fps", "overall");
	for (size_t r = 0; r < nrows; r++) {
		const struct render_run_result *x = &rows[r].r;
		if (!x->done)
			continue;
		printf("%-20s %8zu %-5s %8zu %7.1f %9.3f", rows[r].v->name, rows[r].n,
		       !x->valid ? "FAIL" : rows[r].clamps ? "ok!" : "ok", x->surface_count,
		       x->image.psnr_db, x->field.worst_ratio);
		if (x->timed && rows[r].timed) {
			const struct render_fps f = render_run_fps(x, rows[r].t.s.median);
			printf(" %8.3f %8.3f %8.3f %8.0f %8.0f %8.0f %8.0f\n", 1e3 * x->extraction_s,
			       1e3 * x->field_s, 1e3 * x->raycast_s, f.physics, f.extraction,
			       f.rendering, f.overall);
		} else {
			printf("\n");
		}
	}
}

/* The one line that names what a run or suite skipped (unless quiet). */
static void sph_say_skipped(const struct sph_options *o, const char *suite,
			    const struct skips *skipped)
{
	char prefix[160];
	snprintf(prefix, sizeof prefix, "harness: sph: %s%s%s", suite ? "suite " : "",
		 suite ? suite : "", suite ? ": " : "");
	if (!o->quiet)
		skips_say(stderr, skipped, prefix);
}

/* The steps of --warm-steps' moments on column col (seconds of flow in
 * its time step). 0, or -1 with one line in err. */
static int sph_warm_steps(const struct sph_options *o, const struct sph_column *col,
			  unsigned long warm[CLI_MAX_MOMENTS], char *err, size_t errlen)
{
	struct sph_params p;
	sph_scene_box(col, &p);
	return cli_moments_steps("--warm-steps", &o->warm, p.dt, SPH_RUN_MAX_WARM, false, warm, err,
				 errlen);
}

/* A row's label, in the plan, the progress, the sidecar and compare's
 * list of rows never run: "sph-gpu-verlet on 255600 at step 20", or
 * for the row of the whole flow "sph-gpu-verlet on 255600 over steps 20
 * to 8929". */
static void sph_row_label(const char *variant, const char *column, unsigned long warm,
			  unsigned long flow_to, char *out, size_t len)
{
	if (flow_to)
		snprintf(out, len, "%s on %s over steps %lu to %lu", variant, column, warm, flow_to);
	else
		snprintf(out, len, "%s on %s at step %lu", variant, column, warm);
}

/* The first and last of the moments warm (o->warm.n of them) when they
 * make a row of the whole flow: a timed run of two or more distinct
 * moments. Else false. */
static bool sph_flow_planned(const struct sph_options *o, const unsigned long *warm,
			     unsigned long *lo, unsigned long *hi)
{
	if (o->cmd != SPH_RUN || o->warm.n < 2)
		return false;
	*lo = *hi = warm[0];
	for (size_t m = 0; m < o->warm.n; m++) {
		for (size_t q = 0; q < m; q++)
			if (warm[q] == warm[m])
				return false;
		*lo = warm[m] < *lo ? warm[m] : *lo;
		*hi = warm[m] > *hi ? warm[m] : *hi;
	}
	return true;
}

/* The last of the moments warm (o->warm.n of them). */
static unsigned long sph_last_moment(const struct sph_options *o, const unsigned long *warm)
{
	unsigned long last = 0;
	for (size_t m = 0; m < o->warm.n; m++)
		last = warm[m] > last ? warm[m] : last;
	return last;
}

/* The progress class of making the flow's states (after the variants'). */
#define SPH_RUN_STATES_CLASS ((int)SPH_VARIANT_COUNT)

/* Predicted seconds of making col's states to step last. */
static double sph_states_cost(const struct sph_column *col, unsigned long last)
{
	const struct sph_variant *v = sph_flow_producer();
	const double n = (double)sph_scene_particles(col->nx, col->ny, col->nz);
	return 0.01 + (double)last * n *
			      (v && v->device == VARIANT_GPU ? SPH_RUN_GPU_STEP : SPH_RUN_CPU_STEP);
}

/* The variants of o that run here, on every column, planned on pg and
 * by label on keep (either may be NULL): each column's states, then its
 * rows, a row of the whole flow after each variant's moments. */
static void sph_plan(const struct sph_options *o, struct progress *pg, struct keep *keep)
{
	for (size_t k = 0; k < o->ncolumns; k++) {
		unsigned long warm[CLI_MAX_MOMENTS], lo, hi;
		char err[256], label[KEEP_LABEL];
		const struct sph_column *col = &o->columns[k];
		if (sph_warm_steps(o, col, warm, err, sizeof err) != 0)
			continue;
		const bool flow = sph_flow_planned(o, warm, &lo, &hi);
		bool states = false;
		for (size_t i = 0, first = 1; i < SPH_VARIANT_COUNT; i++) {
			if (!sph_wants(o, i) || !sph_variant_available(&sph_variants[i], NULL))
				continue;
			if (!states && pg)
				progress_plan(pg, sph_states_cost(col, sph_last_moment(o, warm)),
					      SPH_RUN_STATES_CLASS);
			states = true;
			for (size_t m = 0; m < o->warm.n; m++) {
				if (pg)
					progress_plan(pg, sph_row_cost(o, &sph_variants[i], col, first),
						      (int)i);
				sph_row_label(sph_variants[i].name, col->name, warm[m], 0, label,
					      sizeof label);
				keep_plan(keep, "%s", label);
				first = 0;
			}
			if (flow) {
				sph_row_label(sph_variants[i].name, col->name, lo, hi, label, sizeof label);
				keep_plan(keep, "%s", label);
			}
		}
	}
}

int sph_run_check_memory(const struct sph_column *col, char *err, size_t errlen)
{
	char what[96];
	snprintf(what, sizeof what, "--column %s", col->name);
	return sysinfo_check_memory(what, sph_scene_particles(col->nx, col->ny, col->nz),
				    SPH_RUN_BYTES_PER_PARTICLE, "particles", err, errlen);
}

/* Every column of o: against this machine's memory (sph_run_check_memory),
 * and its --warm-steps in its time step (sph_warm_steps). */
static int sph_check_columns(const struct sph_options *o, char *err, size_t errlen)
{
	unsigned long warm[CLI_MAX_MOMENTS];
	for (size_t k = 0; k < o->ncolumns; k++)
		if (sph_run_check_memory(&o->columns[k], err, errlen) != 0 ||
		    sph_warm_steps(o, &o->columns[k], warm, err, errlen) != 0)
			return -1;
	return 0;
}

/*
 * The flow's states this process has made, kept for the rest of it: a
 * suite's lines, and the suites of --suite all, that time the same
 * column at the same moments read them again instead of making them anew.
 */
#define SPH_RUN_STATE_CACHE 32
static struct sph_flow_states sph_state_cache[SPH_RUN_STATE_CACHE];
static size_t sph_state_cached, sph_state_next;

/* Whether fs holds the states of col and seed at exactly the distinct
 * steps of warm (o->warm.n of them) made by producer. */
static bool sph_states_match(const struct sph_flow_states *fs, const struct sph_column *col,
			     uint64_t seed, const unsigned long *warm, size_t nwarm,
			     const struct sph_variant *producer)
{
	if (fs->k == 0 || fs->producer != producer || fs->meta[0].seed != seed)
		return false;
	const struct sph_column *c = &fs->meta[0].col;
	if (strcmp(c->name, col->name) != 0 || c->nx != col->nx || c->ny != col->ny ||
	    c->nz != col->nz || c->tank != col->tank || c->jitter != col->jitter ||
	    c->layers != col->layers || c->lid != col->lid || c->top != col->top)
		return false;
	size_t distinct = 0;
	for (size_t m = 0; m < nwarm; m++) {
		bool repeat = false, held = false;
		for (size_t q = 0; q < m; q++)
			repeat = repeat || warm[q] == warm[m];
		for (size_t i = 0; i < fs->k; i++)
			held = held || fs->step[i] == warm[m];
		if (!held)
			return false;
		distinct += !repeat;
	}
	return distinct == fs->k;
}

/* The states of col's flow (scene sc) at the moments warm, made by the
 * producer once per process (sph_state_cache) as a progress item of its
 * own; NULL with one line in err. */
static const struct sph_flow_states *sph_states_of(const struct sph_options *o,
						   const struct sph_column *col,
						   const struct sph_scene *sc,
						   const unsigned long *warm, struct progress *pg,
						   char *err, size_t errlen)
{
	const struct sph_variant *producer = sph_flow_producer();
	if (!producer) {
		snprintf(err, errlen, "no variant that can make the flow's states runs here");
		return NULL;
	}
	progress_begin(pg, sph_states_cost(col, sph_last_moment(o, warm)), SPH_RUN_STATES_CLASS,
		       "the flow of %s to step %lu, by %s", col->name, sph_last_moment(o, warm),
		       producer->name);
	for (size_t c = 0; c < sph_state_cached; c++)
		if (sph_states_match(&sph_state_cache[c], col, o->seed, warm, o->warm.n, producer)) {
			progress_end(pg);
			return &sph_state_cache[c];
		}
	struct sph_flow_states *fs = &sph_state_cache[sph_state_next];
	sph_flow_states_free(fs);
	const int rc = sph_flow_produce(fs, producer, col, o->seed, sc, warm, o->warm.n,
					o->states_dir, pg, err, errlen);
	progress_end(pg);
	if (rc != 0)
		return NULL;
	sph_state_next = (sph_state_next + 1) % SPH_RUN_STATE_CACHE;
	sph_state_cached += sph_state_cached < SPH_RUN_STATE_CACHE;
	return fs;
}

/* The rendering of the whole flow from its moments' rows m (in order),
 * weighted as their steps are (sph_flow_combine): each stage's ms a frame
 * and the frames' spread; done, valid and timed when every moment's is. */
static void sph_flow_render(const struct sph_row *m, const size_t *order, size_t count,
			    const double *w, struct render_run_result *out)
{
	struct sph_flow_timing t[CLI_MAX_MOMENTS], f;
	const struct render_run_result *first = &m[order[0]].r;
	memset(out, 0, sizeof *out);
	out->done = out->valid = out->timed = true;
	for (size_t i = 0; i < count; i++) {
		const struct render_run_result *r = &m[order[i]].r;
		out->done = out->done && r->done;
		out->valid = out->valid && r->valid;
		out->timed = out->timed && r->timed;
		out->frames += r->frames;
		const double frame = r->extraction_s + r->field_s + r->raycast_s;
		t[i] = (struct sph_flow_timing){ frame, frame, frame, r->frame_noise_pct,
						 { r->extraction_s, r->field_s, r->raycast_s, 0 } };
	}
	out->shading = first->shading;
	out->width = first->width;
	out->height = first->height;
	out->res = first->res;
	if (!out->done || !out->timed)
		return;
	sph_flow_combine(t, w, count, &f);
	out->extraction_s = f.phase_ms[0];
	out->field_s = f.phase_ms[1];
	out->raycast_s = f.phase_ms[2];
	out->frame_noise_pct = f.noise_pct;
}

/* The row of the whole flow of the moment rows m[0..count) (all of one
 * variant and column, at distinct steps) into *out (sph_flow.h): valid
 * and timed when every moment is. */
static void sph_flow_row(const struct sph_row *m, size_t count, struct sph_row *out)
{
	unsigned long steps[CLI_MAX_MOMENTS];
	double w[CLI_MAX_MOMENTS];
	struct sph_flow_timing t[CLI_MAX_MOMENTS], f;
	size_t order[CLI_MAX_MOMENTS];
	for (size_t i = 0; i < count; i++) {
		size_t at = i;
		while (at > 0 && m[order[at - 1]].warm_steps > m[i].warm_steps) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = i;
	}
	*out = m[order[0]];
	memset(&out->t, 0, sizeof out->t);
	memset(&out->ph, 0, sizeof out->ph);
	memset(&out->r, 0, sizeof out->r);
	out->ph_steps = 0;
	out->flow_to = (unsigned long)m[order[count - 1]].warm_steps;
	out->timed = true;
	out->t.noise_met = true;
	for (size_t i = 0; i < count; i++) {
		const struct sph_row *r = &m[order[i]];
		steps[i] = (unsigned long)r->warm_steps;
		out->val.pass = out->val.pass && r->val.pass;
		out->val.rho_err = fmax(out->val.rho_err, r->val.rho_err);
		out->val.acc_err = fmax(out->val.acc_err, r->val.acc_err);
		out->clamps = r->clamps > out->clamps ? r->clamps : out->clamps;
		if (r->counts.aux_bytes > out->counts.aux_bytes)
			out->counts.aux_bytes = r->counts.aux_bytes;
		out->timed = out->timed && r->timed;
		if (!r->timed)
			continue;
		out->t.count += r->t.count;
		out->t.noise_met = out->t.noise_met && r->t.noise_met;
		double ms[4];
		sph_row_phase_ms(r, ms);
		t[i] = (struct sph_flow_timing){ r->t.s.median, r->t.s.min, r->t.s.max,
						 100.0 * r->t.s.rel_stddev,
						 { ms[0], ms[1], ms[2], ms[3] } };
	}
	if (!out->timed || sph_flow_weights(steps, count, w) != 0) {
		out->timed = false;
		return;
	}
	sph_flow_combine(t, w, count, &f);
	out->t.s.median = f.median_s;
	out->t.s.min = f.min_s;
	out->t.s.max = f.max_s;
	out->t.s.rel_stddev = f.noise_pct / 100.0;
	memcpy(out->flow_phase_ms, f.phase_ms, sizeof f.phase_ms);
	sph_flow_render(m, order, count, w, &out->r);
}

/* Runs every selected variant on every column, appending to *rows (grown
 * as needed); those that cannot run here go to skipped. Returns CLI_OK,
 * CLI_FAILED when a variant failed, or CLI_USAGE with the reason in *why
 * when nothing selected can run here. */
static int sph_collect(const struct sph_options *o, struct sph_row **rows, size_t *nrows,
		       struct skips *skipped, const char **why_out, struct progress *pg)
{
	size_t nvar = 0;
	const char *why = NULL;
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++) {
		const char *w;
		if (!sph_wants(o, i))
			continue;
		if (sph_variant_available(&sph_variants[i], &w))
			nvar++;
		else
			skips_add(skipped, sph_variants[i].name, why = w);
	}
	*why_out = why ? why : "no SPH variant selected can run here";
	if (nvar == 0)
		return CLI_USAGE;
	interrupt_lock();
	/* each moment's rows, and a row of the whole flow */
	const size_t planned = nvar * o->ncolumns * (o->warm.n + 1);
	struct sph_row *grown = realloc(*rows, (*nrows + planned) * sizeof **rows);
	if (grown)
		*rows = grown;
	interrupt_unlock();
	if (!grown) {
		*why_out = "out of memory";
		return CLI_USAGE;
	}
	memset(*rows + *nrows, 0, planned * sizeof **rows);
	static struct sysinfo_host host;
	sysinfo_host_read(&host);
	static struct gpu_device_info gpu;
	bool have_gpu = gpu_device_query(gpu_device_current(), &gpu) == 0;
	const struct sph_variant *producer = sph_flow_producer();
	int status = CLI_OK;
	for (size_t k = 0; k < o->ncolumns; k++) {
		const struct sph_column *col = &o->columns[k];
		struct sph_scene sc;
		char err[512];
		if (sph_scene_build(col, o->seed, &sc, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph: cannot build column %s: %s\n", col->name, err);
			status = CLI_FAILED;
			continue;
		}
		bool first = true;
		unsigned long warm[CLI_MAX_MOMENTS], lo, hi;
		const struct sph_flow_states *fs = NULL;
		if (sph_warm_steps(o, col, warm, err, sizeof err) != 0 ||
		    !(fs = sph_states_of(o, col, &sc, warm, pg, err, sizeof err))) {
			fprintf(stderr, "harness: sph: column %s: %s\n", col->name, err);
			status = CLI_FAILED;
			sph_scene_free(&sc);
			continue;
		}
		const bool flow = sph_flow_planned(o, warm, &lo, &hi);
		/* the states' maker validated at every moment, by its own rows
		 * or, when it has none here, by a check of its own */
		if (producer && !sph_wants(o, (size_t)(producer - sph_variants))) {
			struct sph_options chk = *o;
			chk.cmd = SPH_CHECK;
			chk.render = false;
			for (size_t m = 0; m < o->warm.n; m++) {
				struct sph_row pr = { .v = producer, .col = *col, .n = sc.n, .nb = sc.nb,
						      .warm_steps = (int)warm[m] };
				const struct sph_cost none = { { 0 } };
				if (sph_measure(&chk, &sc, fs, &pr, &none, pg) != CLI_OK) {
					fprintf(stderr, "harness: sph: column %s: the flow's state at step "
						"%lu, made by %s, did not validate\n", col->name, warm[m],
						producer->name);
					status = CLI_FAILED;
				}
			}
		}
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++) {
			const struct sph_variant *v = &sph_variants[i];
			if (!sph_wants(o, i) || !sph_variant_available(v, NULL))
				continue;
			const size_t moments_from = *nrows;
			for (size_t m = 0; m < o->warm.n; m++) {
				char doing[KEEP_LABEL + 64], label[KEEP_LABEL];
				sph_row_label(v->name, col->name, warm[m], 0, label, sizeof label);
				snprintf(doing, sizeof doing, "%s%s%s", o->suite ? o->suite : "",
					 o->suite ? " " : "", label);
				const struct sph_cost cost = sph_row_costs(o, v, col, first);
				progress_begin(pg, sph_cost_total(&cost), (int)i, "%s", doing);
				interrupt_set_doing(doing);
				first = false;
				struct sph_row *row = &(*rows)[*nrows];
				row->v = v;
				row->col = *col;
				row->n = sc.n;
				row->nb = sc.nb;
				row->seed = o->seed;
				row->dt = sc.p.dt;
				row->warm_steps = (int)warm[m];
				row->window_steps = sph_window_steps(o, v);
				row->device_name = v->device == VARIANT_GPU && have_gpu ? gpu.name : host.cpu_model;
				if (sph_measure(o, &sc, fs, row, &cost, pg) != CLI_OK)
					status = CLI_FAILED;
				progress_end(pg);
				interrupt_row_kept(nrows);
			}
			if (flow) {
				interrupt_lock();
				sph_flow_row(&(*rows)[moments_from], o->warm.n, &(*rows)[*nrows]);
				interrupt_unlock();
				interrupt_row_kept(nrows);
			}
		}
		sph_scene_free(&sc);
	}
	return status;
}

/* Prints the table (unless quiet) and writes out with its sidecar (inc:
 * an interrupted run's; NULL: a whole one). 0, or -1 with err. */
static int sph_write(int argc, char **argv, const struct sph_options *o, const char *out,
		     const struct sph_row *rows, size_t nrows, const struct skips *skipped, bool render,
		     const struct results_incomplete *inc, char *err, size_t errlen)
{
	if (!o->quiet) {
		sph_print(rows, nrows);
		if (render)
			sph_print_render(rows, nrows);
	}
	if (!out)
		return 0;
	struct sph_table_ctx tc = { rows, nrows, render, o->ro.samples_per_unit };
	const char *cols[SPH_NCOLS + SPH_RENDER_NCOLS];
	memcpy(cols, sph_columns_csv, sizeof sph_columns_csv);
	memcpy(cols + SPH_NCOLS, sph_render_columns_csv, sizeof sph_render_columns_csv);
	struct results_table t = { .schema = render ? "sph-harness-render/1" : "sph-harness-results/1",
				   .columns = cols,
				   .ncols = SPH_NCOLS + (render ? SPH_RENDER_NCOLS : 0),
				   .nrows = nrows, .rows = rows,
				   .format = sph_format_table, .json = sph_json, .ctx = &tc };
	struct results_meta meta = { argc, argv, &o->timing, NULL, 0, skipped, inc };
	return results_write_table(out, &t, &meta, err, errlen);
}

/*
 * What an interruption of sph run, check or a suite keeps (core/keep.h):
 * the finished rows, with the sidecar of an incomplete run. rows changes
 * (the table grows) only under interrupt_lock.
 */
struct sph_keep {
	struct keep k;
	int argc;
	char **argv;
	const struct sph_options *o;
	struct sph_row **rows;
	const struct skips *skipped;
	bool render;
};

/* A row's label (sph_row_label). */
static void sph_keep_label(void *ctx, size_t r, char *out)
{
	const struct sph_keep *m = ctx;
	const struct sph_row *row = &(*m->rows)[r];
	sph_row_label(row->v->name, row->col.name, (unsigned long)row->warm_steps, row->flow_to, out,
		      KEEP_LABEL);
}

static int sph_keep_write(void *ctx, const struct results_incomplete *inc, char *err, size_t errlen)
{
	const struct sph_keep *m = ctx;
	return sph_write(m->argc, m->argv, m->o, m->k.out, *m->rows, *m->k.nrows, m->skipped,
			 m->render, inc, err, errlen);
}

/* An sph_keep for rows *rows, *nrows of them finished, into out. */
static void sph_keep_init(struct sph_keep *m, int argc, char **argv, const struct sph_options *o,
			  const char *out, struct sph_row **rows, const size_t *nrows,
			  const struct skips *skipped, bool render)
{
	keep_init(&m->k, out, nrows, sph_keep_label, sph_keep_write, m);
	m->argc = argc;
	m->argv = argv;
	m->o = o;
	m->rows = rows;
	m->skipped = skipped;
	m->render = render;
}

/* Prints the table and writes out (when set) with its sidecar, holding
 * the interruption's lock and marking keep written; frees the rows.
 * Returns status, or CLI_FAILED when writing failed. */
static int sph_finish(int argc, char **argv, const struct sph_options *o, const char *out,
		      struct sph_row *rows, size_t nrows, const struct skips *skipped, int status,
		      bool render, struct keep *keep)
{
	char err[512];
	interrupt_lock();
	keep->written = true;
	if (sph_write(argc, argv, o, out, rows, nrows, skipped, render, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s\n", err);
		status = CLI_FAILED;
	} else if (out && !o->quiet) {
		results_say_wrote(out);
	}
	interrupt_unlock();
	interrupt_set_keeper(NULL, NULL);
	for (size_t r = 0; r < nrows; r++)
		timing_result_free(&rows[r].t);
	free(rows);
	return status;
}

static int sph_sweep(int argc, char **argv, const struct sph_options *o)
{
	char err[512];
	const char *out = o->out;
	static char def[128];
	if (!out && o->cmd == SPH_RUN) {
		char stamp[32];
		sysinfo_utc_stamp(stamp, sizeof stamp);
		snprintf(def, sizeof def, "results/local/sph-%s.csv", stamp);
		out = def;
		atomic_mkdir_p("results/local");
	}
	if (sph_check_columns(o, err, sizeof err) != 0 ||
	    (out && atomic_path_writable(out, err, sizeof err) != 0))
		return cli_usage_error("sph", err);
	if (o->render && gpu_device_count() <= 0) {
		snprintf(err, sizeof err, "--render needs a GPU: %s", gpu_unavailable_reason());
		return cli_usage_error("sph", err);
	}
	struct sph_row *rows = NULL;
	size_t nrows = 0;
	const char *why;
	struct skips *skipped = calloc(1, sizeof *skipped);
	if (!skipped)
		return cli_usage_error("sph", "out of memory");
	struct progress pg;
	struct sph_keep keep;
	sph_keep_init(&keep, argc, argv, o, out, &rows, &nrows, skipped, o->render);
	progress_init(&pg, o->cmd == SPH_RUN ? "sph run" : "sph check", o->quiet);
	sph_plan(o, &pg, &keep.k);
	interrupt_set_keeper(keep_rows, &keep.k);
	int status = sph_collect(o, &rows, &nrows, skipped, &why, &pg);
	progress_finish(&pg);
	if (status == CLI_USAGE) {
		interrupt_set_keeper(NULL, NULL);
		keep_free(&keep.k);
		if (skips_total(skipped) > 1) {
			int w = snprintf(err, sizeof err, "nothing selected can run here: ");
			skips_describe(skipped, err + w, sizeof err - (size_t)w);
			why = err;
		}
		free(rows);
		free(skipped);
		return cli_usage_error("sph", why);
	}
	sph_say_skipped(o, NULL, skipped);
	status = sph_finish(argc, argv, o, out, rows, nrows, skipped, status, o->render, &keep.k);
	keep_free(&keep.k);
	free(skipped);
	return status;
}

/* One SPH suite: every line of sph_suites.def with that name, into
 * DIR/<name>.csv. Variants that cannot run here are skipped and named in
 * one line (and the sidecar). When none of its rows can run, no file is
 * written (an empty one would read like a measurement): asked for by
 * name, one line and CLI_USAGE; under --suite all, a note and CLI_OK
 * with *wrote false. */
/* The options of suite line into local: its variants, columns, and
 * whether it is timed and rendered. CLI_OK, or CLI_USAGE with err. */
static int sph_suite_line_options(const struct sph_options *o, const struct sph_suite_line *line,
				  struct sph_options *local, char *err, size_t errlen)
{
	*local = *o;
	local->cmd = line->timed ? SPH_RUN : SPH_CHECK;
	local->render = line->render;
	local->suite = line->name;
	memset(local->selected, 0, sizeof local->selected);
	local->ncolumns = 0;
	if (sph_parse_variants(line->variants, local, err, errlen) != CLI_OK ||
	    sph_parse_columns(line->columns, local, err, errlen) != CLI_OK ||
	    (!o->warm_given && sph_parse_moments(line->moments, local, err, errlen) != CLI_OK))
		return CLI_USAGE;
	return CLI_OK;
}

/* Plans the rows of the suites which names (every one under "all") on
 * pg and by label on keep (either may be NULL). */
static void sph_plan_suites(const struct sph_options *o, const char *which, struct progress *pg,
			    struct keep *keep)
{
	static struct sph_options local;
	char err[512];
	for (size_t e = 0; e < sph_suite_count; e++) {
		const struct sph_suite_line *line = &sph_suite_lines[e];
		if ((strcmp(which, "all") == 0 || strcmp(which, line->name) == 0) &&
		    (!line->render || gpu_device_count() > 0) &&
		    sph_suite_line_options(o, line, &local, err, sizeof err) == CLI_OK &&
		    sph_check_columns(&local, err, sizeof err) == 0)
			sph_plan(&local, pg, keep);
	}
}

static int sph_suite(const struct sph_options *o, const char *name, const char *dir, bool *wrote,
		     struct progress *pg, struct sph_keep *keep)
{
	char err[1400], out[1024], why[300];
	*wrote = false;
	snprintf(out, sizeof out, "%s/%s%s.csv", dir, name,
		 o->ro.shading == RENDER_SHADING_PAPER ? "-paper" : "");
	if (atomic_path_writable(out, err, sizeof err) != 0)
		return cli_usage_error("sph", err);
	struct sph_row *rows = NULL;
	size_t nrows = 0;
	int status = CLI_OK;
	bool render = false;
	struct skips *skipped = calloc(1, sizeof *skipped);
	if (!skipped)
		return cli_usage_error("sph", "out of memory");
	for (size_t e = 0; e < sph_suite_count; e++)
		render = render || (strcmp(sph_suite_lines[e].name, name) == 0 &&
				    sph_suite_lines[e].render && gpu_device_count() > 0);
	interrupt_lock();
	keep->k.out = out;
	keep->rows = &rows;
	keep->k.nrows = &nrows;
	keep->skipped = skipped;
	keep->render = render;
	keep->k.written = false;
	keep_plan_reset(&keep->k);
	interrupt_unlock();
	sph_plan_suites(o, name, NULL, &keep->k);
	interrupt_set_keeper(keep_rows, &keep->k);
	render = false;
	for (size_t e = 0; e < sph_suite_count; e++) {
		const struct sph_suite_line *line = &sph_suite_lines[e];
		if (strcmp(line->name, name) != 0)
			continue;
		struct sph_options local;
		if (sph_suite_line_options(o, line, &local, err, sizeof err) != CLI_OK) {
			fprintf(stderr, "harness: sph: suite %s: %s\n", name, err);
			status = CLI_FAILED;
			continue;
		}
		if (line->render && gpu_device_count() <= 0) {
			snprintf(why, sizeof why, "rendering needs a GPU (%s)", gpu_unavailable_reason());
			for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
				if (local.selected[i])
					skips_add(skipped, sph_variants[i].name, why);
			continue;
		}
		if (sph_check_columns(&local, why, sizeof why) != 0) {
			for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
				if (local.selected[i])
					skips_add(skipped, sph_variants[i].name, why);
			continue;
		}
		render = render || line->render;
		const char *w;
		int st = sph_collect(&local, &rows, &nrows, skipped, &w, pg);
		if (st != CLI_OK && st != CLI_USAGE)
			status = st;
	}
	if (nrows == 0) {
		interrupt_set_keeper(NULL, NULL);
		skips_describe(skipped, why, sizeof why);
		free(rows);
		free(skipped);
		snprintf(err, sizeof err, "suite %s: nothing of it can run here, no file written%s%s", name,
			 why[0] ? ": " : "", why);
		if (strcmp(o->suite, "all") != 0)
			return cli_usage_error("sph", err);
		if (!o->quiet)
			fprintf(stderr, "harness: sph: %s\n", err);
		return status;
	}
	sph_say_skipped(o, name, skipped);
	if (!o->quiet)
		printf("== suite %s\n", name);
	*wrote = true;
	status = sph_finish(keep->argc, keep->argv, o, out, rows, nrows, skipped, status, render,
			    &keep->k);
	free(skipped);
	return status;
}

/* Suite line i's name, for keep_suite_starts. */
static const char *sph_suite_name(size_t i)
{
	return sph_suite_lines[i].name;
}

static int sph_suites(int argc, char **argv, const struct sph_options *o)
{
	const char *dir = o->out_dir ? o->out_dir : "results/local";
	struct sph_keep keep;
	sph_keep_init(&keep, argc, argv, o, NULL, NULL, NULL, NULL, false);
	keep.k.made_dir = access(dir, F_OK) != 0 ? dir : NULL;
	atomic_mkdir_p(dir);
	int status = CLI_OK;
	size_t written = 0;
	struct progress pg;
	progress_init(&pg, "sph suite", o->quiet);
	sph_plan_suites(o, o->suite, &pg, NULL);
	for (size_t e = 0; e < sph_suite_count; e++) {
		if (!keep_suite_starts(sph_suite_name, e, o->suite))
			continue;
		bool wrote;
		keep_later_suites(&keep.k, sph_suite_name, sph_suite_count, e, o->suite);
		int st = sph_suite(o, sph_suite_lines[e].name, dir, &wrote, &pg, &keep);
		if (st == CLI_USAGE) {
			progress_finish(&pg);
			keep_free(&keep.k);
			return st;
		}
		if (st != CLI_OK)
			status = st;
		written += wrote;
	}
	keep_free(&keep.k);
	progress_finish(&pg);
	if (written == 0 && strcmp(o->suite, "all") == 0)
		return cli_usage_error("sph", "--suite all: no SPH suite has a row that can run here, no file written");
	return status;
}

/*
 * A snapshot's output format (--format): prepare checks, before the run,
 * that its files can be written (CLI_USAGE's one line in err when not);
 * begin takes the built scene; step gets the variant's state at each step
 * of --at (in the caller's order, fluid only); commit makes the output
 * appear whole, abort leaves nothing of it. Each but abort returns 0, or
 * -1 with one line in err.
 */
struct sph_snap_writer;
struct sph_snap_format {
	const char *name;
	int (*prepare)(struct sph_snap_writer *w, const struct sph_options *o,
		       const struct sph_variant *v, char *err, size_t errlen);
	int (*begin)(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
		     size_t errlen);
	int (*step)(struct sph_snap_writer *w, unsigned long step, double time, const float *pos4,
		    const float *vel4, const float *rho, char *err, size_t errlen);
	int (*commit)(struct sph_snap_writer *w, char *err, size_t errlen);
	void (*abort)(struct sph_snap_writer *w);
};

/* The state of either format's writer. */
struct sph_snap_writer {
	const struct sph_snap_format *fmt;
	const struct sph_scene *sc;
	const char *out;	/* what a user opens: the CSV, or the series' .pvd */
	char pvd[1400];		/* vtk: the .pvd's path */
	struct atomic_file af;	/* csv */
	struct sph_vtk_series vs; /* vtk */
	float *pres;		/* vtk: each fluid particle's pressure */
};

/* csv: one file, a row per particle and step (plots/sph-collapse.gp). */
static int sph_snap_csv_prepare(struct sph_snap_writer *w, const struct sph_options *o,
				const struct sph_variant *v, char *err, size_t errlen)
{
	(void)v;
	w->out = o->out;
	return atomic_path_writable(o->out, err, errlen);
}

static int sph_snap_csv_begin(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
			      size_t errlen)
{
	static const char *const header[] = { "step", "time_s", "x_m", "y_m", "z_m",
					      "speed_m_per_s", "rho_kg_per_m3" };
	w->sc = sc;
	if (atomic_file_open(&w->af, w->out, err, errlen) != 0)
		return -1;
	if (csv_write_row(w->af.fp, header, 7) != 0) {
		snprintf(err, errlen, "cannot write %s", w->out);
		return -1;
	}
	return 0;
}

static int sph_snap_csv_step(struct sph_snap_writer *w, unsigned long step, double time,
			     const float *pos4, const float *vel4, const float *rho, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < w->sc->n; i++) {
		char c[7][32];
		const char *f[7] = { c[0], c[1], c[2], c[3], c[4], c[5], c[6] };
		double sp = sqrt((double)vel4[4 * i] * vel4[4 * i] +
				 (double)vel4[4 * i + 1] * vel4[4 * i + 1] +
				 (double)vel4[4 * i + 2] * vel4[4 * i + 2]);
		snprintf(c[0], 32, "%lu", step);
		snprintf(c[1], 32, "%.6g", time);
		for (int d = 0; d < 3; d++)
			snprintf(c[2 + d], 32, "%.7g", pos4[4 * i + d]);
		snprintf(c[5], 32, "%.5g", sp);
		snprintf(c[6], 32, "%.6g", rho[i]);
		if (csv_write_row(w->af.fp, f, 7) != 0) {
			snprintf(err, errlen, "cannot write %s", w->out);
			return -1;
		}
	}
	return 0;
}

static int sph_snap_csv_commit(struct sph_snap_writer *w, char *err, size_t errlen)
{
	return atomic_file_commit(&w->af, err, errlen);
}

static void sph_snap_csv_abort(struct sph_snap_writer *w)
{
	atomic_file_abort(&w->af);
}

/* vtk: a directory of PolyData files and their time series (sph_vtk.h),
 * <variant>-<column> the prefix of its files. */
static int sph_snap_vtk_prepare(struct sph_snap_writer *w, const struct sph_options *o,
				const struct sph_variant *v, char *err, size_t errlen)
{
	char base[256];
	snprintf(base, sizeof base, "%s-%s", v->name, o->columns[0].name);
	if (sph_vtk_series_open(&w->vs, o->out, base, o->at, o->nat, err, errlen) != 0)
		return -1;
	sph_vtk_file_name(w->pvd, sizeof w->pvd, o->out, base, SPH_VTK_PVD, 0);
	w->out = w->pvd;
	return 0;
}

/* The boundary file: the walls' positions and psi (Akinci's volume-based
 * mass, kg: the scene stores psi / m). */
static int sph_snap_vtk_begin(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
			      size_t errlen)
{
	w->sc = sc;
	w->pres = malloc((sc->n ? sc->n : 1) * sizeof *w->pres);
	float *psi = malloc((sc->nb ? sc->nb : 1) * sizeof *psi);
	int rc = -1;
	if (!w->pres || !psi) {
		snprintf(err, errlen, "out of memory for %zu particles", sc->n + sc->nb);
		goto out_free_psi;
	}
	for (size_t b = 0; b < sc->nb; b++)
		psi[b] = (float)(sc->bnd4[4 * b + 3] * sc->p.mass);
	const struct sph_vtk_array a[] = { { "psi_kg", 1, psi, 1 } };
	rc = sph_vtk_series_boundary(&w->vs, sc->nb, sc->bnd4, 4, a, 1, err, errlen);
out_free_psi:
	free(psi);
	return rc;
}

/* A fluid file: positions, velocity, density and the pressure of the
 * equation of state (sph_ref_pressure) of that density. */
static int sph_snap_vtk_step(struct sph_snap_writer *w, unsigned long step, double time,
			     const float *pos4, const float *vel4, const float *rho, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < w->sc->n; i++)
		w->pres[i] = (float)sph_ref_pressure(&w->sc->p, rho[i]);
	const struct sph_vtk_array a[] = { { "velocity_m_per_s", 3, vel4, 4 },
					   { "density_kg_per_m3", 1, rho, 1 },
					   { "pressure_Pa", 1, w->pres, 1 } };
	return sph_vtk_series_step(&w->vs, step, time, w->sc->n, pos4, 4, a, 3, err, errlen);
}

static int sph_snap_vtk_commit(struct sph_snap_writer *w, char *err, size_t errlen)
{
	free(w->pres);
	w->pres = NULL;
	return sph_vtk_series_commit(&w->vs, err, errlen);
}

static void sph_snap_vtk_abort(struct sph_snap_writer *w)
{
	free(w->pres);
	w->pres = NULL;
	sph_vtk_series_abort(&w->vs);
}

/* The formats --format takes; the first is the default. */
static const struct sph_snap_format sph_snap_formats[] = {
	{ "csv", sph_snap_csv_prepare, sph_snap_csv_begin, sph_snap_csv_step, sph_snap_csv_commit,
	  sph_snap_csv_abort },
	{ "vtk", sph_snap_vtk_prepare, sph_snap_vtk_begin, sph_snap_vtk_step, sph_snap_vtk_commit,
	  sph_snap_vtk_abort },
};
#define SPH_SNAP_NFORMATS (sizeof sph_snap_formats / sizeof sph_snap_formats[0])

/* --format NAME: one of sph_snap_formats. CLI_OK, or CLI_USAGE naming them. */
static int sph_parse_format(const char *s, struct sph_options *o, char *err, size_t errlen)
{
	o->format_given = true;
	for (size_t f = 0; f < SPH_SNAP_NFORMATS; f++)
		if (strcmp(s, sph_snap_formats[f].name) == 0) {
			o->format = f;
			return CLI_OK;
		}
	int w = snprintf(err, errlen, "--format '%s': allowed are", s);
	for (size_t f = 0; f < SPH_SNAP_NFORMATS && w > 0 && (size_t)w < errlen; f++)
		w += snprintf(err + w, errlen - (size_t)w, "%s %s", f ? "," : "", sph_snap_formats[f].name);
	return CLI_USAGE;
}

/* Runs one variant on one column and hands every particle at the steps of
 * --at to the writer of --format: the data of the collapse picture
 * (plots/sph-collapse.gp), or of ParaView. */
static int sph_snapshot(const struct sph_options *o)
{
	char err[1600];
	const struct sph_variant *v = NULL;
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (sph_wants(o, i))
			v = &sph_variants[i];
	const char *why;
	if (!sph_variant_available(v, &why)) {
		snprintf(err, sizeof err, "%s cannot run here: %s", v->name, why);
		return cli_usage_error("sph", err);
	}
	struct sph_snap_writer w = { 0 };
	w.fmt = &sph_snap_formats[o->format];
	if (sph_check_columns(o, err, sizeof err) != 0 || w.fmt->prepare(&w, o, v, err, sizeof err) != 0)
		return cli_usage_error("sph", err);
	const struct sph_column *col = &o->columns[0];
	struct sph_scene sc;
	if (sph_scene_build(col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: cannot build column %s: %s\n", col->name, err);
		w.fmt->abort(&w);
		return CLI_FAILED;
	}
	const struct sph_params p = sc.p;
	const size_t n = sc.n;
	int status = CLI_FAILED;
	void *ctx = NULL;
	float *pos4 = malloc(4 * n * sizeof(float)), *vel4 = malloc(4 * n * sizeof(float));
	float *rho = malloc(n * sizeof(float));
	const struct sph_input in = { sc.n, sc.pos4, sc.vel4, sc.nb, sc.bnd4 };
	if (!pos4 || !vel4 || !rho) {
		fprintf(stderr, "harness: sph: out of memory for %zu particles\n", n);
		goto out_free;
	}
	if (v->ops->create(&ctx, &in, &p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s: %s\n", v->name, err);
		goto out_free;
	}
	if (w.fmt->begin(&w, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s\n", err);
		goto out_destroy;
	}
	unsigned long done = 0;
	for (size_t k = 0; k < o->nat; k++) {
		struct sph_phase_times t = { 0 };
		if ((o->at[k] > done && v->ops->steps(ctx, (int)(o->at[k] - done), &t) != 0) ||
		    v->ops->evaluate(ctx, 0) != 0 || v->ops->read(ctx, pos4, vel4, rho, NULL) != 0) {
			fprintf(stderr, "harness: sph: %s failed: %s\n", v->name, v->ops->error(ctx));
			goto out_destroy;
		}
		done = o->at[k];
		if (w.fmt->step(&w, done, done * p.dt, pos4, vel4, rho, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph: %s\n", err);
			goto out_destroy;
		}
	}
	if (w.fmt->commit(&w, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s\n", err);
	} else {
		status = CLI_OK;
		if (!o->quiet)
			printf("wrote %s: %zu particles at %zu steps (dt = %g s)\n", w.out, n, o->nat, p.dt);
	}
out_destroy:
	v->ops->destroy(ctx);
out_free:
	if (status != CLI_OK)
		w.fmt->abort(&w);
	free(pos4);
	free(vel4);
	free(rho);
	sph_scene_free(&sc);
	return status;
}

int sph_check_args(int argc, char **argv, char *err, size_t errlen)
{
	struct sph_options o;
	return sph_parse(argc, argv, &o, err, errlen);
}

int sph_command(int argc, char **argv)
{
	struct sph_options o;
	char err[512];
	if (argc > 2 && strcmp(argv[2], "physics") == 0)
		return sph_physics_command(argc - 1, argv + 1);
	if (argc > 2 && strcmp(argv[2], "render") == 0)
		return sph_render_command(argc - 1, argv + 1);
	if (sph_parse(argc - 1, argv + 1, &o, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph", err);
	if (o.help) {
		sph_help();
		return CLI_OK;
	}
	if (o.gpu >= 0) {
		bool wanted = o.render;
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
			wanted = wanted || (sph_wants(&o, i) && sph_variants[i].device == VARIANT_GPU);
		if (cli_use_gpu(o.gpu, wanted, err, sizeof err) != CLI_OK)
			return cli_usage_error("sph", err);
	}
	if (o.cmd == SPH_LIST)
		return sph_list();
	if (o.cmd == SPH_SNAPSHOT)
		return sph_snapshot(&o);
	if (o.suite)
		return sph_suites(argc, argv, &o);
	return sph_sweep(argc, argv, &o);
}
