/* sph_physics.c - bin/harness sph physics: its options, the table, the CSV and its sidecar (the checks: sph_physics_checks.c) */
#define _GNU_SOURCE
#include "sph_physics.h"
#include "sph_physics_rows.h"

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/atomic_file.h"
#include "../core/interrupt.h"
#include "../core/keep.h"
#include "../cli.h"
#include "../core/gpu_device.h"
#include "../core/json_out.h"
#include "../core/progress.h"
#include "../core/results.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"
#include "sph_checkpoint.h"
#include "sph_trace.h"

/* ---- output ------------------------------------------------------------- */

/* "leak on 255600": check's name and column, as phys_plan labels it. */
static const char *phys_check_label(const struct phys_options *o, int check)
{
	static char label[KEEP_LABEL];
	if (check == PHYS_CHECK_DAMBREAK)
		snprintf(label, sizeof label, "dambreak on %s", o->dam_col.name);
	else if (check == PHYS_CHECK_REST)
		snprintf(label, sizeof label, "rest on %s", o->rest_col.name);
	else if (check - PHYS_CHECK_LEAK < (int)o->nleak)
		snprintf(label, sizeof label, "leak on %s", o->leak_cols[check - PHYS_CHECK_LEAK].name);
	else
		snprintf(label, sizeof label, "check %d", check);
	return label;
}

static const char *const phys_columns[] = {
	"variant", "device_name", "check", "column", "n", "boundary_particles", "clamps",
	"quantity", "T", "time_s", "simulated", "measured", "rel_err", "tol", "judged", "pass",
};
#define PHYS_NCOLS (sizeof phys_columns / sizeof phys_columns[0])

static void phys_num(char *cell, double v, const char *fmt)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, fmt, v);
}

static void phys_format(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct phys_rows *rs = ctx;
	const struct phys_row *row = &rs->r[r];
	size_t i = 0;
	snprintf(c[i++], 64, "%s", rs->v->name);
	snprintf(c[i++], 64, "%s", rs->device_name);
	snprintf(c[i++], 64, "%s", row->check);
	snprintf(c[i++], 64, "%s", row->column);
	snprintf(c[i++], 64, "%zu", row->n);
	snprintf(c[i++], 64, "%zu", row->nb);
	snprintf(c[i++], 64, "%llu", row->clamps);
	snprintf(c[i++], 64, "%s", row->quantity);
	phys_num(c[i++], row->T, "%.4f");
	phys_num(c[i++], row->t, "%.6g");
	phys_num(c[i++], row->sim, "%.6g");
	phys_num(c[i++], row->meas, "%.6g");
	phys_num(c[i++], row->rel, "%.4f");
	phys_num(c[i++], row->tol, "%.2f");
	bool curve = isnan(row->meas);
	snprintf(c[i++], 64, "%s", curve ? "" : row->judged ? "1" : "0");
	snprintf(c[i++], 64, "%s", curve ? "" : row->pass ? "1" : "0");
}

