/* compare_command.c - bin/harness compare: its options, its help, and the run from the two files to the exit status */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../cli.h"
#include "../core/results.h"

/* ---- the command ------------------------------------------------------- */

#define COMPARE_USAGE \
	"usage: harness compare BASE.csv NEW.csv [--threshold PCT] [--min-change PCT]\n" \
	"                       [--allow-missing] [--allow-inconclusive] [--across-devices] [--out FILE.csv]\n" \
	"                       [--unchecked]"

static int compare_usage_error(const char *what, const char *value)
{
	if (value)
		fprintf(stderr, "harness: compare: %s '%s' (see 'harness compare --help')\n", what, value);
	else
		fprintf(stderr, "harness: compare: %s (see 'harness compare --help')\n", what);
	return COMPARE_BAD_INPUT;
}

static void compare_help(void)
{
	printf("%s\n\n"
	       "Joins the rows of two results CSVs of one kind and compares their figures:\n"
	       "  N-body rows on (variant, n, tile_p, threads_q, unroll, bodies_k, precision,\n"
	       "  mode, ranks), by interactions/s (steps/s in steps mode);\n"
	       "  SPH rows on (variant, column), by steps/s, with the per-phase times beside;\n"
	       "  rendering rows by overall frames/s. Files with nothing timed (check's rows,\n"
	       "  the sph-memory suite's, and sph physics' judged quantities, joined on\n"
	       "  (variant, check, column, quantity, T, time_s)) compare each row's\n"
	       "  validation (its pass flag): valid in BASE and not in NEW is a regression.\n"
	       "Each row's resolution (resol) is the change it can tell from none:\n"
	       "  sqrt(noise_base^2 + noise_new^2 + floor^2): its noise_pct columns and\n"
	       "  what separate runs of the same code on its device differ by, the floor\n"
	       "  that harness calibrate measured for its kind and time per call\n"
	       "  (harness/gate/floors.def; none where no runs calibrated it, said so). With\n"
	       "  slowdown = 100 (1 - new/base) %%:\n"
	       "  SLOWER        slowdown - resol > --threshold PCT (default %g) and slowdown >\n"
	       "                --min-change PCT (default %g): a regression\n"
	       "  same, faster, slower\n"
	       "                decided, no regression: slowdown + resol <= max(PCT, MIN);\n"
	       "                same when |change| <= max(resol, MIN)\n"
	       "  inconclusive  neither: too noisy to tell at that threshold\n"
	       "Rows only in BASE, rows that failed in BASE (not compared), variants NEW's\n"
	       "sidecar says its run skipped, and the rows a file's run planned and never ran\n"
	       "(its sidecar says the run was interrupted) are rows asked for and not measured.\n\n"
	       "  --allow-missing       those do not make the exit status 3\n"
	       "  --allow-inconclusive  inconclusive rows do not make it 3\n"
	       "  --across-devices      allow different device_name values; also compare each\n"
	       "                        row's pct_of_ceiling, which then decides regressions\n"
	       "  --out FILE.csv        write each row's verdict, change and resolution there\n"
	       "                        (with a sidecar)\n"
	       "  --unchecked           compare a CSV its sidecar cannot check (it has none, or\n"
	       "                        one without a checksum) as it is; else such a file is\n"
	       "                        bad input. A CSV whose sidecar stamps another file is\n"
	       "                        refused either way.\n\n"
	       "Exit status:\n"
	       "  0  every row compared and decided, none slower by more than PCT\n"
	       "  1  a regression: a row SLOWER, or a row that failed validation or timing in NEW\n"
	       "  2  bad input: an unreadable or malformed file, a bad option, other devices,\n"
	       "     a file its sidecar cannot check (unless --unchecked)\n"
	       "  3  not a pass: a row inconclusive, a row of BASE missing in NEW or not\n"
	       "     compared, variants NEW skipped, rows an interrupted run never ran (unless\n"
	       "     allowed), or nothing compared at all\n",
	       COMPARE_USAGE, COMPARE_DEFAULT_THRESHOLD_PCT, COMPARE_DEFAULT_MIN_CHANGE_PCT);
}

