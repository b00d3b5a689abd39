/* ab.c - harness ab: the same rows with a base build and this one, interleaved, compared */
#define _GNU_SOURCE
#include "ab.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab_build.h"
#include "ab_judge.h"
#include "ab_pool.h"
#include "../core/atomic_file.h"
#include "../core/interrupt.h"
#include "../cli.h"
#include "compare.h"
#include "../core/progress.h"
#include "../sph/sph_run.h"
#include "../core/subproc.h"
#include "../core/sysinfo.h"
#include "../core/testhook.h"
#include "../core/timing.h"

#define AB_USAGE                                                                              \
	"usage: harness ab (--base REV | --base-tree DIR [--base-commit SHA] | --base-bin FILE)\n" \
	"                  [--rounds R] [--budget SECONDS] [--threshold PCT] [--min-change PCT]\n"  \
	"                  [--allow-missing] [--allow-inconclusive] [--out-dir DIR] [--rebuild]\n"  \
	"                  [sph] [--suite NAME | ROW OPTIONS of 'harness run' or 'harness sph run']"
#define AB_MAX_ROUNDS 100
#define AB_DEFAULT_BUDGET_S 300.0
#define AB_DEFAULT_ROUNDS 3
#define AB_MIN_DECIDING_ROUNDS 3

/* The planted slowdown of the test hooks (testhook.h) is NEW's only. */
static const char *const ab_new_only[] = { TESTHOOK_SLOWDOWN, NULL };

struct ab_options {
	const char *base_rev, *base_tree, *base_commit, *base_bin;
	int rounds;       /* at least this many */
	double budget;    /* seconds: rounds are added while one more fits */
	struct compare_opts judge; /* threshold, floor, what is allowed */
	const char *out_dir;
	bool rebuild, help, sph;
	const char *suite;  /* --suite NAME among the row options, or NULL */
	char **rows;        /* the row options, passed to both sides */
	int nrows;
};

static void ab_help(void)
{
	printf("%s\n\n"
	       "Builds BASE (--base: a revision of this git work tree, in a temporary worktree,\n"
	       "cached in build/ab/; --base-tree: a plain source tree, e.g. from 'make base-tree',\n"
	       "its commit from --base-commit or its .harness-commit file; --base-bin: a\n"
	       "harness already built) with this build's make settings, then runs the same rows\n"
	       "with BASE and with this binary (NEW) in rounds, AB BA AB ... so that drift\n"
	       "cancels; each run validates every row before timing it. After R rounds, rounds\n"
	       "are added while a row is inconclusive and another round fits in the budget.\n"
	       "Each side's samples are pooled into DIR/base.csv and DIR/new.csv (with sidecars\n"
	       "naming their commits; every run's files in DIR/rounds/) and judged by compare's\n"
	       "rule, each row's resolution (resol: the smallest change it can tell from none)\n"
	       "being the 99 %% interval of its rounds' changes (the rows' noise with one round);\n"
	       "DIR/verdicts.csv holds each row's verdict, change and resolution.\n\n"
	       "  --rounds R            rounds to run at least (3: AB BA AB; a row's 99 %% interval\n"
	       "                        from 2 rounds is some 45 times their spread, from 3 some 6)\n"
	       "  --budget SECONDS      add rounds while a row is inconclusive and one more\n"
	       "                        round is expected to end within SECONDS of the first's\n"
	       "                        start (%g; 0: exactly R rounds; from fewer than 3\n"
	       "                        rounds, straight to 3; at most %d rounds)\n"
	       "  --threshold PCT       a row slower by more than PCT beyond its resolution is\n"
	       "                        a regression; one whose slowdown +- resolution straddles\n"
	       "                        PCT is inconclusive (%g, as for compare)\n"
	       "  --min-change PCT      changes under PCT read 'same' (%g, as for compare)\n"
	       "  --allow-missing       rows of BASE missing or failed, and variants NEW's runs\n"
	       "                        skipped as unable to run here, do not make the exit 3\n"
	       "  --allow-inconclusive  rows still inconclusive at the end do not make it 3\n"
	       "  --out-dir DIR         a new or empty folder (results/local/ab-<UTC time>)\n"
	       "  --rebuild             build REV even when build/ab/ holds it\n"
	       "  sph                   the row options are those of 'harness sph run'\n"
	       "                        (implied by an sph-* suite)\n"
	       "The environment reaches both sides, but for " TESTHOOK_SLOWDOWN " (testhook.h): NEW's only.\n\n"
	       "Exit status:\n"
	       "  0  every row compared and decided, none slower by more than PCT\n"
	       "  1  a regression: a row SLOWER, or a row that failed validation or timing in NEW\n"
	       "  2  bad input, a failed build, a run that refused the rows (nothing of them can\n"
	       "     run here) or died\n"
	       "  3  not a pass: rows inconclusive when the budget ended, rows of BASE missing in\n"
	       "     NEW or failed in BASE, variants NEW could not run here (unless allowed), or\n"
	       "     nothing compared at all\n",
	       AB_USAGE, AB_DEFAULT_BUDGET_S, AB_MAX_ROUNDS, COMPARE_DEFAULT_THRESHOLD_PCT,
	       COMPARE_DEFAULT_MIN_CHANGE_PCT);
}

