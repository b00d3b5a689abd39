/* nbody_run.c - bin/harness list, run and check: the variants that run, the sweep of their rows and its results */
#include "nbody_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"
#include "../core/atomic_file.h"
#include "bodies_io.h"
#include "../cli.h"
#include "dist.h"
#include "dist_instance.h"
#include "../core/gpu_device.h"
#include "../core/interrupt.h"
#include "../core/keep.h"
#include "instance.h"
#include "../core/progress.h"
#include "../core/repetitions.h"
#include "nbody_results.h"
#include "../core/results.h"
#include "../core/skips.h"
#include "../core/sysinfo.h"
#include "validate.h"

/* Bytes one body costs at most on the host: float positions, velocities
 * and accelerations of the instance (48), a float copy of the bodies (32),
 * the variant's accelerations in double (24) and the reference's (32). */
#define MAIN_BYTES_PER_BODY 136

/* Whether v can run in this run: available here and, when the run has
 * several ranks, distributed (a one-device variant would run P times). */
static bool main_runnable(const struct variant *v, const char **why)
{
	if (!variant_available(v, why))
		return false;
	if (!v->dist && dist_size() > 1) {
		*why = "runs on one device (this run has several ranks: only dist-* variants run)";
		return false;
	}
	return true;
}

int main_list(const struct cli_options *o)
{
	struct skips *unavailable = calloc(1, sizeof *unavailable);
	if (!unavailable)
		return cli_usage_error(NULL, "out of memory");
	printf("%-18s %-14s %-5s %-4s %5s %3s %6s %3s  %-10s %s\n", "variant", "family", "prec",
	       "dev", "p", "q", "unroll", "k", "available", "summary");
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		if (!cli_wants_variant(o, i))
			continue;
		const char *why;
		bool ok = main_runnable(v, &why);
		printf("%-18s %-14s %-5s %-4s %5d %3d %6d %3d  %-10s %s\n", v->name, v->family,
		       variant_precision_name(v->precision), variant_device_name(v->device), v->tile_p,
		       v->threads_q, v->unroll, v->bodies_k, ok ? "yes" : "no", v->summary);
		if (!ok)
			skips_add(unavailable, v->name, why);
	}
	skips_say_each(stdout, unavailable, "unavailable");
	free(unavailable);
	return CLI_OK;
}

/* Marks what runs: the selection, or every available variant. Those that
 * cannot run here go to skipped (said once by the caller); when nothing
 * at all can run, that is the user's error, in err. Returns how many run. */
size_t main_pick_variants(const struct cli_options *o, bool run[NBODY_VARIANT_COUNT],
			  struct skips *skipped, char *err, size_t errlen)
{
	size_t count = 0, unavailable = 0;
	const char *last_why = NULL, *last_name = NULL;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		const char *why;
		run[i] = false;
		if (!cli_wants_variant(o, i))
			continue;
		if (!main_runnable(v, &why)) {
			skips_add(skipped, v->name, why);
			last_why = why;
			last_name = v->name;
			unavailable++;
			continue;
		}
		run[i] = true;
		count++;
	}
	if (count == 0 && unavailable > 1) {
		int w = snprintf(err, errlen, "nothing selected can run here: ");
		if (w > 0 && (size_t)w < errlen)
			skips_describe(skipped, err + w, errlen - (size_t)w);
	} else if (count == 0 && !last_name) {
		snprintf(err, errlen, "no variant is selected by --variant, --filter and --device together");
	} else if (count == 0) {
		snprintf(err, errlen, "variant '%s' is not available: %s", last_name, last_why);
	}
	return count;
}

/* The one line that names what a run skipped (rank 0, unless quiet). */
void main_say_skipped(const struct cli_options *o, const char *suite,
		      const struct skips *skipped)
{
	char prefix[160];
	snprintf(prefix, sizeof prefix, "harness: %s%s%s", suite ? "suite " : "", suite ? suite : "",
		 suite ? ": " : "");
	if (!o->quiet && dist_rank() == 0)
		skips_say(stderr, skipped, prefix);
}

/* The default results path, results/local/nbody-<UTC time>.csv, creating
 * the folder. Returns a static string. */
static const char *main_default_out(void)
{
	static char path[128];
	char stamp[32];
	sysinfo_utc_stamp(stamp, sizeof stamp);
	atomic_mkdir_p("results/local");
	snprintf(path, sizeof path, "results/local/nbody-%s.csv", stamp);
	return path;
}

/* Bodies for one N: the first n of the user's file, or generated. */
int main_bodies(const struct cli_options *o, const struct bodies *file, size_t n,
		float *pos4, float *vel4)
{
	if (file) {
		memcpy(pos4, file->pos4, 4 * n * sizeof(float));
		memcpy(vel4, file->vel4, 4 * n * sizeof(float));
		return 0;
	}
	return ic_generate(o->ic, n, o->seed, pos4, vel4);
}

