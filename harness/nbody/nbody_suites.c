/* nbody_suites.c - bin/harness run --suite: the suites of suites.def, each to its own CSV */
#define _POSIX_C_SOURCE 200809L
#include "nbody_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/atomic_file.h"
#include "../cli.h"
#include "dist.h"
#include "../core/interrupt.h"
#include "../core/keep.h"
#include "../core/progress.h"
#include "nbody_results.h"
#include "../core/skips.h"
#include "../../variants/suites.h"

/* Whether suite name has distributed variants: it then writes one file
 * per number of ranks, DIR/<name>-p<P>.csv, which `harness plot` merges. */
static bool main_suite_per_ranks(const char *name)
{
	for (size_t e = 0; e < suite_entry_count; e++) {
		struct cli_options sel;
		char err[768];
		memset(&sel, 0, sizeof sel);
		if (strcmp(suite_entries[e].name, name) != 0 ||
		    cli_select_variants(suite_entries[e].variants, &sel, err, sizeof err) != CLI_OK)
			continue;
		for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
			if (sel.selected[i] && nbody_variants[i].dist)
				return true;
	}
	return false;
}

/* Keeps, in order, the *count values of n_list that --n also gave (run
 * --suite NAME --n LIST: the suite's rows at those N). Returns how many
 * are left. */
static size_t main_keep_given_n(const struct cli_options *o, size_t *n_list, size_t *count)
{
	size_t kept = 0;
	for (size_t k = 0; k < *count; k++)
		for (size_t g = 0; g < o->n_count; g++)
			if (o->n_list[g] == n_list[k]) {
				n_list[kept++] = n_list[k];
				break;
			}
	*count = kept;
	return kept;
}

/* The options of suite entry se into local (its variants, mode and N
 * list, which the caller frees) and what of it runs here into run[] and
 * *nrun; what cannot run (not here, or too large for this machine's
 * memory) goes to skipped. With --n, only the entry's N that --n gave
 * (n_count 0 and *nrun 0 when none). 0, or -1 with err for a malformed
 * entry. */
static int main_suite_entry(const struct cli_options *o, const struct suite_entry *se,
			    struct cli_options *local, bool run[NBODY_VARIANT_COUNT], size_t *nrun,
			    struct skips *skipped, char *err, size_t errlen)
{
	*local = *o;
	local->variant_given = true;
	local->steps = se->mode == SUITE_STEPS;
	local->n_list = NULL;
	memset(local->selected, 0, sizeof local->selected);
	if (cli_select_variants(se->variants, local, err, errlen) != CLI_OK ||
	    cli_parse_suite_n(se->n_list, (size_t)dist_size(), &local->n_list, &local->n_count, err,
			      errlen) != CLI_OK)
		return -1;
	*nrun = 0;
	if (o->n_given && main_keep_given_n(o, local->n_list, &local->n_count) == 0)
		return 0; /* none of this line's N were asked for: n_count 0 */
	*nrun = main_pick_variants(local, run, skipped, err, errlen);
	if (*nrun > 0 && main_check_sizes(local, NULL, err, errlen) != CLI_OK) {
		for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
			if (run[i])
				skips_add(skipped, nbody_variants[i].name, err);
		*nrun = 0;
	}
	return 0;
}

/* Plans the rows of suite which (every suite under "all") on pg and
 * their labels on keep (either may be NULL). */
static void main_plan_suites(const struct cli_options *o, const char *which, struct progress *pg,
			     struct keep *keep)
{
	char err[768];
	struct skips *scratch = calloc(1, sizeof *scratch);
	for (size_t e = 0; scratch && e < suite_entry_count; e++) {
		const struct suite_entry *se = &suite_entries[e];
		struct cli_options local;
		bool run[NBODY_VARIANT_COUNT];
		size_t nrun;
		if (strcmp(which, "all") != 0 && strcmp(which, se->name) != 0)
			continue;
		if (main_suite_entry(o, se, &local, run, &nrun, scratch, err, sizeof err) == 0 && nrun)
			main_plan_sweep(&local, run, local.n_list, local.n_count, pg, keep);
		free(local.n_list);
	}
	free(scratch);
}

/* One suite: every line of suites.def with that name, swept in turn into
 * one table, written to DIR/<name>.csv (or <name>-p<P>.csv, see
 * main_suite_per_ranks). Variants that cannot run here are skipped and
 * named in one line (and in the sidecar). When none of its rows can run,
 * no file is written: asked for by name, that is one line and CLI_USAGE;
 * under --suite all, a note and CLI_OK with *wrote false. keep comes
 * with the run-wide fields set; an interruption keeps this suite's
 * finished rows through it. */
