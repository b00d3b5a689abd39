/* plot.c - the chapter's figures from results CSVs, drawn by gnuplot */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../nbody/ceiling.h"
#include "plot_scaling.h"
#include "../core/results.h"
#include "plot_data.h"
#include "plot_from.h"
#include "plot_gnuplot.h"

/*
 * The figures. To add one: a line here, plots/<name>.gp, and a suite that
 * writes <name>.csv. Curves keyed by "n" are titled "N = ..." and sorted
 * by N; others keep the order of their first row.
 */
const struct plot_suite plot_suites[] = {
	{ "fig31-5", "unroll", "n", "gflop_per_s", "unroll factor", "GFLOP/s", true, 0 },
	{ "fig31-6", "n", "variant", "gflop_per_s", "N (bodies)", "GFLOP/s", true, 0 },
	{ "fig31-7", "tile_p", "n", "gflop_per_s", "tile size p (threads per block)", "GFLOP/s", true, 0 },
	{ "fig31-8", "threads_q", "n", "gflop_per_s", "threads per body q", "GFLOP/s", true, 0 },
	{ "steps", "n", "variant", "steps_per_s", "N (bodies)", "steps/s", true, 0 },
	{ "cpu-speedup", "n", "variant", "interactions_per_s", "N (bodies)", "interactions/s", true, 0 },
	{ "sph-scale", "n", "variant", "steps_per_s", "particles", "SPH steps/s", true, 0 },
	{ "sph-memory", "n", "variant", "aux_bytes_per_particle", "particles", "bytes per particle", true, 0 },
	{ "scaling", "n", "variant", "interactions_per_s", "N (bodies)", "interactions/s", true,
	  PLOT_STRONG },
	{ "weak-scaling", "ranks", "variant", "interactions_per_s", "ranks P", "interactions/s", true,
	  PLOT_WEAK },
};
const size_t plot_suite_count = sizeof plot_suites / sizeof plot_suites[0];

#define PLOT_DEFAULT_OUT "plots/out"
#define PLOT_SCRIPTS_DIR "plots"
#define PLOT_PUBLISHED_DIR "results/published"
#define PLOT_MAX_COMPARE 16

const struct plot_suite *plot_suite_find(const char *name)
{
	for (size_t i = 0; i < plot_suite_count; i++)
		if (strcmp(plot_suites[i].name, name) == 0)
			return &plot_suites[i];
	return NULL;
}

/* ---- one figure --------------------------------------------------------- */

struct plot_opts {
	const char *suite;      /* a name, or "all" */
	const char *from;       /* NULL: find per suite */
	const char *out;
	const char *scripts;
	const char *published;
	const char *compare[PLOT_MAX_COMPARE];
	size_t ncompare;
	char gnuplot[4096];
	char gpu[256], cpu[256];  /* this machine, for the default --from: */
	struct plot_machine machine; /* points at them */
};

/* The scratch directory of one figure and the files in it. */
struct plot_scratch {
	char dir[4096], data[4200], eff[4200], pub[4200], outbase[4200], log[4200];
};

static int plot_scratch_make(struct plot_scratch *s, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(s->dir, sizeof s->dir, "%s/harness-plot.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		snprintf(err, errlen, "cannot create a temporary directory in %s: %s",
			 tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	snprintf(s->data, sizeof s->data, "%s/curves.dat", s->dir);
	snprintf(s->eff, sizeof s->eff, "%s/efficiency.dat", s->dir);
	snprintf(s->pub, sizeof s->pub, "%s/published.dat", s->dir);
	snprintf(s->outbase, sizeof s->outbase, "%s/figure", s->dir);
	snprintf(s->log, sizeof s->log, "%s/gnuplot.log", s->dir);
	return 0;
}

static void plot_scratch_remove(struct plot_scratch *s)
{
	const char *suffix[] = { ".png", ".svg" };
	char p[4300];
	unlink(s->data);
	unlink(s->eff);
	unlink(s->pub);
	unlink(s->log);
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s%s", s->outbase, suffix[i]);
		unlink(p);
	}
	rmdir(s->dir);
}

/* Writes curves (and the second set, eff, when not NULL) to path. */
static int plot_write_file(const char *path, const struct plot_curves *c, const char *comment,
			   char *err, size_t errlen)
{
	FILE *fp = fopen(path, "w");
	int bad = !fp || plot_write_curves(fp, c, comment) != 0;
	if (fp && fclose(fp) != 0)
		bad = 1;
	if (bad)
		snprintf(err, errlen, "cannot write %s", path);
	return bad ? -1 : 0;
}