/* Input checks that need more than the parser knows: N against the file and
 * against memory. CLI_OK or CLI_USAGE with err. */
int main_check_sizes(const struct cli_options *o, const struct bodies *file, char *err,
		     size_t errlen)
{
	for (size_t k = 0; k < o->n_count; k++) {
		size_t n = o->n_list[k];
		char what[48];
		if (file && n > file->n) {
			snprintf(err, errlen, "--n %zu exceeds the %zu bodies in %s", n, file->n, o->ic_file);
			return CLI_USAGE;
		}
		snprintf(what, sizeof what, "--n %zu", n);
		if (sysinfo_check_memory(what, n, MAIN_BYTES_PER_BODY, "N", err, errlen) != 0)
			return CLI_USAGE;
	}
	return CLI_OK;
}

/* Interactions per second a device does, roughly: the scale of the
 * predicted costs below (the progress estimate corrects the scale by what
 * the rows took; only the ratios between rows matter). */
#define MAIN_CPU_RATE 1e9
#define MAIN_GPU_RATE 1e11

/* Predicted seconds of the row of v at n: the reference at the checked
 * bodies (first: the first row at this N, which computes it), one
 * evaluation to validate, and for run the timing (repetitions_predict):
 * time limits, not N^2, decide most rows. */
static double main_row_cost(const struct cli_options *o, const struct variant *v, size_t n,
			    bool first)
{
	double pairs = (double)n * (double)n;
	double call = pairs / (v->device == VARIANT_GPU ? MAIN_GPU_RATE : MAIN_CPU_RATE);
	double s = 0.01 + call;
	if (first)
		s += (double)validate_checked_count(n) * (double)n / MAIN_CPU_RATE;
	if (o->cmd == CLI_RUN)
		s += repetitions_predict(&o->timing, call);
	return s;
}

/* A row's label: "auto N=65536", with " steps" in steps mode. */
static void main_keep_label(void *ctx, size_t r, char *out)
{
	const struct main_keep *m = ctx;
	const struct result_row *row = &(*m->rows)[r];
	snprintf(out, KEEP_LABEL, "%s N=%zu%s", row->v->name, row->n, row->steps_mode ? " steps" : "");
}

/* The finished rows' table, then their CSV and sidecar with inc. */
static int main_keep_write(void *ctx, const struct results_incomplete *inc, char *err,
			   size_t errlen)
{
	const struct main_keep *m = ctx;
	size_t nrows = *m->k.nrows;
	struct results_meta meta = { m->argc, m->argv, &m->o->timing, NULL, 0, m->skipped, inc };
	if (!m->o->quiet)
		results_print_table(stdout, *m->rows, nrows);
	return results_write(m->k.out, *m->rows, nrows, &meta, err, errlen);
}

/* A main_keep for the command's rows *rows, *nrows finished, into out
 * (rank 0's; NULL: none). */
void main_keep_init(struct main_keep *m, int argc, char **argv, const struct cli_options *o,
		    const char *out, struct result_row **rows, const size_t *nrows,
		    const struct skips *skipped)
{
	keep_init(&m->k, dist_rank() == 0 ? out : NULL, nrows, main_keep_label, main_keep_write, m);
	m->argc = argc;
	m->argv = argv;
	m->o = o;
	m->rows = rows;
	m->skipped = skipped;
}

/* Plans the rows of a sweep (main_sweep) on pg, and their labels on keep
 * (NULL: none). */
void main_plan_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
		     const size_t *n_list, size_t n_count, struct progress *pg, struct keep *keep)
{
	for (size_t k = 0; k < n_count; k++) {
		bool first = true;
		for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
			if (!run[i])
				continue;
			if (pg)
				progress_plan(pg, main_row_cost(o, &nbody_variants[i], n_list[k], first),
					      (int)i);
			if (keep)
				keep_plan(keep, "%s N=%zu%s", nbody_variants[i].name, n_list[k],
					  o->steps ? " steps" : "");
			first = false;
		}
	}
}

/* One N's arrays on rank 0: the bodies, the variants' accelerations and
 * the reference at the checked bodies. */
struct main_bodies {
	float *pos4, *vel4;
	double *acc3, *ref3, *fsum;
	size_t *idx;
};

static void main_bodies_free(struct main_bodies *b)
{
	free(b->pos4);
	free(b->vel4);
	free(b->acc3);
	free(b->idx);
	free(b->ref3);
	free(b->fsum);
	memset(b, 0, sizeof *b);
}

