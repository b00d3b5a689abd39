/* main.c - bin/harness: list, validate and time the N-body variants */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../reference/ic.h"
#include "../kernels/nbody/nbody_cpu.h"
#include "../reference/nbody_ref.h"
#include "gate/ab.h"
#include "core/atomic_file.h"
#include "nbody/bodies_io.h"
#include "nbody/ceiling.h"
#include "nbody/commbench.h"
#include "nbody/scaling_model.h"
#include "cli.h"
#include "gate/calibrate.h"
#include "gate/compare.h"
#include "core/csv_table.h"
#include "nbody/dist.h"
#include "nbody/dist_instance.h"
#include "export.h"
#include "core/gpu_device.h"
#include "core/interrupt.h"
#include "core/keep.h"
#include "nbody/instance.h"
#include "core/nvml.h"
#include "figures/plot.h"
#include "core/progress.h"
#include "core/repetitions.h"
#include "report.h"
#include "sph/sph_run.h"
#include "nbody/nbody_results.h"
#include "core/results.h"
#include "core/stats.h"
#include "core/skips.h"
#include "core/sysinfo.h"
#include "core/testhook.h"
#include "../variants/suites.h"
#include "nbody/validate.h"

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

/* Set when a distributed row failed: every rank stops where it is, rank 0
 * has said why in one line, and no results file is written. */
static bool main_aborted;

static void main_abort(const struct variant *v, size_t n, const char *why)
{
	fprintf(stderr, "harness: %s N=%zu: %s (no results written)\n", v->name, n, why);
	main_aborted = true;
}