/* Looks at one row option: --suite, and what ab does itself. */
static int ab_row_option(struct ab_options *o, int argc, char **argv, int *i, char *err,
			 size_t errlen)
{
	const char *a = argv[*i], *v;
	if (strcmp(a, "--out") == 0 || strncmp(a, "--out=", 6) == 0 || strcmp(a, "-o") == 0) {
		snprintf(err, errlen, "%s: ab writes its files to --out-dir DIR", a);
		return CLI_USAGE;
	}
	if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
		return CLI_OK; /* both sides run quietly anyway */
	int t = cli_take_option(argc, argv, i, "--suite", &v);
	if (t < 0) {
		snprintf(err, errlen, "--suite needs a name");
		return CLI_USAGE;
	}
	if (t > 0) {
		if (strcmp(v, "all") == 0) {
			snprintf(err, errlen, "--suite all: ab compares one suite at a time");
			return CLI_USAGE;
		}
		o->suite = v;
		o->sph = o->sph || strncmp(v, "sph-", 4) == 0;
		o->rows[o->nrows++] = "--suite";
	}
	o->rows[o->nrows++] = argv[*i];
	return CLI_OK;
}

/* A number option of ab's, value v: --rounds, --budget, --threshold or
 * --min-change, into o. CLI_OK or CLI_USAGE with err. */
static int ab_number_option(struct ab_options *o, const char *name, const char *v, char *err,
			    size_t errlen)
{
	double d;
	if (strcmp(name, "--rounds") == 0) {
		if (cli_parse_double(name, v, 1, AB_MAX_ROUNDS, &d, err, errlen) != CLI_OK)
			return CLI_USAGE;
		if (d != (int)d) {
			snprintf(err, errlen, "--rounds '%s' is not a whole number", v);
			return CLI_USAGE;
		}
		o->rounds = (int)d;
		return CLI_OK;
	}
	if (strcmp(name, "--budget") == 0)
		return cli_parse_double(name, v, 0, 7 * 86400, &o->budget, err, errlen);
	if (strcmp(name, "--threshold") == 0)
		return cli_parse_double(name, v, 0, 1000, &o->judge.threshold_pct, err, errlen);
	return cli_parse_double(name, v, 0, 1000, &o->judge.min_change_pct, err, errlen);
}