/* Allocates b for n bodies, makes them and the reference; *m is the
 * number of checked bodies. 0, or -1 with err. */
static int main_bodies_make(const struct cli_options *o, const struct bodies *file, size_t n,
			    struct main_bodies *b, size_t *m, char *err, size_t errlen)
{
	size_t mcap = validate_checked_count(n);
	b->pos4 = malloc(4 * n * sizeof(float));
	b->vel4 = malloc(4 * n * sizeof(float));
	b->acc3 = malloc(3 * n * sizeof(double));
	b->idx = malloc(mcap * sizeof *b->idx);
	b->ref3 = malloc(3 * mcap * sizeof *b->ref3);
	b->fsum = malloc(mcap * sizeof *b->fsum);
	if (!b->pos4 || !b->vel4 || !b->acc3 || !b->idx || !b->ref3 || !b->fsum) {
		snprintf(err, errlen, "out of memory at N = %zu", n);
		return -1;
	}
	if (main_bodies(o, file, n, b->pos4, b->vel4) != 0) {
		snprintf(err, errlen, "cannot make %s bodies for N = %zu", ic_kind_name(o->ic), n);
		return -1;
	}
	*m = validate_pick_bodies(n, o->seed, b->idx);
	ref_accel_bodies(b->pos4, n, o->eps, b->idx, *m, b->ref3, b->fsum);
	return 0;
}

/* Validates (and for run, times) every variant marked in run[] at every N
 * of n_list, appending one row each to rows, which has room for them.
 * Returns CLI_OK, or CLI_FAILED when a variant failed or could not run. */
int main_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
	       const size_t *n_list, size_t n_count, const struct bodies *file,
	       struct result_row *rows, size_t *nrows, const char *suite, struct progress *pg)
{
	int status = CLI_OK;
	bool root = dist_rank() == 0;
	static struct sysinfo_host host;
	sysinfo_host_read(&host);
	static struct gpu_device_info gpu;
	bool have_gpu = gpu_device_query(gpu_device_current(), &gpu) == 0;

	for (size_t k = 0; k < n_count && !main_aborted; k++) {
		size_t n = n_list[k], m = 0;
		struct main_bodies b = { 0 };
		struct main_single single = { -1, NULL };
		char err[256] = "";
		char doing[KEEP_LABEL + 64];
		snprintf(doing, sizeof doing, "%s%sthe bodies and the reference at N=%zu",
			 suite ? suite : "", suite ? " " : "", n);
		interrupt_set_doing(doing);
		/* Rank 0 holds the bodies and the reference; the others get
		 * their blocks from it. */
		int failed = root && main_bodies_make(o, file, n, &b, &m, err, sizeof err) != 0;
		if (dist_agree(failed, err, sizeof err) >= 0) {
			fprintf(stderr, "harness: %s\n", err);
			status = CLI_FAILED;
			goto next_n;
		}
		bool first = true;
		for (size_t i = 0; i < NBODY_VARIANT_COUNT && !main_aborted; i++) {
			if (!run[i])
				continue;
			const struct variant *v = &nbody_variants[i];
			snprintf(doing, sizeof doing, "%s%s%s N=%zu", suite ? suite : "",
				 suite ? " " : "", v->name, n);
			progress_begin(pg, main_row_cost(o, v, n, first), (int)i, "%s", doing);
			interrupt_set_doing(doing);
			first = false;
			struct result_row *row = &rows[*nrows];
			row->v = v;
			row->device_name = v->device == VARIANT_GPU && have_gpu ? gpu.name : host.cpu_model;
			row->n = n;
			row->ic = o->ic_file ? o->ic_file : ic_kind_name(o->ic);
			row->seed = o->seed;
			row->eps = o->eps;
			row->steps_mode = o->steps;
			row->dt = o->dt;
			row->clock_start_mhz = row->clock_end_mhz = row->ceiling = NAN;
			row->ranks = v->dist ? dist_size() : 1;
			row->gpus = v->device == VARIANT_GPU ? row->ranks : 0;
			row->rank_time_min = row->rank_time_avg = row->rank_time_max = NAN;
			row->comm_time = row->comm_bytes = NAN;
			row->single_diff = row->single_bound = NAN;
			row->rank_sent = row->rank_recv = NAN;
			if (v->dist)
				main_measure_dist(o, v, b.pos4, b.vel4, n, b.idx, m, b.ref3, b.fsum,
						  b.acc3, have_gpu ? &gpu : NULL, &single, row);
			else
				main_measure(o, v, b.pos4, b.vel4, n, b.idx, m, b.ref3, b.fsum, b.acc3,
					     have_gpu ? &gpu : NULL, &single, row);
			if (!row->val.pass || (o->cmd == CLI_RUN && !row->timed))
				status = CLI_FAILED;
			progress_end(pg);
			interrupt_row_kept(nrows);
		}
next_n:
		main_bodies_free(&b);
		free(single.acc3);
	}
	return status;
}