static void phys_json(struct json_out *j, const void *ctx)
{
	const struct phys_rows *rs = ctx;
	json_kv_double(j, "dambreak_wall_friction", rs->friction);
	json_kv_double(j, "cfl", rs->cfl);
	json_key(j, "checks");
	json_begin_object(j);
	json_kv_string(j, "dambreak",
		       "Martin and Moyce (1952), n^2 = 2: surge front Z = z / a and residual height "
		       "H / (n^2 a) against T = t sqrt(2 g / a); *_curve rows are the simulation "
		       "sampled, the others its linear interpolation at the tabulated points "
		       "(results/published/martin_moyce1952.csv); surge_front: the simulated front at T "
		       "against the experiment at T + 0.175 (the time correction of the Martin and Moyce "
		       "example of the VOF code Lethe, results/published/lethe_dambreak.csv), judged for "
		       "T in [1, 3]; surge_speed: the least-squares slope of Z against T over the "
		       "experiment's points with T in [1.5, 3] and of the simulation at the same T; "
		       "residual_height: at the experiment's T, judged for T in [1, 3]; each at "
		       "|rel_err| <= 0.10; surge_front_uncorrected: the front at the experiment's T, "
		       "not judged");
	json_kv_string(j, "rest",
		       "water at rest, no jitter, box that fits it, relaxed by 3 s of kinetic damping "
		       "(rest_relaxed_height: its height over the lattice's, not judged), then 1 s: "
		       "residual height over its start and mean density of the particles more than h "
		       "below the top, each within 0.01 of 1 or rho0 at every sample; the largest "
		       "density shown, not judged (the floor's hydrostatic compression)");
	json_kv_string(j, "leak",
		       "the dam break of each leak column (tank 4 widths) for at least 3 s of flow, "
		       "through the impact on the far wall and the slosh back: leak_clamps, the "
		       "coordinates the last-resort clamp put back on a wall, and leak_outside, the most "
		       "particles outside the box at one look (every 0.05 s), each judged against 0; "
		       "leak_cfl_number dt (c + v) / (h / 2) and leak_force_number dt sqrt(a / (h / 2)) "
		       "for the fastest and most accelerated particle at a look (h / 2 the smoothing "
		       "length), judged against Monaghan's 0.4 and 0.25; at every look, not judged: "
		       "leak_centre_curve (the water's mean x over the box's length, from the back "
		       "wall), leak_clamps_curve (clamped so far), leak_outside_curve, leak_cfl_curve "
		       "and leak_force_curve (that look's fastest and most accelerated particle); with "
		       "--trace, that look's fastest particle closely (harness/sph/sph_trace.h): "
		       "trace_particle (its index), trace_x, _y, _z [m], trace_speed [m/s], "
		       "trace_cfl_number, trace_wall_h (to the nearest face of the box, / h), "
		       "trace_walls_near (faces within h: 1 a wall, 2 an edge, 3 a corner), "
		       "trace_fluid_h and trace_boundary_h (to the nearest fluid and boundary "
		       "particle, / h), trace_fluid_neighbours and trace_boundary_neighbours (within "
		       "h), trace_density (rho / rho0, by the double reference), trace_acc_* (the "
		       "magnitude of each term of its acceleration by the double reference: fluid and "
		       "wall pressure and viscosity, gravity, their sum as trace_acc_reference; the "
		       "variant's own as trace_acc_variant) [m/s^2] and trace_dominant (the largest "
		       "term: 0 fluid pressure, 1 fluid viscosity, 2 wall pressure, 3 wall viscosity, "
		       "4 gravity)");
	json_end_object(j);
	json_kv_string(j, "physics", "reference/sph_ref.h: Mueller 2003, clamped pressure, walls of boundary particles (Akinci 2012), symplectic Euler");
	json_kv_string(j, "looks", "between two looks the variant is made again from the look's "
		       "particles, as a restart from a checkpoint makes it");
	json_key(j, "ends");
	json_begin_array(j);
	for (size_t e = 0; e < rs->nends; e++) {
		char hex[17];
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)rs->ends[e].fnv);
		json_begin_object(j);
		json_kv_string(j, "check", phys_check_label(rs->o, rs->ends[e].check));
		json_kv_int(j, "step", (long long)rs->ends[e].step);
		json_kv_string(j, "state_fnv1a64", hex);
		json_end_object(j);
	}
	json_end_array(j);
	if (rs->o->checkpoint) {
		json_key(j, "checkpoints");
		json_begin_object(j);
		json_kv_string(j, "path", rs->o->checkpoint);
		if (rs->o->ck_every_steps > 0)
			json_kv_int(j, "every_steps", rs->o->ck_every_steps);
		else
			json_kv_double(j, "every_s", rs->o->ck_every_s);
		json_kv_int(j, "written", (long long)rs->checkpoints);
		json_end_object(j);
	}
	if (rs->resume) {
		json_key(j, "restarted_from");
		json_begin_object(j);
		json_kv_string(j, "checkpoint", rs->resume->path);
		json_kv_string(j, "check", phys_check_label(rs->o, rs->resume->check));
		json_kv_int(j, "step", (long long)rs->resume->ck.state.step);
		json_end_object(j);
	}
}