/* Writes the curves (eff, the second set, may be NULL) and the published
 * numbers into the scratch files. */
static int plot_write_inputs(const struct plot_opts *o, const struct plot_scratch *s,
			     const struct plot_curves *c, const struct plot_curves *eff,
			     const char *comment, char *err, size_t errlen)
{
	if (eff && plot_write_file(s->eff, eff, comment, err, errlen) != 0)
		return -1;
	FILE *d = fopen(s->data, "w"), *p = fopen(s->pub, "w");
	int rc = -1;
	if (!d || !p)
		snprintf(err, errlen, "cannot write in %s: %s", s->dir, strerror(errno));
	else if (plot_write_curves(d, c, comment) != 0)
		snprintf(err, errlen, "cannot write %s", s->data);
	else
		rc = plot_write_published(p, o->published, err, errlen);
	if (d && fclose(d) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %s", s->data);
		rc = -1;
	}
	if (p && fclose(p) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %s", s->pub);
		rc = -1;
	}
	return rc;
}

/* The distinct device names of c's curves, joined with " / ". */
static void plot_devices(const struct plot_curves *c, char *out, size_t outlen)
{
	out[0] = '\0';
	for (size_t i = 0; i < c->ncurves; i++) {
		const char *d = c->curves[i].device;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(c->curves[j].device, d) == 0;
		if (seen || !d[0])
			continue;
		size_t n = strlen(out);
		snprintf(out + n, outlen - n, "%s%s", n ? " / " : "", d);
	}
}

/* The block numbers (as written) of the curves with a pct_of_ceiling, as
 * a gnuplot word list ("0 1 3"), so a script can leave out curves that
 * have none (CPU rows) without a warning. */
static void plot_pct_curves(const struct plot_curves *c, char *out, size_t outlen)
{
	size_t *order = malloc((c->ncurves + 1) * sizeof *order);
	out[0] = '\0';
	if (!order)
		return;
	plot_curve_order(c, order);
	for (size_t k = 0; k < c->ncurves; k++) {
		bool any = false;
		for (size_t i = 0; i < c->npoints && !any; i++)
			any = c->points[i].curve == order[k] && isfinite(c->points[i].pct_of_ceiling);
		size_t n = strlen(out);
		if (any && n + 24 < outlen)
			snprintf(out + n, outlen - n, "%s%zu", n ? " " : "", k);
	}
	free(order);
}

/* The smallest (sign < 0) or largest x of c's points. */
static double plot_x_extreme(const struct plot_curves *c, int sign)
{
	double v = c->points[0].x;
	for (size_t i = 1; i < c->npoints; i++)
		if (sign * (c->points[i].x - v) > 0)
			v = c->points[i].x;
	return v;
}

/* The GeForce 8800 GTX's ceiling in the harness's model (ceiling.c), from
 * the chapter's specifications: 16 multiprocessors, 1.35 GHz. The figure
 * scripts put the published 8800 GTX numbers on the same scale as each
 * row's pct_of_ceiling with it. */
static double plot_gtx_ceiling(void)
{
	return ceiling_interactions_per_s(1, 0, 16, 1350.0, VARIANT_FP32);
}

/* The scaling figures' variables: the line styles of the rates (c, which
 * replace the palette's colours, set before) and of the efficiencies (eff;
 * plot_line_styles), and the efficiency axis (plot_efficiency_range). 0,
 * or -1 when out of memory or a list does not fit. */
static int plot_scaling_vars(const struct plot_curves *c, const struct plot_curves *eff,
			     char *vars, size_t len)
{
	struct plot_line_styles *st = malloc(2 * sizeof *st);
	if (!st || plot_line_styles(c, &st[0]) != 0 || plot_line_styles(eff, &st[1]) != 0) {
		free(st);
		return -1;
	}
	static const char *const names[2][4] = {
		{ "colours", "points", "dashes", "widths" },
		{ "effcolours", "effpoints", "effdashes", "effwidths" },
	};
	for (int k = 0; k < 2; k++) {
		plot_var_string(vars, len, names[k][0], st[k].colours);
		plot_var_string(vars, len, names[k][1], st[k].points);
		plot_var_string(vars, len, names[k][2], st[k].dashes);
		plot_var_string(vars, len, names[k][3], st[k].widths);
	}
	free(st);
	double lo, hi;
	plot_efficiency_range(eff, &lo, &hi);
	plot_var_number(vars, len, "effmin", lo);
	plot_var_number(vars, len, "effmax", hi);
	return 0;
}