static int main_suite(const struct cli_options *o, const char *name, const char *dir, bool *wrote,
		      struct progress *pg, struct main_keep *keep)
{
	char err[768], out[1024];
	int status = CLI_OK;
	size_t nrows = 0;
	struct result_row *rows = NULL;
	struct skips *skipped = calloc(1, sizeof *skipped);
	*wrote = false;
	if (!skipped)
		return cli_usage_error(NULL, "out of memory");
	if (main_suite_per_ranks(name))
		atomic_path_in(out, sizeof out, dir, "%s-p%d.csv", name, dist_size());
	else
		atomic_path_in(out, sizeof out, dir, "%s.csv", name);
	int unwritable = dist_rank() == 0 && atomic_path_writable(out, err, sizeof err) != 0;
	if (dist_agree(unwritable, err, sizeof err) >= 0) {
		free(skipped);
		return cli_usage_error(NULL, err);
	}
	interrupt_lock();
	keep->k.out = dist_rank() == 0 ? out : NULL;
	keep->rows = &rows;
	keep->k.nrows = &nrows;
	keep->skipped = skipped;
	keep->k.written = false;
	keep_plan_reset(&keep->k);
	interrupt_unlock();
	main_plan_suites(o, name, NULL, &keep->k);
	interrupt_set_keeper(keep_rows, &keep->k);
	bool any_n = !o->n_given;
	for (size_t e = 0; e < suite_entry_count && !main_aborted; e++) {
		const struct suite_entry *se = &suite_entries[e];
		if (strcmp(se->name, name) != 0)
			continue;
		struct cli_options local;
		bool run[NBODY_VARIANT_COUNT];
		size_t nrun;
		if (main_suite_entry(o, se, &local, run, &nrun, skipped, err, sizeof err) != 0) {
			fprintf(stderr, "harness: suite %s: %s\n", name, err);
			status = CLI_FAILED;
			continue;
		}
		if (local.n_count == 0) {
			free(local.n_list);
			continue; /* none of this line's N were asked for */
		}
		any_n = true;
		if (nrun > 0) {
			size_t need = nrows + nrun * local.n_count;
			interrupt_lock();
			struct result_row *grown = realloc(rows, need * sizeof *rows);
			if (grown)
				rows = grown;
			interrupt_unlock();
			if (!grown) {
				interrupt_set_keeper(NULL, NULL);
				free(local.n_list);
				for (size_t r = 0; r < nrows; r++)
					timing_result_free(&rows[r].t);
				free(rows);
				free(skipped);
				return cli_usage_error(NULL, "out of memory for the result table");
			}
			memset(rows + nrows, 0, (need - nrows) * sizeof *rows);
			int st = main_sweep(&local, run, local.n_list, local.n_count, NULL, rows, &nrows,
					    name, pg);
			if (st != CLI_OK)
				status = st;
		}
		free(local.n_list);
	}
	interrupt_set_keeper(NULL, NULL);
	if (nrows == 0 && !main_aborted && !any_n) {
		free(rows);
		free(skipped);
		bool by_name = strcmp(o->suite, "all") != 0;
		if (dist_rank() == 0 && (by_name || !o->quiet))
			fprintf(stderr, "harness: suite %s has no row at the N given by --n, no file written\n",
				name);
		return by_name ? CLI_USAGE : CLI_OK;
	}
	if (nrows == 0 && !main_aborted) {
		char what[1024];
		skips_describe(skipped, what, sizeof what);
		free(rows);
		free(skipped);
		bool by_name = strcmp(o->suite, "all") != 0;
		if (dist_rank() == 0 && (by_name || !o->quiet))
			fprintf(stderr, "harness: suite %s: nothing of it can run here, no file written%s%s\n",
				name, what[0] ? ": " : "", what);
		return by_name ? CLI_USAGE : status;
	}
	main_say_skipped(o, name, skipped);
	if (!o->quiet)
		printf("== suite %s\n", name);
	*wrote = !main_aborted;
	status = main_finish(keep->argc, keep->argv, o, out, rows, nrows, skipped, status, NULL);
	free(skipped);
	return status;
}

/* Suite line i's name, for keep_suite_starts. */
static const char *main_suite_name(size_t i)
{
	return suite_entries[i].name;
}

/* --suite NAME or all: each suite to its own CSV in --out-dir. Under all,
 * suites none of whose rows can run here are noted and written nowhere;
 * when that is every suite, it is the user's error. */
int main_suites(int argc, char **argv, const struct cli_options *o)
{
	const char *dir = o->out_dir ? o->out_dir : "results/local";
	struct main_keep keep;
	main_keep_init(&keep, argc, argv, o, NULL, NULL, NULL, NULL);
	if (dist_rank() == 0) {
		keep.k.made_dir = access(dir, F_OK) != 0 ? dir : NULL;
		atomic_mkdir_p(dir);
	}
	int status = CLI_OK;
	size_t written = 0;
	struct progress pg;
	progress_init(&pg, strcmp(o->suite, "all") == 0 ? "suite all" : "suite",
		      o->quiet || dist_rank() != 0);
	main_plan_suites(o, o->suite, &pg, NULL);
	for (size_t e = 0; e < suite_entry_count; e++) {
		bool wrote;
		if (!keep_suite_starts(main_suite_name, e, o->suite))
			continue;
		keep_later_suites(&keep.k, main_suite_name, suite_entry_count, e, o->suite);
		int st = main_suite(o, suite_entries[e].name, dir, &wrote, &pg, &keep);
		if (st == CLI_USAGE) {
			progress_finish(&pg);
			keep_free(&keep.k);
			return st;
		}
		if (st != CLI_OK)
			status = st;
		written += wrote;
		if (main_aborted)
			break;
	}
	interrupt_set_doing(NULL);
	keep_free(&keep.k);
	progress_finish(&pg);
	if (written == 0 && !main_aborted && strcmp(o->suite, "all") == 0) {
		if (dist_rank() == 0)
			fprintf(stderr, "harness: --suite all: no suite has a row that can run here, no file written\n");
		return CLI_USAGE;
	}
	return status;
}