/* Prints the table and writes the CSV and sidecar (when out is set: a
 * row that failed validation is there with valid = 0 and no timing, so a
 * suite keeps the rows that did run, and nothing downstream can take the
 * failed one for a measurement), then frees the rows. Returns status, or
 * CLI_FAILED when writing failed. The writing holds the interruption's
 * lock and marks keep (NULL: none) written, so an interruption from then
 * on keeps nothing more. */
int main_finish(int argc, char **argv, const struct cli_options *o, const char *out,
		struct result_row *rows, size_t nrows, const struct skips *skipped, int status,
		struct keep *keep)
{
	char err[512];
	struct sysinfo_rank *facts = NULL;
	if (main_aborted) {
		status = CLI_FAILED;
		goto out_free;
	}
	int nfacts = dist_rank_facts_gather(&facts);
	interrupt_lock();
	if (keep)
		keep->written = true;
	if (!o->quiet)
		results_print_table(stdout, rows, nrows);
	if (out && dist_rank() == 0) {
		struct results_meta meta = { argc, argv, &o->timing, facts, nfacts, skipped, NULL };
		if (results_write(out, rows, nrows, &meta, err, sizeof err) != 0) {
			fprintf(stderr, "harness: %s\n", err);
			status = CLI_FAILED;
		} else if (!o->quiet) {
			results_say_wrote(out);
		}
	}
	interrupt_unlock();
out_free:
	free(facts);
	for (size_t r = 0; r < nrows; r++)
		timing_result_free(&rows[r].t);
	free(rows);
	return status;
}

int main_run(int argc, char **argv, const struct cli_options *o)
{
	char err[512];
	int status = CLI_OK;
	bool run[NBODY_VARIANT_COUNT];
	struct bodies file = { 0 };
	size_t nrows = 0;
	struct skips *skipped = calloc(1, sizeof *skipped);
	if (!skipped)
		return cli_usage_error(NULL, "out of memory");
	size_t nrun = main_pick_variants(o, run, skipped, err, sizeof err);
	if (nrun == 0) {
		free(skipped);
		return cli_usage_error(NULL, err);
	}

	struct cli_options local = *o;
	if (o->ic_file) {
		/* Rank 0 reads the file; the others need only its length. */
		int bad = dist_rank() == 0 && bodies_read_file(o->ic_file, &file, err, sizeof err) != 0;
		if (dist_agree(bad, err, sizeof err) >= 0)
			return cli_usage_error(NULL, err);
		if (dist_bcast(&file.n, sizeof file.n, 0) != 0)
			dist_fatal("MPI_Bcast failed");
		if (!o->n_given) {
			local.n_list = &file.n;
			local.n_count = 1;
		}
	}
	if (main_check_sizes(&local, o->ic_file ? &file : NULL, err, sizeof err) != CLI_OK) {
		status = cli_usage_error(NULL, err);
		goto out_free_file;
	}
	const char *out = o->out;
	if (!out && o->cmd == CLI_RUN && dist_rank() == 0)
		out = main_default_out();
	int unwritable = out && dist_rank() == 0 && atomic_path_writable(out, err, sizeof err) != 0;
	if (dist_agree(unwritable, err, sizeof err) >= 0) {
		status = cli_usage_error(NULL, err);
		goto out_free_file;
	}
	struct result_row *rows = calloc(nrun * local.n_count, sizeof *rows);
	if (!rows) {
		status = cli_usage_error(NULL, "out of memory for the result table");
		goto out_free_file;
	}
	main_say_skipped(o, NULL, skipped);
	struct progress pg;
	struct main_keep keep;
	main_keep_init(&keep, argc, argv, o, out, &rows, &nrows, skipped);
	progress_init(&pg, o->cmd == CLI_RUN ? "run" : "check", o->quiet || dist_rank() != 0);
	main_plan_sweep(&local, run, local.n_list, local.n_count, &pg, &keep.k);
	interrupt_set_keeper(keep_rows, &keep.k);
	status = main_sweep(&local, run, local.n_list, local.n_count, o->ic_file ? &file : NULL,
			    rows, &nrows, NULL, &pg);
	progress_finish(&pg);
	status = main_finish(argc, argv, o, out, rows, nrows, skipped, status, &keep.k);
	interrupt_set_keeper(NULL, NULL);
	interrupt_set_doing(NULL);
	keep_free(&keep.k);
out_free_file:
	bodies_free(&file);
	free(skipped);
	return status;
}