/* What one figure draws: its curves (and the second set, eff, or NULL),
 * the machines for its title (NULL: the curves' device names) and the CSVs
 * they came from. */
struct plot_what {
	const struct plot_curves *c, *eff;
	const char *machines;
	const char *source;
};

/* Runs script on the scratch files and installs name.png and name.svg in
 * the output directory, made when missing. Returns PLOT_OK, PLOT_FAILED
 * (err says what gnuplot said, in one line), or PLOT_BAD_INPUT when the
 * directory cannot be made (with err). gnuplot's warnings on a figure it
 * drew are named on stderr in one line. */
static int plot_render(const struct plot_opts *o, const struct plot_scratch *s,
		       const struct plot_suite *suite, const struct plot_what *w,
		       const char *script, const char *name, char *err, size_t errlen)
{
	const struct plot_curves *c = w->c, *eff = w->eff;
	char vars[16384] = "", devices[1024], pct_curves[1024], from[4300], to[4300];
	char colours[4096], said[1024];
	size_t lines = eff && eff->ncurves > c->ncurves ? eff->ncurves : c->ncurves;
	if (w->machines)
		snprintf(devices, sizeof devices, "%s", w->machines);
	else
		plot_devices(c, devices, sizeof devices);
	plot_pct_curves(c, pct_curves, sizeof pct_curves);
	plot_palette(lines, colours, sizeof colours);
	plot_var_string(vars, sizeof vars, "datafile", s->data);
	plot_var_string(vars, sizeof vars, "pubfile", s->pub);
	plot_var_string(vars, sizeof vars, "outbase", s->outbase);
	plot_var_number(vars, sizeof vars, "ncurves", (double)c->ncurves);
	plot_var_string(vars, sizeof vars, "pctcurves", pct_curves);
	plot_var_string(vars, sizeof vars, "device", devices);
	plot_var_string(vars, sizeof vars, "source", w->source);
	plot_var_string(vars, sizeof vars, "colours", colours);
	plot_var_string(vars, sizeof vars, "suite", suite->name);
	plot_var_string(vars, sizeof vars, "xlabel", suite->xlabel);
	plot_var_string(vars, sizeof vars, "ylabel", suite->ylabel);
	plot_var_number(vars, sizeof vars, "logx", suite->logx);
	plot_var_number(vars, sizeof vars, "xmin", plot_x_extreme(c, -1));
	plot_var_number(vars, sizeof vars, "xmax", plot_x_extreme(c, +1));
	plot_var_number(vars, sizeof vars, "gtx_ceiling", plot_gtx_ceiling());
	if (eff && plot_scaling_vars(c, eff, vars, sizeof vars) != 0) {
		snprintf(err, errlen, "out of memory, or too many curves to style");
		return PLOT_FAILED;
	}
	if (eff) {
		plot_var_string(vars, sizeof vars, "efffile", s->eff);
		plot_var_number(vars, sizeof vars, "neff", (double)eff->ncurves);
	}
	int st = plot_run_gnuplot(o->gnuplot, vars, script, s->log);
	if (st != 0) {
		plot_gnuplot_says(s->log, false, said, sizeof said);
		snprintf(err, errlen, "gnuplot failed on %s (%s %d)%s%s", script,
			 st < 0 ? "signal or exec failure," : "exit status", st, said[0] ? ": " : "",
			 said);
		return PLOT_FAILED;
	}
	plot_gnuplot_says(s->log, true, said, sizeof said);
	if (said[0])
		fprintf(stderr, "harness: plot: %s: gnuplot warned on %s: %s\n", name, script, said);
	if (plot_mkdirs(o->out, err, errlen) != 0)
		return PLOT_BAD_INPUT;
	for (int i = 0; i < 2; i++) {
		const char *ext = i ? ".svg" : ".png";
		char file[300];
		snprintf(from, sizeof from, "%s%s", s->outbase, ext);
		snprintf(file, sizeof file, "%s%s", name, ext);
		if (!plot_path(to, sizeof to, o->out, file)) {
			snprintf(err, errlen, "output directory name too long: %s", o->out);
			return PLOT_FAILED;
		}
		if (plot_install(from, to, err, errlen) != 0)
			return PLOT_FAILED;
	}
	return PLOT_OK;
}