/* Parses a percentage: the whole text a finite number in [0, 1000]. */
static int compare_parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= 0 && v <= 1000))
		return -1;
	*out = v;
	return 0;
}

/* A flag of compare's: sets it and returns true, or false for another word. */
static bool compare_flag(const char *a, struct compare_opts *o)
{
	static const char *const names[] = { "--across-devices", "--allow-missing",
					     "--allow-inconclusive", "--unchecked" };
	bool *dest[] = { &o->across_devices, &o->allow_missing, &o->allow_inconclusive,
			 &o->unchecked };
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (strcmp(a, names[k]) == 0)
			return *dest[k] = true;
	return false;
}

/* Fills opts, the two paths and the verdict file (NULL: none) from argv;
 * COMPARE_OK, COMPARE_BAD_INPUT, or -1 for --help. */
static int compare_parse_args(int argc, char **argv, struct compare_opts *o, const char **paths,
			      const char **out)
{
	int npaths = 0;
	static const char *const pct_opts[] = { "--threshold", "--min-change" };
	double *pct_dest[] = { &o->threshold_pct, &o->min_change_pct };
	memset(o, 0, sizeof *o);
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	o->min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT;
	*out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char what[96];
		int t = 0;
		size_t k = 0;
		for (; k < 2 && (t = cli_take_option(argc, argv, &i, pct_opts[k], &v)) == 0; k++)
			;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return -1;
		if (compare_flag(a, o))
			continue;
		if (t != 0) {
			snprintf(what, sizeof what, "%s needs a percentage", pct_opts[k]);
			if (t < 0)
				return compare_usage_error(what, NULL);
			snprintf(what, sizeof what, "%s takes a percentage in [0, 1000], not", pct_opts[k]);
			if (compare_parse_pct(v, pct_dest[k]) != 0)
				return compare_usage_error(what, v);
		} else if ((t = cli_take_option(argc, argv, &i, "--out", &v)) != 0) {
			if (t < 0 || !v[0])
				return compare_usage_error("--out needs a file name", NULL);
			*out = v;
		} else if (a[0] == '-' && a[1] != '\0') {
			return compare_usage_error("unknown option", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return compare_usage_error("one BASE and one NEW file only; extra", a);
		}
	}
	if (npaths != 2)
		return compare_usage_error("needs BASE.csv and NEW.csv", NULL);
	return COMPARE_OK;
}

int compare_command(int argc, char **argv)
{
	struct compare_opts o;
	const char *paths[2], *out;
	char err[1024], why[2048];
	struct compare_report r;
	int rc = compare_parse_args(argc, argv, &o, paths, &out);
	if (rc < 0) {
		compare_help();
		return COMPARE_OK;
	}
	if (rc != COMPARE_OK)
		return rc;
	if (out && atomic_path_writable(out, err, sizeof err) != 0)
		return compare_usage_error(err, NULL);
	if (compare_files(paths[0], paths[1], &o, &r, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return COMPARE_BAD_INPUT;
	}
	for (int k = 0; k < 2 && !o.unchecked; k++)
		if (results_require_checked(paths[k], "--unchecked", err, sizeof err) != 0) {
			compare_report_free(&r);
			return compare_usage_error(err, NULL);
		}
	compare_print(stdout, &r, paths[0], paths[1]);
	rc = compare_exit_status(&r);
	if (out && compare_write_verdicts(out, &r, paths[0], paths[1], argc, argv, err, sizeof err) != 0) {
		fprintf(stderr, "harness: compare: %s\n", err);
		rc = COMPARE_BAD_INPUT;
	} else if (out) {
		printf("wrote %s\n", out);
	}
	compare_why_not_passed(&r, why, sizeof why);
	if (why[0] && rc != COMPARE_BAD_INPUT)
		fprintf(stderr, "harness: compare: %s\n", why);
	compare_report_free(&r);
	return rc;
}