/* ab's own options, then the row options. CLI_OK or CLI_USAGE with err. */
static int ab_parse_args(int argc, char **argv, struct ab_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->rounds = AB_DEFAULT_ROUNDS;
	o->budget = AB_DEFAULT_BUDGET_S;
	o->judge.threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	o->judge.min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT;
	o->rows = calloc((size_t)argc + 1, sizeof *o->rows);
	if (!o->rows) {
		snprintf(err, errlen, "out of memory");
		return CLI_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		static const char *const named[] = { "--base", "--base-tree", "--base-commit", "--base-bin",
						     "--out-dir", "--rounds", "--budget", "--threshold",
						     "--min-change" };
		const char **slot[] = { &o->base_rev, &o->base_tree, &o->base_commit, &o->base_bin,
					&o->out_dir };
		const size_t nslots = sizeof slot / sizeof *slot;
		const char *v = NULL;
		int t = 0;
		size_t k;
		for (k = 0; k < sizeof named / sizeof *named && t == 0; k++)
			t = cli_take_option(argc, argv, &i, named[k], &v);
		if (t < 0) {
			snprintf(err, errlen, "%s needs a value", argv[i]);
			return CLI_USAGE;
		}
		if (t > 0 && k - 1 < nslots) {
			*slot[k - 1] = v;
		} else if (t > 0) {
			if (ab_number_option(o, named[k - 1], v, err, errlen) != CLI_OK)
				return CLI_USAGE;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			o->help = true;
		} else if (strcmp(argv[i], "--rebuild") == 0) {
			o->rebuild = true;
		} else if (strcmp(argv[i], "--allow-missing") == 0) {
			o->judge.allow_missing = true;
		} else if (strcmp(argv[i], "--allow-inconclusive") == 0) {
			o->judge.allow_inconclusive = true;
		} else if (strcmp(argv[i], "sph") == 0 && o->nrows == 0) {
			o->sph = true;
		} else if (ab_row_option(o, argc, argv, &i, err, errlen) != CLI_OK) {
			return CLI_USAGE;
		}
	}
	return CLI_OK;
}

/* The rules across options, and the row options as the run (or sph run)
 * command would parse them, so that bad input is refused before a build. */
static int ab_check_args(const struct ab_options *o, char *err, size_t errlen)
{
	int bases = !!o->base_rev + !!o->base_tree + !!o->base_bin;
	if (bases != 1) {
		snprintf(err, errlen, "give one of --base REV, --base-tree DIR or --base-bin FILE");
		return CLI_USAGE;
	}
	if (o->base_commit && !o->base_tree) {
		snprintf(err, errlen, "--base-commit goes with --base-tree");
		return CLI_USAGE;
	}
	if (o->base_bin && access(o->base_bin, X_OK) != 0) {
		snprintf(err, errlen, "--base-bin '%s' is not a program: %s", o->base_bin, strerror(errno));
		return CLI_USAGE;
	}
	char **av = calloc((size_t)o->nrows + 3, sizeof *av);
	if (!av) {
		snprintf(err, errlen, "out of memory");
		return CLI_USAGE;
	}
	av[0] = o->sph ? "sph" : "harness";
	av[1] = "run";
	memcpy(av + 2, o->rows, (size_t)o->nrows * sizeof *av);
	int rc;
	if (o->sph) {
		rc = sph_check_args(o->nrows + 2, av, err, errlen);
	} else {
		struct cli_options c;
		rc = cli_parse(o->nrows + 2, av, &c, err, errlen);
		if (rc == CLI_OK)
			cli_options_free(&c);
	}
	free(av);
	return rc == CLI_OK ? CLI_OK : CLI_USAGE;
}