/* Draws one figure: scratch files, gnuplot, install. */
static int plot_figure(const struct plot_opts *o, const struct plot_suite *suite,
		       const struct plot_what *w, const char *script, const char *name, char *err,
		       size_t errlen)
{
	struct plot_scratch s;
	char comment[8192];
	if (w->c->npoints == 0) {
		snprintf(err, errlen, "%s: no valid timed rows to draw", w->source);
		return PLOT_FAILED;
	}
	if (plot_scratch_make(&s, err, errlen) != 0)
		return PLOT_FAILED;
	snprintf(comment, sizeof comment, "%s from %s (harness plot)", name, w->source);
	int rc = PLOT_FAILED;
	if (plot_write_inputs(o, &s, w->c, w->eff, comment, err, errlen) == 0)
		rc = plot_render(o, &s, suite, w, script, name, err, errlen);
	plot_scratch_remove(&s);
	return rc;
}

/* Checks path against its sidecar (a mismatched pair is refused; an
 * unchecked one is named on stdout), reads it and adds its curves to c.
 * PLOT_OK or PLOT_BAD_INPUT (err). */
static int plot_load(const struct plot_suite *suite, const char *path, const char *tag,
		     struct plot_curves *c, char *err, size_t errlen)
{
	struct csv_table t;
	char note[1024];
	int pair = results_pair_check(path, note, sizeof note);
	if (pair == RESULTS_PAIR_MISMATCH) {
		snprintf(err, errlen, "%s", note);
		return PLOT_BAD_INPUT;
	}
	if (pair != RESULTS_PAIR_OK)
		printf("%s: %s\n", path, note);
	if (csv_table_read(path, &t, err, errlen) != 0)
		return PLOT_BAD_INPUT;
	int rc = plot_collect(suite, &t, tag, c, err, errlen) == 0 ? PLOT_OK : PLOT_BAD_INPUT;
	csv_table_free(&t);
	return rc;
}

/* What a suite's data is called: "fig31-6.csv", or for a scaling suite
 * "scaling-pP.csv" then sep and what P is. */
static void plot_suite_files(const struct plot_suite *suite, const char *sep, char *out,
			     size_t len)
{
	if (suite->scaling)
		snprintf(out, len, "%s-pP.csv%sone file per number of ranks P", suite->name, sep);
	else
		snprintf(out, len, "%s.csv", suite->name);
}

/* A suite's data missing from dir: one line, for --suite all; a single
 * suite's is plot_all's error line instead. */
static void plot_say_missing(const struct plot_opts *o, const struct plot_suite *suite,
			     const char *dir)
{
	char files[300];
	plot_suite_files(suite, " (", files, sizeof files);
	if (strcmp(o->suite, "all") == 0)
		printf("%s: no %s%s in %s (skipped)\n", suite->name, files, suite->scaling ? ")" : "",
		       dir);
}

/* A scaling suite's figure from the per-rank CSVs of one directory. */
static int plot_one_scaling(const struct plot_opts *o, const struct plot_suite *suite, bool *found,
			    char *err, size_t errlen)
{
	char dir[4096], probe[300], script[4200], file[300], sources[8192], machines[1024];
	char why[1200] = "", here[600], csv[4400], name[310];
	*found = false;
	snprintf(probe, sizeof probe, "%s-p1", suite->name);
	snprintf(name, sizeof name, "%s.csv", probe);
	enum plot_from_why from = PLOT_FROM_MATCH;
	if (o->from)
		snprintf(dir, sizeof dir, "%s", o->from);
	else
		from = plot_find_from_or(PLOT_RESULTS_ROOT, probe, &o->machine,
					 strrchr(PLOT_FALLBACK_DIR_MULTI, '/') + 1, dir, sizeof dir);
	if (from == PLOT_FROM_NONE) {
		plot_machine_words(&o->machine, here, sizeof here);
		printf("%s: no %s.csv under %s/ measured on %s, nor in %s (skipped)\n", suite->name,
		       probe, PLOT_RESULTS_ROOT, here, PLOT_FALLBACK_DIR_MULTI);
		return PLOT_OK;
	}
	if (!o->from && plot_path(csv, sizeof csv, dir, name))
		plot_from_says(from, &o->machine, csv, why, sizeof why);
	struct plot_curves rate = { 0 }, eff = { 0 };
	int files = plot_scaling_collect(suite, dir, &rate, &eff, sources, sizeof sources, machines,
					 sizeof machines, err, errlen);
	int rc = files < 0 ? PLOT_BAD_INPUT : PLOT_OK;
	*found = files > 0;
	snprintf(file, sizeof file, "%s.gp", suite->name);
	if (files == 0)
		plot_say_missing(o, suite, dir);
	if (files > 0 && !plot_path(script, sizeof script, o->scripts, file)) {
		snprintf(err, errlen, "scripts directory name too long: %s", o->scripts);
		rc = PLOT_BAD_INPUT;
	}
	if (files > 0 && rc == PLOT_OK)
		rc = plot_figure(o, suite, &(struct plot_what){ &rate, &eff, machines, sources },
				 script, suite->name, err, errlen);
	if (files > 0 && rc == PLOT_OK)
		printf("%s: %s%s -> %s/%s.png, .svg\n", suite->name, sources, why, o->out,
		       suite->name);
	plot_curves_free(&rate);
	plot_curves_free(&eff);
	return rc;
}

