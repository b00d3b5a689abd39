/* nbody_measure.c - bin/harness run and check: one row measured, on one device or on the ranks of a distributed run */
#include "nbody_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"
#include "../cli.h"
#include "dist.h"
#include "dist_instance.h"
#include "../core/gpu_device.h"
#include "instance.h"
#include "../core/nvml.h"
#include "../core/repetitions.h"
#include "nbody_results.h"
#include "../core/stats.h"
#include "../core/testhook.h"
#include "validate.h"

/* Set when a distributed row failed: every rank stops where it is, rank 0
 * has said why in one line, and no results file is written. */
bool main_aborted;

static void main_abort(const struct variant *v, size_t n, const char *why)
{
	fprintf(stderr, "harness: %s N=%zu: %s (no results written)\n", v->name, n, why);
	main_aborted = true;
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

/* Validates (and for run, times) one variant on one set of bodies. The
 * reference for these bodies is passed in so it is computed once per N. */
void main_measure(const struct cli_options *o, const struct variant *v, const float *pos4,
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
void main_measure_dist(const struct cli_options *o, const struct variant *v,
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