static int main_list(const struct cli_options *o)
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
static size_t main_pick_variants(const struct cli_options *o, bool run[NBODY_VARIANT_COUNT],
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
static void main_say_skipped(const struct cli_options *o, const char *suite,
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
static int main_bodies(const struct cli_options *o, const struct bodies *file, size_t n,
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
static int main_check_sizes(const struct cli_options *o, const struct bodies *file, char *err,
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

struct main_step_ctx {
	struct instance *in;
	double dt;
};

static int main_steps_fn(void *ctx, int reps, double *seconds)
{
	struct main_step_ctx *s = ctx;
	return instance_steps(s->in, reps, s->dt, seconds);
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

/*
 * What an interruption of run, check or a suite keeps (core/keep.h): the
 * finished rows, with the sidecar of an incomplete run. rows changes (a
 * suite's table grows) only under interrupt_lock.
 */
struct main_keep {
	struct keep k;
	int argc;
	char **argv;
	const struct cli_options *o;
	struct result_row **rows;
	const struct skips *skipped;
};

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
static void main_keep_init(struct main_keep *m, int argc, char **argv, const struct cli_options *o,
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
static void main_plan_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
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

/* Validates (and for run, times) one variant on one set of bodies. The
 * reference for these bodies is passed in so it is computed once per N. */
/* The SM clock of the GPU now, in MHz, or NAN when NVML cannot tell. */
static double main_gpu_clock(const struct gpu_device_info *gpu)
{
	unsigned mhz;
	return gpu && nvml_sm_clock_mhz(gpu->pci_bus_id, &mhz) == 0 ? (double)mhz : NAN;
}

/* The ceiling of a GPU row: at the maximum SM clock NVML reports, else the
 * clock the CUDA driver reports. */
static double main_gpu_ceiling(const struct gpu_device_info *gpu, const struct variant *v)
{
	unsigned mhz;
	double clock = nvml_max_sm_clock_mhz(gpu->pci_bus_id, &mhz) == 0 ? mhz : gpu->clock_khz / 1e3;
	return ceiling_variant_interactions_per_s(v, gpu->cc_major, gpu->cc_minor, gpu->sm_count, clock);
}

/* The one-device accelerations the distributed rows at one N must equal
 * (their rank kernel's), on rank 0: kept from that kernel's own row when
 * the sweep ran it, else computed once per N. */
struct main_single {
	int kernel; /* variant index; -1: none yet */
	double *acc3;
};

/* Keeps acc3 of variant v at n bodies when v is some distributed
 * variant's rank kernel. */
static void main_single_keep(struct main_single *s, const struct variant *v, const double *acc3,
			     size_t n)
{
	int index = (int)(v - nbody_variants);
	bool wanted = false;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		wanted = wanted || (nbody_variants[i].dist && nbody_variants[i].rank_kernel == index);
	if (!wanted || s->kernel == index)
		return;
	free(s->acc3);
	s->kernel = -1;
	s->acc3 = malloc(3 * n * sizeof(double));
	if (!s->acc3)
		return;
	memcpy(s->acc3, acc3, 3 * n * sizeof(double));
	s->kernel = index;
}

/* Makes s hold the accelerations of variant kernel on the bodies (rank 0
 * only). 0, or -1 with err. */
static int main_single_for(const struct cli_options *o, int kernel, const float *pos4,
			   const float *vel4, size_t n, struct main_single *s, char *err,
			   size_t errlen)
{
	if (s->kernel == kernel)
		return 0;
	struct instance in;
	double *acc3 = malloc(3 * n * sizeof(double));
	if (!acc3) {
		snprintf(err, errlen, "out of memory for the one-device accelerations");
		return -1;
	}
	int rc = instance_create(&in, &nbody_variants[kernel], pos4, vel4, n, o->eps, err, errlen);
	if (rc == 0) {
		rc = instance_accels(&in, acc3);
		if (rc != 0)
			snprintf(err, errlen, "%s on one device failed%s%s", nbody_variants[kernel].name,
				 in.gpu ? ": " : "", in.gpu ? gpu_instance_error(in.gpu) : "");
		instance_destroy(&in);
	}
	if (rc == 0)
		main_single_keep(s, &nbody_variants[kernel], acc3, n);
	free(acc3);
	return rc == 0 && s->kernel == kernel ? 0 : -1;
}

static void main_measure(const struct cli_options *o, const struct variant *v, const float *pos4,
			 const float *vel4, size_t n, const size_t *idx, size_t m,
			 const double *ref3, const double *fsum, double *acc3,
			 const struct gpu_device_info *gpu, struct main_single *single,
			 struct result_row *row)
{
	char err[256];
	struct instance in;
	row->val.max_norm = NAN;
	row->val.rel_l2 = NAN;
	row->val.tol = validate_tolerance_for(v->precision, n);
	if (instance_create(&in, v, pos4, vel4, n, o->eps, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return;
	}
	if (instance_accels(&in, acc3) != 0) {
		fprintf(stderr, "harness: %s N=%zu: force evaluation failed%s%s\n", v->name, n,
			in.gpu ? ": " : "", in.gpu ? gpu_instance_error(in.gpu) : "");
		goto out_destroy;
	}
	validate_compare(acc3, idx, m, ref3, fsum, row->val.tol, n, &row->val);
	if (!row->val.pass) {
		fprintf(stderr,
			"harness: %s N=%zu FAILED validation: max_norm_err %.3e (tol %.3e) at body %zu, rel_l2_err %.3e (tol %.3e)\n",
			v->name, n, row->val.max_norm, row->val.tol.max_norm, row->val.worst_body,
			row->val.rel_l2, row->val.tol.rel_l2);
		goto out_destroy;
	}
	main_single_keep(single, v, acc3, n);
	if (o->cmd != CLI_RUN)
		goto out_destroy;
	int rc;
	struct timing_opts topt = o->timing;
	topt.slowdown = testhook_slowdown(v->name);
	topt.test_work = testhook_work(v->name);
	if (v->device == VARIANT_GPU) {
		row->ceiling = main_gpu_ceiling(gpu, v);
		row->clock_start_mhz = main_gpu_clock(gpu);
	}
	if (o->steps) {
		struct main_step_ctx sc = { &in, o->dt };
		rc = repetitions_measure(main_steps_fn, &sc, &topt, &row->t);
	} else {
		rc = repetitions_measure(instance_forces, &in, &topt, &row->t);
	}
	if (v->device == VARIANT_GPU)
		row->clock_end_mhz = main_gpu_clock(gpu);
	if (rc != 0)
		fprintf(stderr, "harness: %s N=%zu: timing failed%s%s\n", v->name, n,
			in.gpu ? ": " : "", in.gpu ? gpu_instance_error(in.gpu) : "");
	row->timed = rc == 0;
out_destroy:
	instance_destroy(&in);
}

/* Rank 0's verdict on a distributed row's accelerations: validation
 * against the reference, then equality with the one-device kernel.
 * 0, or -1 with err. */
static int main_check_dist(const struct cli_options *o, const struct variant *v, const float *pos4,
			   const float *vel4, size_t n, const size_t *idx, size_t m,
			   const double *ref3, const double *fsum, const double *acc3,
			   struct main_single *single, struct result_row *row, char *err, size_t errlen)
{
	validate_compare(acc3, idx, m, ref3, fsum, row->val.tol, n, &row->val);
	if (!row->val.pass) {
		snprintf(err, errlen,
			 "FAILED validation: max_norm_err %.3e (tol %.3e) at body %zu, rel_l2_err %.3e (tol %.3e)",
			 row->val.max_norm, row->val.tol.max_norm, row->val.worst_body, row->val.rel_l2,
			 row->val.tol.rel_l2);
		return -1;
	}
	if (main_single_for(o, v->rank_kernel, pos4, vel4, n, single, err, errlen) != 0)
		return -1;
	row->single_diff = validate_single_diff(acc3, single->acc3, idx, m, fsum);
	if (row->single_diff <= row->single_bound)
		return 0;
	snprintf(err, errlen, "differs from %s on one device by %.3e of sum_j |f_ij| (bound %.3e)",
		 nbody_variants[v->rank_kernel].name, row->single_diff, row->single_bound);
	row->val.pass = false;
	return -1;
}

/* The median over the timed calls (the first, timing_measure's warm-up,
 * left out) of each rank-spread figure. */
static void main_spread(const struct dist_instance *d, struct result_row *row)
{
	const struct dist_spread *calls;
	size_t count = dist_instance_spread(d, &calls), skip = count > 1;
	double *x = malloc((count + 1) * sizeof *x);
	row->rank_time_min = row->rank_time_avg = row->rank_time_max = NAN;
	if (!x || count == 0) {
		free(x);
		return;
	}
	for (int f = 0; f < 3; f++) {
		for (size_t k = skip; k < count; k++)
			x[k - skip] = f == 0 ? calls[k].min : f == 1 ? calls[k].avg : calls[k].max;
		double med = stats_median(x, count - skip);
		*(f == 0 ? &row->rank_time_min : f == 1 ? &row->rank_time_avg : &row->rank_time_max) = med;
	}
	free(x);
}

/* Times a distributed row: the evaluation (or step) with the slowest
 * rank's time, the spread across ranks, then the exchange alone. 0 or -1
 * with err (the same on every rank). */
static int main_time_dist(const struct cli_options *o, struct instance *in, struct result_row *row,
			  char *err, size_t errlen)
{
	struct main_step_ctx sc = { in, o->dt };
	struct timing_result comm;
	dist_instance_spread_reset(in->dist);
	int rc = o->steps ? repetitions_measure(main_steps_fn, &sc, &o->timing, &row->t)
			  : repetitions_measure(instance_forces, in, &o->timing, &row->t);
	if (rc != 0) {
		snprintf(err, errlen, "timing failed: %s", dist_instance_error(in->dist));
		return -1;
	}
	main_spread(in->dist, row);
	if (timing_measure(dist_instance_comm, in->dist, &o->timing, &comm) != 0) {
		snprintf(err, errlen, "timing the exchange failed: %s", dist_instance_error(in->dist));
		return -1;
	}
	row->comm_time = comm.s.median;
	row->comm_bytes = dist_instance_exchange_bytes(in->dist);
	timing_result_free(&comm);
	return 0;
}

/* What one evaluation's exchanges moved on each rank, into the row, held
 * against the variant's formula (dist_traffic_formula): every rank must
 * send and receive exactly that. 0, or -1 with err (on every rank). */
static int main_check_traffic(struct dist_instance *d, const struct variant *v,
			      struct result_row *row, char *err, size_t errlen)
{
	struct dist_traffic most, least;
	const struct dist_layout *l = dist_instance_layout(d);
	if (dist_instance_traffic(d, &most, &least) != 0) {
		snprintf(err, errlen, "counting the exchange failed: %s", dist_instance_error(d));
		return -1;
	}
	row->rank_sent = most.sent;
	row->rank_recv = most.recv;
	if (v->dist == DIST_2D) {
		row->grid_rows = l->rows;
		row->grid_cols = l->cols;
	}
	double want = dist_traffic_formula((enum dist_scheme)v->dist, l);
	if (most.sent == want && least.sent == want && most.recv == want && least.recv == want)
		return 0;
	double off = most.sent != want ? most.sent : least.sent != want ? least.sent
		   : most.recv != want ? most.recv : least.recv;
	snprintf(err, errlen,
		 "a rank's exchange moved %.0f bytes in an evaluation where the scheme moves %.0f "
		 "(sent %.0f to %.0f, received %.0f to %.0f across the ranks)",
		 off, want, least.sent, most.sent, least.recv, most.recv);
	return -1;
}

/* main_measure for a distributed variant, on every rank together: set-up,
 * accelerations gathered to rank 0, the exchange's blocks checked, its
 * bytes counted, validation (rank 0), then for run the timing. Any failure
 * ends the run (main_aborted) on every rank with rank 0's one line. */
static void main_measure_dist(const struct cli_options *o, const struct variant *v,
			      const float *pos4, const float *vel4, size_t n, const size_t *idx,
			      size_t m, const double *ref3, const double *fsum, double *acc3,
			      const struct gpu_device_info *gpu, struct main_single *single,
			      struct result_row *row)
{
	char err[512] = "";
	struct instance in;
	row->val.max_norm = row->val.rel_l2 = NAN;
	row->val.tol = validate_tolerance_for(v->precision, n);
	row->single_bound = validate_single_bound(v->precision, n);
	if (instance_create(&in, v, pos4, vel4, n, o->eps, err, sizeof err) != 0) {
		main_abort(v, n, err);
		return;
	}
	snprintf(row->rank_devices, sizeof row->rank_devices, "%s", dist_instance_devices(in.dist));
	int failed = instance_accels(&in, acc3) != 0;
	if (failed)
		snprintf(err, sizeof err, "force evaluation failed: %s", dist_instance_error(in.dist));
	else
		failed = dist_instance_verify(in.dist, err, sizeof err) != 0 ||
			 main_check_traffic(in.dist, v, row, err, sizeof err) != 0;
	if (!failed) {
		int bad = dist_rank() == 0 && main_check_dist(o, v, pos4, vel4, n, idx, m, ref3, fsum,
							     acc3, single, row, err, sizeof err) != 0;
		/* rank 0's verdict, on every rank */
		if (dist_bcast(&bad, sizeof bad, 0) != 0 || dist_bcast(err, sizeof err, 0) != 0)
			dist_fatal("MPI_Bcast failed");
		failed = bad;
		row->val.pass = !failed;
	}
	if (!failed && o->cmd == CLI_RUN) {
		if (v->device == VARIANT_GPU && gpu) {
			row->ceiling = dist_size() * main_gpu_ceiling(gpu, v);
			row->clock_start_mhz = main_gpu_clock(gpu);
		}
		failed = main_time_dist(o, &in, row, err, sizeof err) != 0 ||
			 dist_instance_verify(in.dist, err, sizeof err) != 0;
		if (v->device == VARIANT_GPU && gpu)
			row->clock_end_mhz = main_gpu_clock(gpu);
		row->timed = !failed;
	}
	if (failed)
		main_abort(v, n, err);
	instance_destroy(&in);
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
static int main_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
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
static int main_finish(int argc, char **argv, const struct cli_options *o, const char *out,
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

static int main_run(int argc, char **argv, const struct cli_options *o)
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
static int main_suites(int argc, char **argv, const struct cli_options *o)
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

/* Writes one line per body: position, mass, the variant's and the
 * reference's accelerations and the error. 0 or -1 with err. */
static int main_write_forces(const char *path, const float *pos4, size_t n, const double *acc3,
			     const double *ref3, const double *fsum, char *err, size_t errlen)
{
	static const char *const header[] = {
		"body", "x", "y", "z", "mass", "ax", "ay", "az", "ax_ref", "ay_ref", "az_ref",
		"abs_err", "norm_err",
	};
	enum { NCOL = sizeof header / sizeof header[0] };
	struct atomic_file af;
	if (atomic_file_open(&af, path, err, errlen) != 0)
		return -1;
	int bad = csv_write_row(af.fp, header, NCOL);
	char cells[NCOL][40];
	const char *fields[NCOL];
	for (size_t c = 0; c < NCOL; c++)
		fields[c] = cells[c];
	for (size_t i = 0; i < n && !bad; i++) {
		const double *a = &acc3[3 * i], *r = &ref3[3 * i];
		double e = sqrt((a[0] - r[0]) * (a[0] - r[0]) + (a[1] - r[1]) * (a[1] - r[1]) +
				(a[2] - r[2]) * (a[2] - r[2]));
		snprintf(cells[0], 40, "%zu", i);
		for (int c = 0; c < 4; c++)
			snprintf(cells[1 + c], 40, "%.9g", pos4[4 * i + c]);
		for (int c = 0; c < 3; c++) {
			snprintf(cells[5 + c], 40, "%.9g", a[c]);
			snprintf(cells[8 + c], 40, "%.17g", r[c]);
		}
		snprintf(cells[11], 40, "%.6e", e);
		snprintf(cells[12], 40, "%.6e", fsum[i] > 0 ? e / fsum[i] : e);
		bad = csv_write_row(af.fp, fields, NCOL);
	}
	if (bad) {
		snprintf(err, errlen, "cannot write %s", path);
		atomic_file_abort(&af);
		return -1;
	}
	return atomic_file_commit(&af, err, errlen);
}

static int main_forces(const struct cli_options *o)
{
	char err[512];
	const struct variant *v = NULL;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		if (cli_wants_variant(o, i))
			v = &nbody_variants[i];
	const char *why;
	if (!variant_available(v, &why)) {
		snprintf(err, sizeof err, "variant '%s' is not available: %s", v->name, why);
		return cli_usage_error(NULL, err);
	}
	struct bodies file = { 0 };
	size_t n = o->n_count ? o->n_list[0] : 0;
	if (o->ic_file) {
		if (bodies_read_file(o->ic_file, &file, err, sizeof err) != 0)
			return cli_usage_error(NULL, err);
		if (!o->n_given)
			n = file.n;
	}
	struct cli_options local = *o;
	local.n_list = &n;
	local.n_count = 1;
	int status = CLI_OK;
	float *pos4 = NULL, *vel4 = NULL;
	double *acc3 = NULL, *ref3 = NULL, *fsum = NULL;
	struct instance in = { 0 };
	if (main_check_sizes(&local, o->ic_file ? &file : NULL, err, sizeof err) != CLI_OK ||
	    atomic_path_writable(o->out, err, sizeof err) != 0) {
		status = cli_usage_error(NULL, err);
		goto out_free;
	}
	pos4 = malloc(4 * n * sizeof(float));
	vel4 = malloc(4 * n * sizeof(float));
	acc3 = malloc(3 * n * sizeof(double));
	ref3 = malloc(3 * n * sizeof(double));
	fsum = malloc(n * sizeof(double));
	if (!pos4 || !vel4 || !acc3 || !ref3 || !fsum) {
		status = cli_usage_error(NULL, "out of memory");
		goto out_free;
	}
	if (main_bodies(o, o->ic_file ? &file : NULL, n, pos4, vel4) != 0 ||
	    instance_create(&in, v, pos4, vel4, n, o->eps, err, sizeof err) != 0 ||
	    instance_accels(&in, acc3) != 0) {
		fprintf(stderr, "harness: %s N=%zu: %s\n", v->name, n, err);
		status = CLI_FAILED;
		goto out_free;
	}
	ref_accel_bodies(pos4, n, o->eps, NULL, n, ref3, fsum);
	size_t *all = malloc(n * sizeof *all);
	struct validation val;
	if (!all) {
		status = cli_usage_error(NULL, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < n; i++)
		all[i] = i;
	validate_compare(acc3, all, n, ref3, fsum, validate_tolerance_for(v->precision, n), n, &val);
	free(all);
	if (main_write_forces(o->out, pos4, n, acc3, ref3, fsum, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		status = CLI_FAILED;
		goto out_free;
	}
	if (!o->quiet)
		printf("%s N=%zu: %s, max_norm_err %.3e (tol %.3e) at body %zu, rel_l2_err %.3e; wrote %s\n",
		       v->name, n, val.pass ? "valid" : "INVALID", val.max_norm, val.tol.max_norm,
		       val.worst_body, val.rel_l2, o->out);
	if (!val.pass)
		status = CLI_FAILED;
out_free:
	instance_destroy(&in);
	free(pos4);
	free(vel4);
	free(acc3);
	free(ref3);
	free(fsum);
	bodies_free(&file);
	return status;
}

/* Whether this is "run ... --suite sph-..." (an SPH suite): those belong
 * to the sph command, so that `harness run --suite sph-table` works. */
static bool main_is_sph_suite(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "run") != 0)
		return false;
	for (int i = 2; i < argc; i++) {
		const char *v = NULL;
		if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(argv[i], "--suite=", 8) == 0)
			v = argv[i] + 8;
		if (v && strncmp(v, "sph-", 4) == 0)
			return true;
	}
	return false;
}

/* Runs "harness run ARGS" as "harness sph run ARGS". */
static int main_sph_suite(int argc, char **argv)
{
	char **av = malloc((size_t)(argc + 2) * sizeof *av);
	if (!av)
		return cli_usage_error(NULL, "out of memory");
	av[0] = argv[0];
	av[1] = "sph";
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	av[argc + 1] = NULL;
	int status = sph_command(argc + 1, av);
	free(av);
	return status;
}

/* sph_command reads the whole command line (argv[1] is "sph"); argv here
 * starts at "sph", one past the program's name. */
static int main_sph(int argc, char **argv)
{
	return sph_command(argc + 1, argv - 1);
}

static int main_version(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: harness version   (or harness --version)\n\n"
		       "Prints the commit this binary was built from (and whether the tree had\n"
		       "uncommitted changes), whether CUDA (with its architectures), MPI, NCCL\n"
		       "and PNG output were built in, and the compilers.\n");
		return CLI_OK;
	}
	if (argc > 1) {
		char err[256];
		snprintf(err, sizeof err, "version takes no arguments ('%s')", argv[1]);
		return cli_usage_error(NULL, err);
	}
	sysinfo_print_version(stdout);
	return CLI_OK;
}

/* Every command, in the order the help overview lists them: the overview
 * and the unknown-command message are both made from this table. run:
 * commands that parse their own options, called with argv at the command's
 * name; NULL for those of cli_parse (list, run, check, forces). */
static const struct main_cmd {
	const char *name, *summary;
	int (*run)(int argc, char **argv);
} main_cmds[] = {
	{ "list", "the variants this harness knows and which can run here", NULL },
	{ "run", "validate, then time; table on screen, CSV + JSON sidecar", NULL },
	{ "check", "validate only", NULL },
	{ "forces", "per-body accelerations of one variant next to the reference", NULL },
	{ "compare", "two results CSVs row by row: same, faster, slower, SLOWER (a\n"
		     "regression) or inconclusive (too noisy to tell)", compare_command },
	{ "calibrate", "what separate runs of the same suites differ by: the floors\n"
		       "compare adds to each row's noise", calibrate_command },
	{ "ab", "the same rows with a base revision's build and this one,\n"
		"interleaved until decided, pooled and compared: a regression gate", ab_command },
	{ "plot", "the chapter's figures from suite CSVs (gnuplot)", plot_command },
	{ "report", "the results pages' tables (N-body, SPH, rendering) from a\n"
		    "results folder", report_command },
	{ "export", "a results CSV as Google Benchmark JSON", export_command },
	{ "sph", "the SPH variants on the paper's dam break (harness sph --help)", main_sph },
	{ "commbench", "times the distributed variants' collectives alone (under mpirun)",
	  commbench_command },
	{ "model", "predicts the distributed variants at more ranks from what was\n"
		   "measured", model_command },
	{ "version", "the commit and build options of this binary (also --version)", main_version },
	{ "help", "this overview (also --help)", NULL },
};
enum { MAIN_NCMDS = sizeof main_cmds / sizeof main_cmds[0] };

static const struct main_cmd *main_find_cmd(const char *name)
{
	for (size_t i = 0; i < MAIN_NCMDS; i++)
		if (strcmp(main_cmds[i].name, name) == 0)
			return &main_cmds[i];
	return NULL;
}

/* The help overview, from main_cmds (continuation lines indented). */
static void main_help(FILE *fp)
{
	fprintf(fp, "usage: harness COMMAND [options]   (harness COMMAND --help for details)\n\n");
	for (size_t i = 0; i < MAIN_NCMDS; i++) {
		fprintf(fp, "  %-10s ", main_cmds[i].name);
		for (const char *p = main_cmds[i].summary; *p; p++) {
			fputc(*p, fp);
			if (*p == '\n')
				fprintf(fp, "  %-10s ", "");
		}
		fputc('\n', fp);
	}
}

/* "unknown command 'x' (allowed: list, run, ...)" from main_cmds. */
static int main_unknown_cmd(const char *name)
{
	char err[1024];
	int w = snprintf(err, sizeof err, "unknown command '%s' (allowed:", name);
	for (size_t i = 0; i < MAIN_NCMDS && w > 0 && (size_t)w < sizeof err; i++)
		w += snprintf(err + w, sizeof err - (size_t)w, "%s %s", i ? "," : "", main_cmds[i].name);
	if (w > 0 && (size_t)w < sizeof err)
		snprintf(err + w, sizeof err - (size_t)w, ")");
	return cli_usage_error(NULL, err);
}

/* --gpu: the GPU of this process (cli_use_gpu), the same on every rank;
 * refused when the run has several ranks, which take the GPU of their
 * rank on their host (dist_gpu_bind). CLI_OK, or CLI_USAGE with err. */
static int main_gpu(const struct cli_options *o, char *err, size_t errlen)
{
	if (o->gpu < 0)
		return CLI_OK;
	if (dist_size() > 1) {
		snprintf(err, errlen, "--gpu %d picks the GPU of a run on one process: under mpirun "
				      "(this run has %d ranks) each rank takes the GPU of its rank on its "
				      "host; CUDA_VISIBLE_DEVICES chooses which GPUs those are", o->gpu,
			 dist_size());
		return CLI_USAGE;
	}
	bool wanted = false;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		wanted = wanted || (cli_wants_variant(o, i) && nbody_variants[i].device == VARIANT_GPU);
	return cli_use_gpu(o->gpu, wanted, err, errlen);
}

/* The command line's command. With several ranks only list, run and check
 * go on (forces, compare, plot and sph run on one process). */
static int main_command(int argc, char **argv)
{
	struct cli_options o;
	char err[2048];
	const char *cmd = argc > 1 ? argv[1] : "";
	if (dist_size() > 1 && strcmp(cmd, "list") != 0 && strcmp(cmd, "run") != 0 &&
	    strcmp(cmd, "check") != 0 && strcmp(cmd, "commbench") != 0) {
		snprintf(err, sizeof err, "'%s' runs on one process (this run has %d ranks; mpirun runs list, run, check and commbench)",
			 cmd, dist_size());
		return cli_usage_error(NULL, err);
	}
	if (strcmp(cmd, "--version") == 0)
		cmd = "version";
	if (argc < 2) { /* no command: the overview, as bad input */
		main_help(stderr);
		return CLI_USAGE;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		main_help(stdout);
		return CLI_OK;
	}
	const struct main_cmd *mc = main_find_cmd(cmd);
	if (!mc)
		return main_unknown_cmd(cmd);
	if (testhook_check(cli_names_variant, err, sizeof err) != 0)
		return cli_usage_error(NULL, err);
	if (testhook_active(TESTHOOK_SLOWDOWN) || testhook_active(TESTHOOK_WORK))
		fprintf(stderr, "harness: test hooks on: %s=%s %s=%s lengthen the timings of those variants\n",
			TESTHOOK_WORK, testhook_active(TESTHOOK_WORK) ? testhook_active(TESTHOOK_WORK) : "",
			TESTHOOK_SLOWDOWN,
			testhook_active(TESTHOOK_SLOWDOWN) ? testhook_active(TESTHOOK_SLOWDOWN) : "");
	/* the measuring commands keep their finished rows when interrupted;
	 * not under mpirun with several ranks, whose runtime ends the ranks
	 * by SIGTERM when one of them aborts, after that one has said why */
	if ((strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0 || strcmp(cmd, "sph") == 0) &&
	    dist_size() == 1)
		interrupt_trap();
	if (main_is_sph_suite(argc, argv))
		return main_sph_suite(argc, argv);
	if (mc->run)
		return mc->run(argc - 1, argv + 1);
	if (cli_parse(argc, argv, &o, err, sizeof err) != CLI_OK)
		return cli_usage_error(NULL, err);
	if (!o.help && main_gpu(&o, err, sizeof err) != CLI_OK) {
		cli_options_free(&o);
		return dist_rank() == 0 ? cli_usage_error(NULL, err) : CLI_USAGE;
	}
	int status;
	if (o.help) {
		cli_print_help(o.cmd);
		status = CLI_OK;
	} else if (o.cmd == CLI_LIST) {
		status = main_list(&o);
	} else if (o.cmd == CLI_FORCES) {
		status = main_forces(&o);
	} else if (o.suite) {
		status = main_suites(argc, argv, &o);
	} else {
		status = main_run(argc, argv, &o);
	}
	cli_options_free(&o);
	return status;
}

int main(int argc, char **argv)
{
	static const struct results_cpu_facts cpu_facts = { nbody_cpu_simd_isa, nbody_cpu_simd_threads };
	results_set_cpu_facts(&cpu_facts);
	sysinfo_load_mark(); /* what ran beside the run is counted from here */
	char err[512];
	if (dist_init(&argc, &argv, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return CLI_FAILED;
	}
	if (dist_size() > 1)
		dist_gpu_bind();
	/* Every rank took the same decisions; the worst status is the run's. */
	double status = main_command(argc, argv);
	if (dist_allreduce_max(&status, 1) != 0)
		status = CLI_FAILED;
	dist_finalize();
	return (int)status;
}
