/* sph_run.c - bin/harness sph: its command line, help and list, and the rows of a run and of its suites (the window: sph_window.c; the printing: sph_print.c; snapshot: sph_snapshot.c) */
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
#include "../cli.h"
#include "../core/gpu_device.h"
#include "../core/progress.h"
#include "../render/render_run.h"
#include "../core/results.h"
#include "../core/skips.h"
#include "sph_flow.h"
#include "sph_journal.h"
#include "sph_physics.h"
#include "sph_render.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"
#include "sph_print.h"
#include "sph_row.h"
#include "sph_snapshot.h"
#include "sph_window.h"

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
	       "  --resume            take back the rows an interrupted run of the same binary\n"
	       "                      and arguments kept beside its CSV (OUT.rows, written as\n"
	       "                      each row finishes) and measure only the others\n"
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
       SPH_OPT_FILTER, SPH_OPT_GPU, SPH_OPT_FORMAT, SPH_OPT_WINDOW, SPH_OPT_STATES,
	       SPH_OPT_RESUME };

static int sph_parse(int argc, char **argv, struct sph_options *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "column", required_argument, NULL, SPH_OPT_COLUMN },
		{ "seed", required_argument, NULL, SPH_OPT_SEED },
		{ "warm-steps", required_argument, NULL, SPH_OPT_WARM },
		{ "window-steps", required_argument, NULL, SPH_OPT_WINDOW },
		{ "states", required_argument, NULL, SPH_OPT_STATES },
		{ "resume", no_argument, NULL, SPH_OPT_RESUME },
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
		case SPH_OPT_RESUME: o->resume = true; break;
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
/* Runs every selected variant on every column, appending to *rows (grown
 * as needed); those that cannot run here go to skipped. Returns CLI_OK,
 * CLI_FAILED when a variant failed, or CLI_USAGE with the reason in *why
 * when nothing selected can run here. */
/* Whether a row taken back from a journal passed as its measurement
 * did: valid, and timed when the run times. */
static bool sph_row_passed(const struct sph_options *o, const struct sph_row *row)
{
	return row->val.pass && (o->cmd != SPH_RUN || row->timed) && (!o->render || row->r.valid);
}

/* The finished rows into the run's journal, when it keeps one; a failure
 * is said once and the run goes on (only a later --resume needs it). */
static void sph_journal_keep(const struct sph_options *o, const struct sph_row *rows, size_t n)
{
	static bool said;
	char err[1200];
	if (!o->journal)
		return;
	interrupt_lock();
	const int rc = sph_journal_write(o->journal, o->args, rows, n, err, sizeof err);
	interrupt_unlock();
	if (rc != 0 && !said) {
		said = true;
		fprintf(stderr, "harness: sph: warning: %s (the rows cannot be resumed)\n", err);
	}
}

/*
 * The journal of out (OUT.rows, its path in j) into o: kept from now on,
 * and with --resume its rows read back into j first (refused: one line in
 * err, -1).
 */
static int sph_journal_open(struct sph_options *o, const char *out, struct sph_journal *j,
			    char *err, size_t errlen)
{
	char path[sizeof j->path];
	memset(j, 0, sizeof *j);
	o->journal = NULL;
	o->resumed = NULL;
	if (!out)
		return 0;
	sph_journal_path(out, path, sizeof path);
	const int rc = o->resume ? sph_journal_read(path, o->args, j, err, errlen) : 1;
	if (rc < 0)
		return -1;
	snprintf(j->path, sizeof j->path, "%s", path);
	o->journal = j->path;
	o->resumed = rc == 0 ? j : NULL;
	return 0;
}

/* After the run: what --resume took back (j's rows), said. */
static void sph_journal_done(const struct sph_options *o, struct sph_journal *j)
{
	const size_t taken = j->n;
	/* said even with --quiet: where a file's rows come from */
	if (o->resume && !taken)
		fprintf(stderr, "harness: sph: nothing to resume at %s: every row measured now\n",
			j->path);
	if (taken)
		fprintf(stderr, "harness: sph: %zu rows taken back from %s (an interrupted run of this "
			"binary), the others measured now\n", taken, j->path);
	sph_journal_free(j);
}

/* Whether --resume takes back every row of column col at the moments
 * warm: each selected variant's that can run here at each moment. */