/* ---- the command ---------------------------------------------------------- */

static void phys_help(void)
{
	printf("usage: harness sph physics [--variant NAME] [--check dambreak|rest|leak|all]\n"
	       "                           [--column C] [--rest-column C] [--leak-columns LIST]\n"
	       "                           [--leak-seconds S] [--out FILE.csv]\n"
	       "                           [--checkpoint FILE [--checkpoint-every N|Ss]]\n"
	       "                           [--restart FILE]\n\n"
	       "What a variant's water does over time, against experiment and known answers:\n"
	       "  dambreak  the column of Martin and Moyce (1952), 2 x as high as wide,\n"
	       "            collapses; against their tables, each within 10 %%, for\n"
	       "            T = t sqrt(2g/a) in [1, 3]: the surge front at T against the\n"
	       "            experiment at T + 0.175 (a published correction for the\n"
	       "            experiment's release), the front's speed over [1.5, 3] and\n"
	       "            the residual height; the front's uncorrected lead is shown\n"
	       "  rest      water at rest, relaxed first (3 s of kinetic damping), for\n"
	       "            1 s: its height and the mean density of its bulk within\n"
	       "            1 %% at every sample (the densest particle shown, not judged)\n"
	       "  leak      the dam break of each leak column through the impact on the\n"
	       "            far wall and the slosh back: no coordinate clamped back\n"
	       "            onto a wall, no particle outside the box, and a time step\n"
	       "            within Monaghan's CFL (0.4) and force (0.25) conditions\n"
	       "            for the fastest particle at every look (every 0.05 s)\n\n"
	       "  --variant, -v NAME  one SPH variant (sph-gpu-verlet where a GPU is, else\n"
	       "                      sph-cpu-grid)\n"
	       "  --check C           dambreak, rest, leak or all (all)\n"
	       "  --column C          the dam break's column (martin-moyce), a name or\n"
	       "                      NXxNYxNZ[@L]\n"
	       "  --rest-column C     the still water's column (%s; jitter 0)\n"
	       "  --leak-columns LIST the leak check's columns, comma-separated\n"
	       "                      (" SPH_PHYSICS_LEAK_COLUMNS ")\n"
	       "  --leak-seconds S    seconds of flow the leak check runs (3, at least 3)\n"
	       "  --wall-layers N     planes of boundary particles per wall (1 .. 8; the\n"
	       "                      scene's default otherwise)\n"
	       "  --lid, --no-lid     boundary particles close the box's top as well (the\n"
	       "                      default), or the box is open\n"
	       "  --wall-height X     the walls X times the column's height (1 .. 8; 2)\n"
	       "  --seed S            jitter of the dam break's lattice (42)\n"
	       "  --wall-friction F   the dam break's walls: 0 free slip (the default),\n"
	       "                      1 as if the wall were fluid at rest (0 .. 10)\n"
	       "  --cfl C             the time step dt = C h / c, h the support radius (0.14,\n"
	       "                      the water's: reference/sph_ref.h; 0.01 .. 0.5)\n"
	       "  --gpu INDEX         the GPU to use among those visible, as for 'harness sph run'\n"
	       "  --trace             the leak check's fastest particle at every look, closely:\n"
	       "                      its place against the walls and corners, its nearest\n"
	       "                      fluid and boundary particles, its neighbours, and its\n"
	       "                      acceleration split into fluid and wall pressure and\n"
	       "                      viscosity and gravity by the double reference (trace_*\n"
	       "                      rows)\n"
	       "  --checkpoint FILE   write the run's state there at a look every so often\n"
	       "                      (atomically; FILE.json names its build, variant, scene\n"
	       "                      and step), so that a run cut by a time limit goes on\n"
	       "                      with --restart FILE\n"
	       "  --checkpoint-every N|Ss  at the first look N steps or S seconds of wall\n"
	       "                      clock after the last checkpoint (300s)\n"
	       "  --restart FILE      go on from a checkpoint of the same command: the same\n"
	       "                      binary, variant and options (else refused); the run\n"
	       "                      ends bit for bit where an unbroken one does\n"
	       "  --out, -o FILE.csv  every sample and point (results/local/sph-physics-<UTC>.csv)\n"
	       "  --quiet, -q         no table, no progress\n"
	       "Between two looks the variant is made again from the look's particles, as a\n"
	       "restart makes it. An interrupted run says which checkpoint goes on.\n"
	       "Exit status: 0 every judged value within its bound, 1 one outside or a\n"
	       "failure, 2 bad input or a checkpoint refused.\n",
	       SPH_PHYSICS_REST_COLUMN);
}