/* One suite's figure from one directory. *found tells whether its CSV was there. */
static int plot_one(const struct plot_opts *o, const struct plot_suite *suite, bool *found,
		    char *err, size_t errlen)
{
	char dir[4096], csv[4200], script[4200], file[300], why[1200] = "";
	*found = false;
	if (suite->scaling)
		return plot_one_scaling(o, suite, found, err, errlen);
	enum plot_from_why from = PLOT_FROM_MATCH;
	if (o->from)
		snprintf(dir, sizeof dir, "%s", o->from);
	else
		from = plot_find_from(PLOT_RESULTS_ROOT, suite->name, &o->machine, dir, sizeof dir);
	if (from == PLOT_FROM_NONE) {
		plot_machine_words(&o->machine, why, sizeof why);
		printf("%s: no %s.csv under %s/ measured on %s, nor in %s (skipped)\n", suite->name,
		       suite->name, PLOT_RESULTS_ROOT, why, PLOT_FALLBACK_DIR);
		return PLOT_OK;
	}
	snprintf(file, sizeof file, "%s.csv", suite->name);
	if (!plot_path(csv, sizeof csv, dir, file) || access(csv, F_OK) != 0) {
		plot_say_missing(o, suite, dir);
		return PLOT_OK;
	}
	*found = true;
	snprintf(file, sizeof file, "%s.gp", suite->name);
	if (!plot_path(script, sizeof script, o->scripts, file)) {
		snprintf(err, errlen, "scripts directory name too long: %s", o->scripts);
		return PLOT_BAD_INPUT;
	}
	struct plot_curves c = { 0 };
	int rc = plot_load(suite, csv, NULL, &c, err, errlen);
	if (rc == PLOT_OK && c.npoints == 0) {
		/* a suite that could not run here leaves nothing to draw */
		printf("%s: %s has no valid timed rows (skipped)\n", suite->name, csv);
		*found = false;
		plot_curves_free(&c);
		return PLOT_OK;
	}
	if (o->from)
		why[0] = '\0';
	else
		plot_from_says(from, &o->machine, csv, why, sizeof why);
	if (rc == PLOT_OK)
		rc = plot_figure(o, suite, &(struct plot_what){ &c, NULL, NULL, csv }, script,
				 suite->name, err, errlen);
	if (rc == PLOT_OK)
		printf("%s: %s%s -> %s/%s.png, .svg\n", suite->name, csv, why, o->out, suite->name);
	plot_curves_free(&c);
	return rc;
}

/* The tag after the device in directory i's curve titles: the directory
 * when another directory has the same device, else nothing. */
static void plot_compare_tag(const struct plot_opts *o, size_t i, const char *const *devices,
			     char *out, size_t outlen)
{
	bool shared = false;
	for (size_t j = 0; j < o->ncompare; j++)
		shared = shared || (j != i && devices[j] && strcmp(devices[j], devices[i]) == 0);
	if (shared)
		snprintf(out, outlen, " [%s]", o->compare[i]);
	else
		out[0] = '\0';
}

/* Curves of two directories with the same title (rows of one device
 * name in both, such as the host CPU of two GPU machines) get their
 * directory appended, so that the key tells them apart. table_dir[k] is
 * the --compare index table k came from. */