static bool sph_column_kept(const struct sph_options *o, const struct sph_column *col,
			    const unsigned long *warm)
{
	if (!o->resumed)
		return false;
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++) {
		if (!sph_wants(o, i) || !sph_variant_available(&sph_variants[i], NULL))
			continue;
		for (size_t m = 0; m < o->warm.n; m++)
			if (!sph_journal_find(o->resumed, sph_variants[i].name, col->name, (int)warm[m]))
				return false;
	}
	return true;
}

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
		/* a column whose every row --resume takes back needs no states */
		if (sph_warm_steps(o, col, warm, err, sizeof err) != 0 ||
		    (!sph_column_kept(o, col, warm) &&
		     !(fs = sph_states_of(o, col, &sc, warm, pg, err, sizeof err)))) {
			fprintf(stderr, "harness: sph: column %s: %s\n", col->name, err);
			status = CLI_FAILED;
			sph_scene_free(&sc);
			continue;
		}
		const bool flow = sph_flow_planned(o, warm, &lo, &hi);
		/* the states' maker validated at every moment, by its own rows
		 * or, when it has none here, by a check of its own */
		if (fs && producer && !sph_wants(o, (size_t)(producer - sph_variants))) {
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
				const struct sph_row *kept =
					sph_journal_find(o->resumed, v->name, col->name, row->warm_steps);
				if (kept) {
					if (sph_journal_copy(kept, row) != 0 || !sph_row_passed(o, row))
						status = CLI_FAILED;
					row->resumed = true;
				} else if (sph_measure(o, &sc, fs, row, &cost, pg) != CLI_OK) {
					status = CLI_FAILED;
				}
				progress_end(pg);
				/* kept before it counts: an interruption then finds it there */
				sph_journal_keep(o, *rows, *nrows + 1);
				interrupt_row_kept(nrows);
			}
			if (flow) {
				interrupt_lock();
				sph_flow_row(&(*rows)[moments_from], o->warm.n, &(*rows)[*nrows]);
				(*rows)[*nrows].resumed = false; /* combined now, from its moments */
				interrupt_unlock();
				sph_journal_keep(o, *rows, *nrows + 1);
				interrupt_row_kept(nrows);
			}
		}
		sph_scene_free(&sc);
	}
	return status;
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
	} else {
		if (o->journal) /* written whole: nothing to resume */
			unlink(o->journal);
		if (out && !o->quiet)
			results_say_wrote(out);
	}
	interrupt_unlock();
	interrupt_set_keeper(NULL, NULL);
	for (size_t r = 0; r < nrows; r++)
		timing_result_free(&rows[r].t);
	free(rows);
	return status;
}

static int sph_sweep(int argc, char **argv, const struct sph_options *opts)
{
	char err[1400];
	struct sph_options lo = *opts;
	struct sph_options *o = &lo;
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
	struct sph_journal j;
	if (sph_journal_open(o, out, &j, err, sizeof err) != 0)
		return cli_usage_error("sph", err);
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
		sph_journal_free(&j);
		return cli_usage_error("sph", why);
	}
	sph_say_skipped(o, NULL, skipped);
	status = sph_finish(argc, argv, o, out, rows, nrows, skipped, status, o->render, &keep.k);
	sph_journal_done(o, &j);
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

static int sph_suite(const struct sph_options *opts, const char *name, const char *dir, bool *wrote,
		     struct progress *pg, struct sph_keep *keep)
{
	char err[1400], out[1024], why[300];
	*wrote = false;
	snprintf(out, sizeof out, "%s/%s%s.csv", dir, name,
		 opts->ro.shading == RENDER_SHADING_PAPER ? "-paper" : "");
	if (atomic_path_writable(out, err, sizeof err) != 0)
		return cli_usage_error("sph", err);
	struct sph_options so = *opts;
	struct sph_options *o = &so;
	struct sph_journal j;
	if (sph_journal_open(o, out, &j, err, sizeof err) != 0)
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
		sph_journal_free(&j);
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
	sph_journal_done(o, &j);
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
	/* what a journal records of the run, to resume only the same run */
	static char args[4096];
	size_t at = 0;
	for (int a = 1; a < argc && at < sizeof args; a++)
		if (strcmp(argv[a], "--resume") != 0)
			at += (size_t)snprintf(args + at, sizeof args - at, "%s%s", at ? " " : "", argv[a]);
	o.args = args;
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