static int phys_default_variant(void)
{
	static const char *const pref[] = { "sph-gpu-verlet", "sph-cpu-grid" };
	for (size_t p = 0; p < 2; p++)
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
			if (strcmp(sph_variants[i].name, pref[p]) == 0 &&
			    sph_variant_available(&sph_variants[i], NULL))
				return (int)i;
	return -1;
}

/* A comma-separated list of columns into o->leak_cols. */
static int phys_parse_leak_columns(const char *list, struct phys_options *o, char *err,
				   size_t errlen)
{
	char buf[512];
	if (strlen(list) >= sizeof buf) {
		snprintf(err, errlen, "--leak-columns: list too long");
		return CLI_USAGE;
	}
	snprintf(buf, sizeof buf, "%s", list);
	o->nleak = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nleak == SPH_PHYSICS_LEAK_MAX_COLUMNS) {
			snprintf(err, errlen, "--leak-columns: at most %d columns",
				 SPH_PHYSICS_LEAK_MAX_COLUMNS);
			return CLI_USAGE;
		}
		if (sph_scene_column_parse(tok, &o->leak_cols[o->nleak], err, errlen) != 0)
			return CLI_USAGE;
		o->nleak++;
	}
	if (o->nleak == 0) {
		snprintf(err, errlen, "--leak-columns: no column given");
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* Seconds between checkpoints when --checkpoint-every is not given. */
#define PHYS_CHECKPOINT_EVERY_S 300.0

/* --checkpoint-every: STEPS, or S seconds of wall clock when it ends in s. */
static int phys_parse_every(const char *arg, struct phys_options *o, char *err, size_t errlen)
{
	const size_t len = strlen(arg);
	if (len > 1 && arg[len - 1] == 's') {
		char num[64];
		snprintf(num, sizeof num, "%.*s", (int)(len - 1), arg);
		o->ck_every_steps = 0;
		return cli_parse_double("--checkpoint-every", num, 1, 86400, &o->ck_every_s, err,
					errlen);
	}
	double steps;
	int rc = cli_parse_double("--checkpoint-every", arg, 1, 1e9, &steps, err, errlen);
	if (rc == CLI_OK && steps != floor(steps)) {
		snprintf(err, errlen, "--checkpoint-every: '%s' is neither whole steps nor seconds "
			 "ending in s", arg);
		rc = CLI_USAGE;
	}
	o->ck_every_steps = (long)steps;
	return rc;
}

static int phys_parse(int argc, char **argv, struct phys_options *o, bool *help, char *err,
		      size_t errlen)
{
	enum { OPT_CHECK = 300, OPT_COLUMN, OPT_REST_COLUMN, OPT_SEED, OPT_FRICTION, OPT_LEAK_COLUMNS,
	       OPT_LEAK_SECONDS, OPT_WALL_LAYERS, OPT_LID, OPT_NO_LID, OPT_WALL_HEIGHT, OPT_CFL,
	       OPT_GPU, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESTART, OPT_TRACE };
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "column", required_argument, NULL, OPT_COLUMN },
		{ "rest-column", required_argument, NULL, OPT_REST_COLUMN },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "wall-friction", required_argument, NULL, OPT_FRICTION },
		{ "leak-columns", required_argument, NULL, OPT_LEAK_COLUMNS },
		{ "leak-seconds", required_argument, NULL, OPT_LEAK_SECONDS },
		{ "wall-layers", required_argument, NULL, OPT_WALL_LAYERS },
		{ "lid", no_argument, NULL, OPT_LID },
		{ "no-lid", no_argument, NULL, OPT_NO_LID },
		{ "wall-height", required_argument, NULL, OPT_WALL_HEIGHT },
		{ "cfl", required_argument, NULL, OPT_CFL },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
		{ "checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY },
		{ "restart", required_argument, NULL, OPT_RESTART },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->variant = -1;
	o->gpu = -1;
	o->dambreak = o->rest = o->leak = true;
	o->leak_s = SPH_PHYSICS_LEAK_MIN_S;
	o->seed = 42;
	o->friction = SPH_WATER_FRICTION;
	o->ck_every_s = PHYS_CHECKPOINT_EVERY_S;
	*help = false;
	if (sph_scene_column_parse("martin-moyce", &o->dam_col, err, errlen) != 0 ||
	    sph_scene_column_parse(SPH_PHYSICS_REST_COLUMN, &o->rest_col, err, errlen) != 0 ||
	    phys_parse_leak_columns(SPH_PHYSICS_LEAK_COLUMNS, o, err, errlen) != CLI_OK)
		return CLI_USAGE;
	int rc = CLI_OK, c;
	optind = 0;
	opterr = 0;
	while (rc == CLI_OK && (c = getopt_long(argc, argv, ":v:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if ((o->variant = sph_variant_one(optarg, err, errlen)) < 0)
				rc = CLI_USAGE;
			break;
		case OPT_CHECK:
			o->dambreak = strcmp(optarg, "dambreak") == 0 || strcmp(optarg, "all") == 0;
			o->rest = strcmp(optarg, "rest") == 0 || strcmp(optarg, "all") == 0;
			o->leak = strcmp(optarg, "leak") == 0 || strcmp(optarg, "all") == 0;
			if (!o->dambreak && !o->rest && !o->leak) {
				snprintf(err, errlen, "unknown check '%s' (dambreak, rest, leak or all)",
					 optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_COLUMN:
			if (sph_scene_column_parse(optarg, &o->dam_col, err, errlen) != 0)
				rc = CLI_USAGE;
			break;
		case OPT_REST_COLUMN:
			if (sph_scene_column_parse(optarg, &o->rest_col, err, errlen) != 0)
				rc = CLI_USAGE;
			break;
		case OPT_LEAK_COLUMNS: rc = phys_parse_leak_columns(optarg, o, err, errlen); break;
		case OPT_LEAK_SECONDS:
			rc = cli_parse_double("--leak-seconds", optarg, SPH_PHYSICS_LEAK_MIN_S, 60,
					      &o->leak_s, err, errlen);
			break;
		case OPT_WALL_LAYERS: {
			double l;
			rc = cli_parse_double("--wall-layers", optarg, 1, SPH_REF_MAX_LAYERS, &l, err,
					      errlen);
			if (rc == CLI_OK && l != floor(l)) {
				snprintf(err, errlen, "--wall-layers: '%s' is not a whole number", optarg);
				rc = CLI_USAGE;
			}
			o->layers = (int)l;
			break;
		}
		case OPT_LID: o->lid = 1; break;
		case OPT_NO_LID: o->lid = -1; break;
		case OPT_WALL_HEIGHT:
			rc = cli_parse_double("--wall-height", optarg, 1, SPH_SCENE_MAX_TOP, &o->top, err,
					      errlen);
			break;
		case OPT_SEED: rc = cli_parse_u64("--seed", optarg, &o->seed, err, errlen); break;
		case OPT_CFL:
			rc = cli_parse_double("--cfl", optarg, 0.01, 0.5, &o->cfl, err, errlen);
			break;
		case OPT_FRICTION:
			rc = cli_parse_double("--wall-friction", optarg, 0, 10, &o->friction, err, errlen);
			break;
		case OPT_GPU: rc = cli_parse_gpu(optarg, &o->gpu, err, errlen); break;
		case OPT_CHECKPOINT: o->checkpoint = optarg; break;
		case OPT_RESTART: o->restart = optarg; break;
		case OPT_TRACE: o->trace = true; break;
		case OPT_CHECKPOINT_EVERY: rc = phys_parse_every(optarg, o, err, errlen); break;
		case 'o': o->out = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': *help = true; break;
		default: rc = cli_getopt_error(c, argv[optind - 1], "sph physics", err, errlen); break;
		}
	}
	if (rc == CLI_OK && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		rc = CLI_USAGE;
	}
	o->rest_col.jitter = 0.0;
	/* --wall-layers applies to every column the checks build */
	o->dam_col.layers = o->rest_col.layers = o->layers;
	o->dam_col.lid = o->rest_col.lid = o->lid;
	o->dam_col.top = o->top;
	for (size_t c = 0; c < o->nleak; c++) {
		o->leak_cols[c].layers = o->layers;
		o->leak_cols[c].lid = o->lid;
		o->leak_cols[c].top = o->top;
	}
	return rc;
}

/* The judged rows of the first nrows of rs, worst first per quantity,
 * as a short table. */
/* The trace value of quantity q on column at time t (NAN when none). */
static double phys_trace_at(const struct phys_rows *rs, size_t nrows, const char *column,
			    const char *q, double t)
{
	for (size_t r = 0; r < nrows; r++)
		if (rs->r[r].t == t && strcmp(rs->r[r].quantity, q) == 0 &&
		    strcmp(rs->r[r].column, column) == 0)
			return rs->r[r].sim;
	return NAN;
}

/* With --trace: the look of column whose fastest particle had the
 * largest CFL number, that particle closely. */
static void phys_print_trace(const struct phys_rows *rs, size_t nrows, const char *column)
{
	const struct phys_row *worst = NULL;
	for (size_t r = 0; r < nrows; r++)
		if (strcmp(rs->r[r].quantity, "trace_cfl_number") == 0 &&
		    strcmp(rs->r[r].column, column) == 0 && (!worst || rs->r[r].sim > worst->sim))
			worst = &rs->r[r];
	if (!worst)
		return;
	const double t = worst->t;
#define TR(q) phys_trace_at(rs, nrows, column, "trace_" q, t)
	const int dom = (int)TR("dominant");
	static const char *const near[4] = { "in the bulk", "at a wall", "at an edge", "in a corner" };
	const int wn = (int)TR("walls_near");
	printf("%-20s %-18s its fastest particle at %.3f s (CFL %.3f): particle %.0f at (%.4f, %.4f, "
	       "%.4f) m, %.2f m/s, %s (%.2f h from the box's face), nearest fluid %.2f h and "
	       "boundary %.2f h, %.0f fluid and %.0f boundary neighbours, rho / rho0 %.3f; "
	       "acceleration %.4g m/s^2 (variant %.4g), mostly %s (%.4g)\n",
	       "trace", column, t, worst->sim, TR("particle"), TR("x"), TR("y"), TR("z"), TR("speed"),
	       wn >= 0 && wn <= 3 ? near[wn] : "?", TR("wall_h"), TR("fluid_h"), TR("boundary_h"),
	       TR("fluid_neighbours"), TR("boundary_neighbours"), TR("density"),
	       TR("acc_reference"), TR("acc_variant"),
	       dom >= 0 && dom < SPH_TRACE_TERMS ? sph_trace_term_names[dom] : "?",
	       dom >= 0 && dom < SPH_TRACE_TERMS
		       ? phys_trace_at(rs, nrows, column, trace_curve_names[TRACE_ACC + dom], t)
		       : NAN);
#undef TR
}

static void phys_print(const struct phys_rows *rs, size_t nrows)
{
	static const char *const qs[] = { "surge_front", "surge_speed", "residual_height",
					  "rest_height", "rest_density_bulk", "rest_density_max" };
	printf("%-20s %-18s %7s %9s %9s %9s %6s %s\n", "check", "quantity", "judged", "worst_T/t",
	       "rel_err", "tol", "pass", "clamps");
	for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
		const struct phys_row *worst = NULL;
		size_t judged = 0, failed = 0;
		for (size_t r = 0; r < nrows; r++) {
			const struct phys_row *row = &rs->r[r];
			if (strcmp(row->quantity, qs[q]) != 0 || !row->judged)
				continue;
			judged++;
			failed += !row->pass;
			if (!worst || !(fabs(row->rel) <= fabs(worst->rel)))
				worst = row;
		}
		if (!worst)
			continue;
		char at[32];
		double wt = isnan(worst->T) ? worst->t : worst->T;
		if (isnan(wt)) /* the speed: a window of T */
			snprintf(at, sizeof at, "%g-%g", SPH_PHYSICS_SPEED_T_LO, SPH_PHYSICS_T_HI);
		else
			snprintf(at, sizeof at, "%.3g", wt);
		printf("%-20s %-18s %7zu %9s %+9.4f %9.2f %6s %llu\n", worst->check, qs[q], judged, at,
		       worst->rel, worst->tol, failed ? "FAIL" : "ok", worst->clamps);
	}
	/* a leak column's four rows, in phys_leak's order */
	for (size_t r = 0; r + 3 < nrows; r++) {
		const struct phys_row *c = &rs->r[r], *o = c + 1, *cf = c + 2, *fo = c + 3;
		if (strcmp(c->quantity, "leak_clamps") != 0)
			continue;
		printf("%-20s %-18s %.1f s of flow: %.0f coordinates clamped, at most %.0f particles "
		       "outside the box; at the looks, CFL number %.3f (limit %.2f), force number "
		       "%.3f (limit %.2f): %s\n",
		       "leak", c->column, c->t, c->sim, o->sim, cf->sim, SPH_PHYSICS_CFL_LIMIT, fo->sim,
		       SPH_PHYSICS_FORCE_LIMIT,
		       c->pass && o->pass && cf->pass && fo->pass ? "ok" : "FAIL");
		phys_print_trace(rs, nrows, c->column);
	}
}

/* Prints (unless quiet) and writes the first nrows rows of rs to out,
 * with inc for an interrupted run (NULL: a whole one). 0, or -1 with err. */
static int phys_write(int argc, char **argv, const struct phys_rows *rs, size_t nrows, const char *out,
		      bool quiet, const struct results_incomplete *inc, char *err, size_t errlen)
{
	if (!quiet)
		phys_print(rs, nrows);
	struct results_table t = { .schema = "sph-harness-physics/1", .columns = phys_columns,
				   .ncols = PHYS_NCOLS, .nrows = nrows, .rows = rs,
				   .format = phys_format, .json = phys_json, .ctx = rs };
	struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL, inc };
	return results_write_table(out, &t, &meta, err, errlen);
}

/* What an interruption of sph physics keeps (core/keep.h): the rows of
 * the checks finished, a check being the unit. */
struct phys_keep {
	struct keep k;
	int argc;
	char **argv;
	struct phys_rows *rs;
	bool quiet;
};

static void phys_keep_label(void *ctx, size_t r, char *out)
{
	const struct phys_keep *m = ctx;
	snprintf(out, KEEP_LABEL, "%s", m->rs->done[r]);
}

static int phys_keep_write(void *ctx, const struct results_incomplete *inc, char *err,
			   size_t errlen)
{
	const struct phys_keep *m = ctx;
	return phys_write(m->argc, m->argv, m->rs, m->rs->kept, m->k.out, m->quiet, inc, err, errlen);
}

int sph_physics_command(int argc, char **argv)
{
	struct phys_options o;
	char err[512];
	bool help;
	if (phys_parse(argc - 1, argv + 1, &o, &help, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph physics", err);
	if (help) {
		phys_help();
		return CLI_OK;
	}
	if (o.variant < 0 && (o.variant = phys_default_variant()) < 0)
		return cli_usage_error("sph physics", "no SPH variant can run here");
	const struct sph_variant *v = &sph_variants[o.variant];
	const char *why;
	if (o.gpu >= 0 && cli_use_gpu(o.gpu, v->device == VARIANT_GPU, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph physics", err);
	if (!sph_variant_available(v, &why)) {
		snprintf(err, sizeof err, "%s cannot run here: %s", v->name, why);
		return cli_usage_error("sph physics", err);
	}
	static char def[128];
	const char *out = o.out;
	if (!out) {
		char stamp[32];
		sysinfo_utc_stamp(stamp, sizeof stamp);
		snprintf(def, sizeof def, "results/local/sph-physics-%s.csv", stamp);
		out = def;
		atomic_mkdir_p("results/local");
	}
	if (atomic_path_writable(out, err, sizeof err) != 0)
		return cli_usage_error("sph physics", err);

	static struct sysinfo_host host;
	static struct gpu_device_info gpu;
	sysinfo_host_read(&host);
	struct phys_rows rs = { .v = v, .device_name = host.cpu_model, .friction = o.friction,
				.cfl = o.cfl > 0.0 ? o.cfl : SPH_WATER_CFL };
	if (v->device == VARIANT_GPU && gpu_device_query(gpu_device_current(), &gpu) == 0)
		rs.device_name = gpu.name;
	rs.o = &o;
	phys_options_text(&o, rs.options, sizeof rs.options);
	if (o.checkpoint && atomic_path_writable(o.checkpoint, err, sizeof err) != 0)
		return cli_usage_error("sph physics", err);
	struct phys_resume resume;
	if (o.restart) {
		/* refused now, before any check runs: another binary, command,
		 * variant or options (the scene: when its check begins) */
		if (phys_resume_read(&rs, &resume, err, sizeof err) != 0 ||
		    sph_checkpoint_check(&resume.ck, o.restart, "sph physics", v->name, rs.options,
					 &resume.ck.state, err, sizeof err) != 0) {
			if (o.restart && resume.path)
				phys_resume_free(&resume);
			free(rs.r);
			free(rs.names);
			return cli_usage_error("sph physics", err);
		}
		rs.resume = &resume;
	}
	rs.ck_last_s = timing_now();
	bool all_pass = true;
	for (size_t r = 0; r < rs.n; r++) /* the restored checks' */
		if (rs.r[r].judged && !rs.r[r].pass)
			all_pass = false;
	int status = CLI_OK;
	struct progress pg;
	struct phys_keep keep = { .argc = argc, .argv = argv, .rs = &rs, .quiet = o.quiet };
	keep_init(&keep.k, out, &rs.checks_done, phys_keep_label, phys_keep_write, &keep);
	rs.keep = &keep.k;
	keep.k.unit = "check";
	progress_init(&pg, "sph physics", o.quiet);
	phys_plan(&o, &pg, &keep.k);
	interrupt_set_keeper(keep_rows, &keep.k);
	rs.pg = &pg;
	if ((o.dambreak && phys_dambreak(&o, &rs, &all_pass) != 0) ||
	    (o.rest && phys_rest(&o, &rs, &all_pass) != 0) ||
	    (o.leak && phys_leak(&o, &rs, &all_pass) != 0)) {
		progress_finish(&pg);
		interrupt_set_keeper(NULL, NULL);
		keep_free(&keep.k);
		free(rs.r);
		free(rs.names);
		if (rs.resume)
			phys_resume_free(rs.resume);
		return CLI_FAILED; /* nothing written: the run did not finish */
	}
	progress_finish(&pg);
	if (!all_pass)
		status = CLI_FAILED;
	interrupt_lock();
	keep.k.written = true;
	if (phys_write(argc, argv, &rs, rs.n, out, o.quiet, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		status = CLI_FAILED;
	} else if (!o.quiet) {
		printf("wrote %s%s\n", out, all_pass ? "" : " (a judged value is outside its bound)");
	}
	interrupt_unlock();
	interrupt_set_keeper(NULL, NULL);
	keep_free(&keep.k);
	free(rs.r);
	free(rs.names);
	if (rs.resume)
		phys_resume_free(rs.resume);
	return status;
}