static int plot_tag_shared_titles(const struct plot_opts *o, const size_t *table_dir,
				  struct plot_curves *c, char *err, size_t errlen)
{
	bool *shared = calloc(c->ncurves + 1, sizeof *shared);
	if (!shared) {
		snprintf(err, errlen, "out of memory");
		return PLOT_BAD_INPUT;
	}
	for (size_t a = 0; a < c->ncurves; a++)
		for (size_t b = a + 1; b < c->ncurves; b++)
			if (c->curves[a].table != c->curves[b].table &&
			    strcmp(c->curves[a].title, c->curves[b].title) == 0)
				shared[a] = shared[b] = true;
	int rc = PLOT_OK;
	for (size_t a = 0; a < c->ncurves && rc == PLOT_OK; a++) {
		if (!shared[a] || c->curves[a].table >= PLOT_MAX_COMPARE)
			continue;
		const char *dir = o->compare[table_dir[c->curves[a].table]];
		size_t len = strlen(c->curves[a].title) + strlen(dir) + 4;
		char *t = malloc(len);
		if (!t) {
			snprintf(err, errlen, "out of memory");
			rc = PLOT_BAD_INPUT;
			break;
		}
		snprintf(t, len, "%s [%s]", c->curves[a].title, dir);
		free(c->curves[a].title);
		c->curves[a].title = t;
	}
	free(shared);
	return rc;
}

/* Whether a --compare directory holds a scaling suite's per-rank CSVs. */
static bool plot_compare_has_scaling(const struct plot_opts *o, const struct plot_suite *suite)
{
	bool any = false;
	for (size_t i = 0; i < o->ncompare && !any; i++) {
		char **files = plot_list_csv(o->compare[i]);
		size_t len = strlen(suite->name);
		for (size_t k = 0; files && files[k] && !any; k++) {
			const char *base = strrchr(files[k], '/') + 1;
			any = strncmp(base, suite->name, len) == 0 && strncmp(base + len, "-p", 2) == 0;
		}
		plot_free_list(files);
	}
	return any;
}