/* DIR must be new or an empty folder: what ab leaves there is all its own. */
static int ab_check_out_dir(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return CLI_OK;
		snprintf(err, errlen, "--out-dir '%s' is not a folder ab can use: %s", dir, strerror(errno));
		return CLI_USAGE;
	}
	struct dirent *e;
	bool empty = true;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	if (!empty) {
		snprintf(err, errlen, "--out-dir '%s' is not empty: give a new folder (ab writes base.csv, new.csv and rounds/ there)",
			 dir);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* One side: what runs and what it wrote. */
struct ab_side {
	const char *name;   /* "BASE" or "NEW" */
	const char *file;   /* "base" or "new" */
	const char *binary;
	const char *commit; /* as ab knows it, or NULL */
	char **csv;         /* each round's results file */
	int failed_runs;    /* runs that exited 1 (a row failed validation or timing) */
};

/* The run of side s in round k: argv, and where its CSV lands. Returns
 * CLI_OK, CLI_FAILED when rows failed, or CLI_USAGE with err when the run
 * refused the rows, died, or could not start. */
static int ab_run_one(const struct ab_options *o, const char *dir, struct ab_side *s, int k,
		      char *err, size_t errlen)
{
	char out[AB_PATH_MAX + 64], sub[AB_PATH_MAX + 32];
	const char **argv = calloc((size_t)o->nrows + 8, sizeof *argv);
	int a = 0;
	if (!argv) {
		snprintf(err, errlen, "out of memory");
		return CLI_USAGE;
	}
	argv[a++] = s->binary;
	if (o->sph)
		argv[a++] = "sph";
	argv[a++] = "run";
	for (int i = 0; i < o->nrows; i++)
		argv[a++] = o->rows[i];
	argv[a++] = "--quiet";
	snprintf(sub, sizeof sub, "%s/rounds/%s-%d", dir, s->file, k + 1);
	if (o->suite) {
		argv[a++] = "--out-dir";
		argv[a++] = sub;
		snprintf(out, sizeof out, "%s/%s.csv", sub, o->suite);
	} else {
		argv[a++] = "--out";
		snprintf(out, sizeof out, "%s.csv", sub);
		argv[a++] = out;
	}
	s->csv[k] = strdup(out);
	struct subproc_opts so = { .argv = argv, .quiet = true,
				   .unset = strcmp(s->file, "base") == 0 ? ab_new_only : NULL };
	int rc = s->csv[k] ? subproc_run(&so, err, errlen) : -1;
	free(argv);
	if (rc == 0 || rc == 1) {
		s->failed_runs += rc;
		return rc == 0 ? CLI_OK : CLI_FAILED;
	}
	if (rc > 1 && rc < 128 && !subproc_stopped())
		snprintf(err, errlen, "the %s binary refused the rows (exit %d; its message above): %s",
			 s->name, rc, s->binary);
	else if (rc >= 128 && !subproc_stopped())
		snprintf(err, errlen, "the %s binary died (signal %d) in round %d: %s", s->name, rc - 128,
			 k + 1, s->binary);
	return CLI_USAGE;
}

/* What ab is doing, for the line an interruption prints. */
static char ab_doing[128] = "before its first round";

/* The line an interruption prints, then the end by that signal: what
 * was under way, and that nothing is kept (a verdict needs every round
 * it began; the base build is cached only when it completed). */
static void ab_die_stopped(const char *dir)
{
	fprintf(stderr, "harness: ab: interrupted by %s %s: nothing kept in %s\n",
		interrupt_signal_name(subproc_stopped()), ab_doing, dir);
	subproc_die();
}

/* Round k (from 0): AB when k is even, BA when odd; its letters go to
 * order[2k..2k+1]. Each run is an item of pg (planned by the caller; the
 * two sides cost alike, each its own class). */
static int ab_round(const struct ab_options *o, const char *dir, struct ab_side *sides, int k,
		    char *order, struct progress *pg, char *err, size_t errlen)
{
	for (int j = 0; j < 2; j++) {
		int which = (k % 2 == 0) == (j == 0) ? 0 : 1;
		struct ab_side *s = &sides[which];
		order[2 * k + j] = which == 0 ? 'A' : 'B';
		order[2 * k + j + 1] = '\0';
		progress_begin(pg, 1, which, "round %d, %s", k + 1, s->name);
		snprintf(ab_doing, sizeof ab_doing, "in round %d (%s's run)", k + 1, s->name);
		if (ab_run_one(o, dir, s, k, err, errlen) == CLI_USAGE)
			return CLI_USAGE;
		progress_end(pg);
	}
	return CLI_OK;
}

/* Plans rounds more rounds, two runs each, on pg. */
static void ab_plan_rounds(struct progress *pg, int rounds)
{
	for (int k = 0; k < 2 * rounds; k++)
		progress_plan(pg, 1, k % 2);
}

/* Pools both sides' first nrounds rounds into DIR/base.csv and DIR/new.csv. */
static int ab_pool_sides(int nrounds, const char *dir, struct ab_side *sides, const char *order,
			 int argc, char **argv, struct ab_pool_summary *sums,
			 char (*paths)[AB_PATH_MAX + 16], char *err, size_t errlen)
{
	for (int s = 0; s < 2; s++) {
		struct ab_pool_info info = { sides[s].file, sides[s].binary, sides[s].commit, order,
					     argc, argv };
		snprintf(paths[s], sizeof paths[s], "%s/%s.csv", dir, sides[s].file);
		if (ab_pool((const char *const *)sides[s].csv, (size_t)nrounds, paths[s], &info,
			    &sums[s], err, errlen) != 0)
			return CLI_USAGE;
	}
	return CLI_OK;
}

/* What is compared with what, before compare's table. */
static void ab_print_header(const struct ab_options *o, const struct ab_base *base,
			    const struct ab_pool_summary *sums, const char *order, int nrounds,
			    const char *why_stopped)
{
	printf("A/B: BASE %s, %s\n", base->what, base->binary);
	printf("     NEW  this binary, %.12s%s\n", sums[1].commit,
	       sums[1].dirty > 0 ? " with uncommitted changes (dirty)" : "");
	printf("     rows %srun", o->sph ? "sph " : "");
	for (int i = 0; i < o->nrows; i++)
		printf(" %s", o->rows[i]);
	printf("\n     %d round%s in the order %s (%s), every row validated in every run; "
	       "samples pooled per side\n\n",
	       nrounds, nrounds == 1 ? "" : "s", order, why_stopped);
}

/* Prints the verdicts, writes DIR/verdicts.csv, and says on stderr why
 * the exit status is not 0. Returns the exit status. */
static int ab_verdict(const struct ab_options *o, const char *dir, char (*paths)[AB_PATH_MAX + 16],
		      const struct compare_report *r, int argc, char **argv)
{
	char out[AB_PATH_MAX + 32], err[1024], why[2048];
	int rc = compare_exit_status(r);
	compare_print(stdout, r, paths[0], paths[1]);
	snprintf(out, sizeof out, "%s/verdicts.csv", dir);
	if (compare_write_verdicts(out, r, paths[0], paths[1], argc, argv, err, sizeof err) != 0) {
		fprintf(stderr, "harness: ab: %s\n", err);
		return CLI_USAGE;
	}
	printf("\nwrote %s (each row's verdict, change and resolution)\n"
	       "the pooled files by their noise alone, as two separate runs: harness compare %s %s --threshold %g\n",
	       out, paths[0], paths[1], o->judge.threshold_pct);
	fflush(stdout);
	compare_why_not_passed(r, why, sizeof why);
	if (why[0])
		fprintf(stderr, "harness: ab: %s\n", why);
	return rc;
}

/* How many rounds to add after nrounds when rows are undecided: up to
 * AB_MIN_DECIDING_ROUNDS at once (the interval of two rounds is some 45
 * times their spread, wider than one round's noise: stopping there would
 * only undecide rows), else one. */
static int ab_rounds_to_add(int nrounds)
{
	return nrounds < AB_MIN_DECIDING_ROUNDS ? AB_MIN_DECIDING_ROUNDS - nrounds : 1;
}

/* Whether more rounds (ab_rounds_to_add) should run after nrounds, given
 * how long they took (elapsed seconds) and how many rows are still
 * inconclusive; why the rounds stop goes to why (when they do). */
static bool ab_another_round(const struct ab_options *o, int nrounds, double elapsed,
			     size_t inconclusive, char *why, size_t whylen)
{
	double per_round = elapsed / nrounds;
	int add = ab_rounds_to_add(nrounds);
	if (inconclusive == 0) {
		snprintf(why, whylen, "%s", nrounds > o->rounds ? "added until every row was decided"
							       : "every row decided");
		return false;
	}
	if (nrounds + add > AB_MAX_ROUNDS) {
		snprintf(why, whylen, "%zu row%s still inconclusive at the most rounds, %d", inconclusive,
			 inconclusive == 1 ? "" : "s", AB_MAX_ROUNDS);
		return false;
	}
	if (elapsed + add * per_round > o->budget) {
		snprintf(why, whylen, "%zu row%s still inconclusive when the %g s budget ended (%.0f s used, "
			 "%.0f s a round)", inconclusive, inconclusive == 1 ? "" : "s", o->budget, elapsed,
			 per_round);
		return false;
	}
	fprintf(stderr, "harness: ab: %zu row%s inconclusive after %d round%s: adding %s %d "
		"(%.0f s of the %g s budget used)\n", inconclusive, inconclusive == 1 ? "" : "s",
		nrounds, nrounds == 1 ? "" : "s", add == 1 ? "round" : "rounds up to", nrounds + add,
		elapsed, o->budget);
	return true;
}

/* The rounds, each pooled and judged after R: more while a row is
 * inconclusive and the budget allows. Returns CLI_OK with *r filled and
 * *nrounds, or CLI_USAGE with err. */
static int ab_run_rounds(int argc, char **argv, const struct ab_options *o, const char *dir,
			 struct ab_side *sides, char *order, struct ab_pool_summary *sums,
			 char (*paths)[AB_PATH_MAX + 16], struct compare_report *r, int *nrounds,
			 char *why, size_t whylen, char *err, size_t errlen)
{
	double t0 = timing_now();
	int k = 0, rc = CLI_USAGE;
	struct progress pg;
	progress_init(&pg, "ab", false);
	ab_plan_rounds(&pg, o->rounds);
	for (; k < o->rounds; k++)
		if (ab_round(o, dir, sides, k, order, &pg, err, errlen) != CLI_OK)
			goto out;
	for (;;) {
		if (subproc_stopped() ||
		    ab_pool_sides(k, dir, sides, order, argc, argv, sums, paths, err, errlen) != CLI_OK ||
		    ab_judge(paths[0], paths[1], (const char *const *)sides[0].csv,
			     (const char *const *)sides[1].csv, (size_t)k, &o->judge, r, err, errlen) != 0)
			goto out;
		*nrounds = k;
		if (!ab_another_round(o, k, timing_now() - t0, r->inconclusive, why, whylen)) {
			rc = CLI_OK;
			goto out;
		}
		compare_report_free(r);
		ab_plan_rounds(&pg, ab_rounds_to_add(k));
		for (int target = k + ab_rounds_to_add(k); k < target; k++)
			if (ab_round(o, dir, sides, k, order, &pg, err, errlen) != CLI_OK)
				goto out;
	}
out:
	progress_finish(&pg);
	return rc;
}

/* The base binary as the options name it. */
static int ab_get_base(const struct ab_options *o, struct ab_base *base, char *err, size_t errlen)
{
	char root[PATH_MAX];
	enum ab_build_status st = AB_BUILD_OK;
	if (o->base_bin) {
		if (!realpath(o->base_bin, base->binary))
			snprintf(base->binary, sizeof base->binary, "%s", o->base_bin);
		snprintf(base->commit, sizeof base->commit, "unknown");
		snprintf(base->what, sizeof base->what, "%s", base->binary);
	} else if (ab_tree_root(root, sizeof root, err, errlen) != 0) {
		st = AB_BUILD_FAILED;
	} else if (o->base_rev) {
		st = ab_build_rev(root, o->base_rev, o->rebuild, base, err, errlen);
	} else {
		st = ab_build_tree(root, o->base_tree, o->base_commit, base, err, errlen);
	}
	return st == AB_BUILD_OK ? CLI_OK : st == AB_BUILD_STOPPED ? -1 : CLI_USAGE;
}

/* After the base exists: the runs, the pooling, the verdict. On bad input
 * or a stop, everything written to dir is removed. */
static int ab_measure(int argc, char **argv, const struct ab_options *o, const struct ab_base *base,
		      const char *dir, bool dir_existed)
{
	char err[2 * AB_PATH_MAX] = "", rounds_dir[AB_PATH_MAX + 16], self[PATH_MAX], why[256] = "";
	char order[2 * AB_MAX_ROUNDS + 1] = "";
	char paths[2][AB_PATH_MAX + 16];
	struct ab_pool_summary sums[2];
	struct compare_report r = { 0 };
	int nrounds = 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	struct ab_side sides[2] = {
		{ "BASE", "base", base->binary, strcmp(base->commit, "unknown") ? base->commit : NULL,
		  calloc(AB_MAX_ROUNDS, sizeof(char *)), 0 },
		{ "NEW", "new", self, NULL, calloc(AB_MAX_ROUNDS, sizeof(char *)), 0 },
	};
	int rc = CLI_USAGE;
	snprintf(rounds_dir, sizeof rounds_dir, "%s/rounds", dir);
	if (!sides[0].csv || !sides[1].csv || n <= 0) {
		snprintf(err, sizeof err, "out of memory, or no path to this program");
		goto out_discard;
	}
	if (atomic_mkdir_p(rounds_dir) != 0) {
		snprintf(err, sizeof err, "cannot create %s: %s", rounds_dir, strerror(errno));
		goto out_discard;
	}
	if (ab_run_rounds(argc, argv, o, dir, sides, order, sums, paths, &r, &nrounds, why,
			  sizeof why, err, sizeof err) != CLI_OK || subproc_stopped())
		goto out_discard;
	ab_print_header(o, base, sums, order, nrounds, why);
	rc = ab_verdict(o, dir, paths, &r, argc, argv);
	goto out_free;
out_discard:
	ab_remove_tree(dir);
	if (dir_existed)
		mkdir(dir, 0777);
	if (err[0] && !subproc_stopped())
		fprintf(stderr, "harness: ab: %s\n", err);
out_free:
	compare_report_free(&r);
	for (int s = 0; s < 2; s++) {
		for (int k = 0; sides[s].csv && k < AB_MAX_ROUNDS; k++)
			free(sides[s].csv[k]);
		free(sides[s].csv);
	}
	return rc;
}

int ab_command(int argc, char **argv)
{
	struct ab_options o;
	struct ab_base base;
	char err[1024] = "", stamp[32], defdir[64];
	int rc = ab_parse_args(argc, argv, &o, err, sizeof err);
	if (rc == CLI_OK && o.help) {
		ab_help();
		goto out_free;
	}
	if (rc != CLI_OK || (rc = ab_check_args(&o, err, sizeof err)) != CLI_OK)
		goto out_usage;
	if (!o.out_dir) {
		sysinfo_utc_stamp(stamp, sizeof stamp);
		snprintf(defdir, sizeof defdir, "results/local/ab-%s", stamp);
		o.out_dir = defdir;
	}
	if ((rc = ab_check_out_dir(o.out_dir, err, sizeof err)) != CLI_OK)
		goto out_usage;
	subproc_trap_signals();
	snprintf(ab_doing, sizeof ab_doing, "while building the base");
	rc = ab_get_base(&o, &base, err, sizeof err);
	if (rc < 0)
		ab_die_stopped(o.out_dir);
	if (rc != CLI_OK)
		goto out_usage;
	snprintf(ab_doing, sizeof ab_doing, "before its first round");
	bool existed = access(o.out_dir, F_OK) == 0;
	rc = ab_measure(argc, argv, &o, &base, o.out_dir, existed);
	if (subproc_stopped())
		ab_die_stopped(o.out_dir);
	goto out_free;
out_usage:
	rc = cli_usage_error("ab", err);
out_free:
	free(o.rows);
	return rc;
}