/* One suite overlaid from every --compare directory that holds it. */
static int plot_compare_one(const struct plot_opts *o, const struct plot_suite *suite,
			    bool *found, char *err, size_t errlen)
{
	char csv[PLOT_MAX_COMPARE][4200], *devices[PLOT_MAX_COMPARE] = { 0 };
	char script[4200], name[256], tag[4200], sources[8192] = "", file[300];
	struct plot_curves c = { 0 };
	int rc = PLOT_OK;
	snprintf(name, sizeof name, "compare-%s", suite->name);
	if (suite->scaling) {
		/* a scaling figure merges one directory's per-rank files */
		*found = false;
		if (plot_compare_has_scaling(o, suite))
			printf("%s: not drawn: --compare overlays one CSV per directory; the scaling "
			       "figures are drawn per directory (harness plot --suite %s --from DIR)\n",
			       name, suite->name);
		else
			printf("%s: no %s-p*.csv in the --compare directories (skipped)\n", name,
			       suite->name);
		return PLOT_OK;
	}
	snprintf(file, sizeof file, "%s.csv", suite->name);
	for (size_t i = 0; i < o->ncompare; i++) {
		bool ok = plot_path(csv[i], sizeof csv[i], o->compare[i], file);
		devices[i] = ok && access(csv[i], F_OK) == 0 ? plot_csv_device(csv[i]) : NULL;
	}
	size_t table_dir[PLOT_MAX_COMPARE];
	size_t held = 0;
	for (size_t i = 0; i < o->ncompare; i++)
		held += devices[i] != NULL;
	for (size_t i = 0; i < o->ncompare && rc == PLOT_OK; i++) {
		if (!devices[i]) {
			/* an overlay with a directory fewer: say so, not silently */
			if (held > 0)
				printf("compare-%s: no %s (left out)\n", suite->name, csv[i]);
			continue;
		}
		plot_compare_tag(o, i, (const char *const *)devices, tag, sizeof tag);
		size_t before = c.npoints;
		if (c.ntables < PLOT_MAX_COMPARE)
			table_dir[c.ntables] = i;
		rc = plot_load(suite, csv[i], tag, &c, err, errlen);
		if (rc == PLOT_OK && c.npoints == before) {
			printf("compare-%s: %s has no valid timed rows (left out)\n", suite->name, csv[i]);
			continue;
		}
		size_t n = strlen(sources);
		if (n + strlen(csv[i]) + 3 < sizeof sources)
			sprintf(sources + n, "%s%s", n ? ", " : "", csv[i]);
	}
	*found = sources[0] != '\0';
	if (rc == PLOT_OK)
		rc = plot_tag_shared_titles(o, table_dir, &c, err, errlen);
	if (rc == PLOT_OK && !*found)
		printf("%s: no %s with valid timed rows in the --compare directories (skipped)\n",
		       name, file);
	if (!plot_path(script, sizeof script, o->scripts, "compare.gp")) {
		snprintf(err, errlen, "scripts directory name too long: %s", o->scripts);
		rc = PLOT_BAD_INPUT;
	}
	if (rc == PLOT_OK && *found)
		rc = plot_figure(o, suite, &(struct plot_what){ &c, NULL, NULL, sources }, script,
				 name, err, errlen);
	if (rc == PLOT_OK && *found)
		printf("%s: %s -> %s/%s.png, .svg\n", name, sources, o->out, name);
	for (size_t i = 0; i < o->ncompare; i++)
		free(devices[i]);
	plot_curves_free(&c);
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

#define PLOT_USAGE \
	"usage: harness plot [--suite NAME|all] [--from DIR] [--out DIR] [--compare DIR1 DIR2 ...]"

static int plot_usage_error(const char *what, const char *value)
{
	if (value)
		fprintf(stderr, "harness: plot: %s '%s' (%s)\n", what, value, PLOT_USAGE);
	else
		fprintf(stderr, "harness: plot: %s (%s)\n", what, PLOT_USAGE);
	return PLOT_BAD_INPUT;
}

static void plot_help(void)
{
	printf("%s\n\n"
	       "Draws the chapter's figures with gnuplot (plots/<suite>.gp) from DIR/<suite>.csv:\n"
	       "PNG (pngcairo) and SVG in --out DIR (default %s).\n"
	       "Suites:", PLOT_USAGE, PLOT_DEFAULT_OUT);
	for (size_t i = 0; i < plot_suite_count; i++)
		printf(" %s", plot_suites[i].name);
	printf("\n--from DIR   default, per suite: the newest <suite>.csv measured on this\n"
	       "             machine's GPU (without a GPU: on this CPU alone, no GPU in its\n"
	       "             sidecar) in results/*/ or results/local/*/, else in another\n"
	       "             results/*/*/ (special-purpose runs); else %s (the scaling\n"
	       "             suites: %s, where the scaling model is too)\n"
	       "--compare DIR1 DIR2 ...  overlay the suite from several directories (devices),\n"
	       "             raw and as %% of each device's ceiling: compare-<suite>.png/.svg\n"
	       "--scripts DIR, --published DIR  the .gp scripts (%s) and the published\n"
	       "             numbers (%s/*.csv)\n"
	       "Exit status: 0 drawn (with --compare: something drawn; a figure that\n"
	       "             cannot be drawn is one line on stderr), 1 a figure failed,\n"
	       "             2 bad input or no gnuplot.\n",
	       PLOT_FALLBACK_DIR, PLOT_FALLBACK_DIR_MULTI, PLOT_SCRIPTS_DIR, PLOT_PUBLISHED_DIR);
}

/* The option's value: "--opt=V" or the next argument. NULL when missing. */
static const char *plot_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = strlen(opt);
	if (strncmp(argv[*i], opt, len) == 0 && argv[*i][len] == '=')
		return argv[*i] + len + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool plot_is_opt(const char *a, const char *opt)
{
	size_t len = strlen(opt);
	return strncmp(a, opt, len) == 0 && (a[len] == '\0' || a[len] == '=');
}

/* Takes the directories after --compare, up to the next option. */
static int plot_take_compare(int argc, char **argv, int *i, struct plot_opts *o)
{
	while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
		if (o->ncompare == PLOT_MAX_COMPARE)
			return plot_usage_error("--compare takes at most 16 directories; extra",
						argv[*i + 1]);
		o->compare[o->ncompare++] = argv[++*i];
	}
	return o->ncompare ? PLOT_OK : plot_usage_error("--compare needs directories", NULL);
}

/* Parses argv into o: PLOT_OK, PLOT_BAD_INPUT, or -1 for --help. */
static int plot_parse_args(int argc, char **argv, struct plot_opts *o)
{
	static const char *const opts[] = { "--suite", "--from", "--out", "--scripts",
					    "--published" };
	const char **dest[] = { &o->suite, &o->from, &o->out, &o->scripts, &o->published };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k = 0;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return -1;
		if (strcmp(a, "--compare") == 0) {
			if (plot_take_compare(argc, argv, &i, o) != PLOT_OK)
				return PLOT_BAD_INPUT;
			continue;
		}
		while (k < 5 && !plot_is_opt(a, opts[k]))
			k++;
		if (k == 5)
			return plot_usage_error("unknown argument", a);
		const char *v = plot_value(argc, argv, &i, opts[k]);
		if (!v || !v[0])
			return plot_usage_error("missing value after", opts[k]);
		*dest[k] = v;
	}
	if (strcmp(o->suite, "all") != 0 && !plot_suite_find(o->suite))
		return plot_usage_error("unknown suite", o->suite);
	return PLOT_OK;
}

/* Checks what must hold before anything is drawn. PLOT_OK or PLOT_BAD_INPUT. */
static int plot_preflight(struct plot_opts *o)
{
	struct stat st;
	if (plot_find_gnuplot(o->gnuplot, sizeof o->gnuplot) != 0) {
		fprintf(stderr, "harness: plot: gnuplot not found on PATH (install gnuplot-nox, "
				"or run 'make figures', which installs it)\n");
		return PLOT_BAD_INPUT;
	}
	for (size_t i = 0; i < o->ncompare + (o->from != NULL); i++) {
		const char *d = i < o->ncompare ? o->compare[i] : o->from;
		if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "harness: plot: results directory %s: %s\n", d,
				stat(d, &st) != 0 ? strerror(errno) : "not a directory");
			return PLOT_BAD_INPUT;
		}
	}
	char err[4400];
	if (plot_out_usable(o->out, err, sizeof err) != 0) {
		fprintf(stderr, "harness: plot: %s\n", err);
		return PLOT_BAD_INPUT;
	}
	if (!o->from && !o->ncompare)
		plot_this_machine(o->gpu, o->cpu, &o->machine);
	return PLOT_OK;
}

/* Draws the selected suites; the worst status wins, except that with
 * --compare a figure gnuplot could not draw is a line on stderr and the
 * status is 0 when another figure was drawn. */
static int plot_all(const struct plot_opts *o)
{
	char err[8192];
	int status = PLOT_OK;
	size_t found_csv = 0, drawn = 0, failed = 0;
	for (size_t i = 0; i < plot_suite_count; i++) {
		const struct plot_suite *s = &plot_suites[i];
		bool found;
		if (strcmp(o->suite, "all") != 0 && strcmp(o->suite, s->name) != 0)
			continue;
		int rc = o->ncompare ? plot_compare_one(o, s, &found, err, sizeof err)
				     : plot_one(o, s, &found, err, sizeof err);
		if (rc != PLOT_OK)
			fprintf(stderr, "harness: plot: %s%s: %s%s\n", o->ncompare ? "compare-" : "",
				s->name, o->ncompare && rc == PLOT_FAILED ? "not drawn: " : "", err);
		if (rc == PLOT_FAILED)
			failed++;
		else if (rc > status)
			status = rc;
		found_csv += found;
		drawn += found && rc == PLOT_OK;
		if (rc == PLOT_BAD_INPUT && access(o->out, F_OK) != 0)
			return rc; /* the output directory cannot be made: said once */
	}
	if (failed && (!o->ncompare || drawn == 0) && status < PLOT_FAILED)
		status = PLOT_FAILED;
	if (found_csv == 0) {
		char files[300] = "<suite>.csv";
		if (strcmp(o->suite, "all") != 0)
			plot_suite_files(plot_suite_find(o->suite), ": ", files, sizeof files);
		fprintf(stderr, "harness: plot: no suite CSV (%s) in %s\n", files,
			o->ncompare ? "the --compare directories"
			: o->from   ? o->from
				    : "results/*/ for this machine, nor in " PLOT_FALLBACK_DIR " (the scaling "
				      "suites: " PLOT_FALLBACK_DIR_MULTI ")");
		return PLOT_BAD_INPUT;
	}
	return status;
}

int plot_command(int argc, char **argv)
{
	struct plot_opts o = { .suite = "all", .out = PLOT_DEFAULT_OUT,
			       .scripts = PLOT_SCRIPTS_DIR, .published = PLOT_PUBLISHED_DIR };
	int rc = plot_parse_args(argc, argv, &o);
	if (rc < 0) {
		plot_help();
		return PLOT_OK;
	}
	if (rc != PLOT_OK)
		return rc;
	rc = plot_preflight(&o);
	return rc != PLOT_OK ? rc : plot_all(&o);
}
