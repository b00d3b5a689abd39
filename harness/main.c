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
#include "../reference/nbody_ref.h"
#include "ab.h"
#include "atomic_file.h"
#include "bodies_io.h"
#include "ceiling.h"
#include "cli.h"
#include "compare.h"
#include "csv_table.h"
#include "gpu_device.h"
#include "instance.h"
#include "nvml.h"
#include "plot.h"
#include "sph_run.h"
#include "results.h"
#include "sysinfo.h"
#include "testhook.h"
#include "../variants/suites.h"
#include "validate.h"

/* Bytes one body costs at most on the host: float positions, velocities
 * and accelerations of the instance (48), a float copy of the bodies (32),
 * the variant's accelerations in double (24) and the reference's (32). */
#define MAIN_BYTES_PER_BODY 136

static int main_usage_error(const char *msg)
{
	fprintf(stderr, "harness: %s\n", msg);
	return CLI_USAGE;
}

static int main_list(const struct cli_options *o)
{
	printf("%-16s %-14s %-5s %-4s %5s %3s %6s %3s  %-10s %s\n", "variant", "family", "prec",
	       "dev", "p", "q", "unroll", "k", "available", "summary");
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		if ((o->variant_given && !o->selected[i]) ||
		    (o->device_filter >= 0 && (int)v->device != o->device_filter))
			continue;
		const char *why;
		bool ok = variant_available(v, &why);
		printf("%-16s %-14s %-5s %-4s %5d %3d %6d %3d  %-10s %s\n", v->name, v->family,
		       variant_precision_name(v->precision), variant_device_name(v->device), v->tile_p,
		       v->threads_q, v->unroll, v->bodies_k, ok ? "yes" : "no", v->summary);
		if (!ok)
			printf("%-16s   (unavailable: %s)\n", "", why);
	}
	return CLI_OK;
}

/* Marks what runs: the selection, or every available variant. Unavailable
 * ones are skipped with a note; when nothing at all can run, that is the
 * user's error. Returns how many run. */
static size_t main_pick_variants(const struct cli_options *o, bool run[NBODY_VARIANT_COUNT],
				 char *err, size_t errlen)
{
	size_t count = 0;
	const char *last_why = NULL, *last_name = NULL;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		const char *why;
		run[i] = false;
		if ((o->variant_given && !o->selected[i]) ||
		    (o->device_filter >= 0 && (int)v->device != o->device_filter))
			continue;
		if (!variant_available(v, &why)) {
			if (!o->quiet && o->variant_given)
				fprintf(stderr, "harness: skipping %s: %s\n", v->name, why);
			last_why = why;
			last_name = v->name;
			continue;
		}
		run[i] = true;
		count++;
	}
	if (count == 0)
		snprintf(err, errlen, "variant '%s' is not available: %s", last_name ? last_name : "?",
			 last_why ? last_why : "none selected");
	return count;
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
	size_t avail = sysinfo_mem_available();
	for (size_t k = 0; k < o->n_count; k++) {
		size_t n = o->n_list[k];
		if (file && n > file->n) {
			snprintf(err, errlen, "--n %zu exceeds the %zu bodies in %s", n, file->n, o->ic_file);
			return CLI_USAGE;
		}
		if (avail && n > avail / MAIN_BYTES_PER_BODY) {
			snprintf(err, errlen,
				 "--n %zu needs about %.1f GiB of memory, %.1f GiB is available (allowed here: N <= %zu)",
				 n, (double)n * MAIN_BYTES_PER_BODY / (1 << 30), (double)avail / (1 << 30),
				 avail / MAIN_BYTES_PER_BODY);
			return CLI_USAGE;
		}
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

/* Progress on stderr when it is a terminal: row k of total, and a time
 * estimate from the work done so far (cost grows as N^2). */
static void main_progress(const struct cli_options *o, size_t k, size_t total,
			  const char *name, size_t n, double elapsed, double work_done,
			  double work_total)
{
	if (o->quiet || !isatty(STDERR_FILENO))
		return;
	char eta[32] = "";
	if (work_done > 0)
		snprintf(eta, sizeof eta, ", ~%.0f s left",
			 elapsed / work_done * (work_total - work_done));
	fprintf(stderr, "\r\033[K[%zu/%zu] %s N=%zu%s", k + 1, total, name, n, eta);
	fflush(stderr);
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
static double main_gpu_ceiling(const struct gpu_device_info *gpu, enum variant_precision p)
{
	unsigned mhz;
	double clock = nvml_max_sm_clock_mhz(gpu->pci_bus_id, &mhz) == 0 ? mhz : gpu->clock_khz / 1e3;
	return ceiling_interactions_per_s(gpu->cc_major, gpu->cc_minor, gpu->sm_count, clock, p);
}

static void main_measure(const struct cli_options *o, const struct variant *v, const float *pos4,
			 const float *vel4, size_t n, const size_t *idx, size_t m,
			 const double *ref3, const double *fsum, double *acc3,
			 const struct gpu_device_info *gpu, struct result_row *row)
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
	if (o->cmd != CLI_RUN)
		goto out_destroy;
	int rc;
	struct timing_opts topt = o->timing;
	topt.slowdown = testhook_slowdown(v->name);
	topt.test_work = testhook_work(v->name);
	if (v->device == VARIANT_GPU) {
		row->ceiling = main_gpu_ceiling(gpu, v->precision);
		row->clock_start_mhz = main_gpu_clock(gpu);
	}
	if (o->steps) {
		struct main_step_ctx sc = { &in, o->dt };
		rc = timing_measure(main_steps_fn, &sc, &topt, &row->t);
	} else {
		rc = timing_measure(instance_forces, &in, &topt, &row->t);
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

/* Validates (and for run, times) every variant marked in run[] at every N
 * of n_list, appending one row each to rows, which has room for them.
 * Returns CLI_OK, or CLI_FAILED when a variant failed or could not run. */
static int main_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
		      const size_t *n_list, size_t n_count, const struct bodies *file,
		      struct result_row *rows, size_t *nrows)
{
	int status = CLI_OK;
	size_t nrun = 0, first = *nrows;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		nrun += run[i];
	static struct sysinfo_host host;
	sysinfo_host_read(&host);
	static struct gpu_device_info gpu;
	bool have_gpu = gpu_device_query(0, &gpu) == 0;
	double work_total = 0, work_done = 0, t_start = timing_now();
	for (size_t k = 0; k < n_count; k++)
		work_total += (double)nrun * (double)n_list[k] * (double)n_list[k];

	for (size_t k = 0; k < n_count; k++) {
		size_t n = n_list[k];
		size_t mcap = validate_checked_count(n);
		float *pos4 = malloc(4 * n * sizeof(float));
		float *vel4 = malloc(4 * n * sizeof(float));
		double *acc3 = malloc(3 * n * sizeof(double));
		size_t *idx = malloc(mcap * sizeof *idx);
		double *ref3 = malloc(3 * mcap * sizeof *ref3);
		double *fsum = malloc(mcap * sizeof *fsum);
		if (!pos4 || !vel4 || !acc3 || !idx || !ref3 || !fsum) {
			fprintf(stderr, "harness: out of memory at N = %zu\n", n);
			status = CLI_FAILED;
			goto next_n;
		}
		if (main_bodies(o, file, n, pos4, vel4) != 0) {
			fprintf(stderr, "harness: cannot make %s bodies for N = %zu\n", ic_kind_name(o->ic), n);
			status = CLI_FAILED;
			goto next_n;
		}
		size_t m = validate_pick_bodies(n, o->seed, idx);
		ref_accel_bodies(pos4, n, o->eps, idx, m, ref3, fsum);
		for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
			if (!run[i])
				continue;
			const struct variant *v = &nbody_variants[i];
			main_progress(o, *nrows - first, nrun * n_count, v->name, n,
				      timing_now() - t_start, work_done, work_total);
			struct result_row *row = &rows[(*nrows)++];
			row->v = v;
			row->device_name = v->device == VARIANT_GPU && have_gpu ? gpu.name : host.cpu_model;
			row->n = n;
			row->ic = o->ic_file ? o->ic_file : ic_kind_name(o->ic);
			row->seed = o->seed;
			row->eps = o->eps;
			row->steps_mode = o->steps;
			row->dt = o->dt;
			row->clock_start_mhz = row->clock_end_mhz = row->ceiling = NAN;
			main_measure(o, v, pos4, vel4, n, idx, m, ref3, fsum, acc3,
				     have_gpu ? &gpu : NULL, row);
			if (!row->val.pass || (o->cmd == CLI_RUN && !row->timed))
				status = CLI_FAILED;
			work_done += (double)n * (double)n;
		}
next_n:
		free(pos4);
		free(vel4);
		free(acc3);
		free(idx);
		free(ref3);
		free(fsum);
	}
	if (!o->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	return status;
}

/* Prints the table and writes the CSV and sidecar (when out is set), then
 * frees the rows. Returns status, or CLI_FAILED when writing failed. */
static int main_finish(int argc, char **argv, const struct cli_options *o, const char *out,
		       struct result_row *rows, size_t nrows, int status)
{
	char err[512];
	if (!o->quiet)
		results_print_table(stdout, rows, nrows);
	if (out) {
		struct results_meta meta = { argc, argv, &o->timing };
		if (results_write(out, rows, nrows, &meta, err, sizeof err) != 0) {
			fprintf(stderr, "harness: %s\n", err);
			status = CLI_FAILED;
		} else if (!o->quiet) {
			char *side = results_sidecar_path(out);
			printf("wrote %s and %s\n", out, side ? side : "its sidecar");
			free(side);
		}
	}
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
	size_t nrun = main_pick_variants(o, run, err, sizeof err);
	if (nrun == 0)
		return main_usage_error(err);

	struct cli_options local = *o;
	if (o->ic_file) {
		if (bodies_read_file(o->ic_file, &file, err, sizeof err) != 0)
			return main_usage_error(err);
		if (!o->n_given) {
			local.n_list = &file.n;
			local.n_count = 1;
		}
	}
	if (main_check_sizes(&local, o->ic_file ? &file : NULL, err, sizeof err) != CLI_OK) {
		status = main_usage_error(err);
		goto out_free_file;
	}
	const char *out = o->out;
	if (!out && o->cmd == CLI_RUN)
		out = main_default_out();
	if (out && atomic_path_writable(out, err, sizeof err) != 0) {
		status = main_usage_error(err);
		goto out_free_file;
	}
	struct result_row *rows = calloc(nrun * local.n_count, sizeof *rows);
	if (!rows) {
		status = main_usage_error("out of memory for the result table");
		goto out_free_file;
	}
	status = main_sweep(&local, run, local.n_list, local.n_count, o->ic_file ? &file : NULL,
			    rows, &nrows);
	status = main_finish(argc, argv, o, out, rows, nrows, status);
out_free_file:
	bodies_free(&file);
	return status;
}

/* One suite: every line of suites.def with that name, swept in turn into
 * one table, written to DIR/<name>.csv. Variants that cannot run here are
 * skipped and named. */
static int main_suite(int argc, char **argv, const struct cli_options *o, const char *name,
		      const char *dir)
{
	char err[768], out[1024];
	int status = CLI_OK;
	size_t nrows = 0;
	struct result_row *rows = NULL;
	snprintf(out, sizeof out, "%s/%s.csv", dir, name);
	if (atomic_path_writable(out, err, sizeof err) != 0)
		return main_usage_error(err);
	for (size_t e = 0; e < suite_entry_count; e++) {
		const struct suite_entry *se = &suite_entries[e];
		if (strcmp(se->name, name) != 0)
			continue;
		struct cli_options local = *o;
		local.variant_given = true;
		local.steps = se->mode == SUITE_STEPS;
		memset(local.selected, 0, sizeof local.selected);
		if (cli_select_variants(se->variants, &local, err, sizeof err) != CLI_OK ||
		    cli_parse_n_list(se->n_list, &local.n_list, &local.n_count, err, sizeof err) != CLI_OK) {
			fprintf(stderr, "harness: suite %s: %s\n", name, err);
			status = CLI_FAILED;
			continue;
		}
		bool run[NBODY_VARIANT_COUNT];
		size_t nrun = main_pick_variants(&local, run, err, sizeof err);
		if (nrun > 0 && main_check_sizes(&local, NULL, err, sizeof err) == CLI_OK) {
			size_t need = nrows + nrun * local.n_count;
			struct result_row *grown = realloc(rows, need * sizeof *rows);
			if (!grown) {
				free(local.n_list);
				for (size_t r = 0; r < nrows; r++)
					timing_result_free(&rows[r].t);
				free(rows);
				return main_usage_error("out of memory for the result table");
			}
			rows = grown;
			memset(rows + nrows, 0, (need - nrows) * sizeof *rows);
			int st = main_sweep(&local, run, local.n_list, local.n_count, NULL, rows, &nrows);
			if (st != CLI_OK)
				status = st;
		} else if (!o->quiet) {
			fprintf(stderr, "harness: suite %s skips %s: %s\n", name, se->variants, err);
		}
		free(local.n_list);
	}
	if (!o->quiet)
		printf("== suite %s\n", name);
	return main_finish(argc, argv, o, out, rows, nrows, status);
}

/* --suite NAME or all: each suite to its own CSV in --out-dir. */
static int main_suites(int argc, char **argv, const struct cli_options *o)
{
	const char *dir = o->out_dir ? o->out_dir : "results/local";
	atomic_mkdir_p(dir);
	int status = CLI_OK;
	for (size_t e = 0; e < suite_entry_count; e++) {
		const char *name = suite_entries[e].name;
		bool first = true;
		for (size_t k = 0; k < e; k++)
			first = first && strcmp(suite_entries[k].name, name) != 0;
		if (!first || (strcmp(o->suite, "all") != 0 && strcmp(o->suite, name) != 0))
			continue;
		int st = main_suite(argc, argv, o, name, dir);
		if (st == CLI_USAGE)
			return st;
		if (st != CLI_OK)
			status = st;
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
		if (o->selected[i])
			v = &nbody_variants[i];
	const char *why;
	if (!variant_available(v, &why)) {
		snprintf(err, sizeof err, "variant '%s' is not available: %s", v->name, why);
		return main_usage_error(err);
	}
	struct bodies file = { 0 };
	size_t n = o->n_count ? o->n_list[0] : 0;
	if (o->ic_file) {
		if (bodies_read_file(o->ic_file, &file, err, sizeof err) != 0)
			return main_usage_error(err);
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
		status = main_usage_error(err);
		goto out_free;
	}
	pos4 = malloc(4 * n * sizeof(float));
	vel4 = malloc(4 * n * sizeof(float));
	acc3 = malloc(3 * n * sizeof(double));
	ref3 = malloc(3 * n * sizeof(double));
	fsum = malloc(n * sizeof(double));
	if (!pos4 || !vel4 || !acc3 || !ref3 || !fsum) {
		status = main_usage_error("out of memory");
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
		status = main_usage_error("out of memory");
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
 * to the sph command, so the issue's `harness run --suite sph-table` works. */
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
		return main_usage_error("out of memory");
	av[0] = argv[0];
	av[1] = "sph";
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	av[argc + 1] = NULL;
	int status = sph_command(argc + 1, av);
	free(av);
	return status;
}

int main(int argc, char **argv)
{
	struct cli_options o;
	char err[768];
	if (testhook_check(err, sizeof err) != 0)
		return main_usage_error(err);
	if (testhook_active(TESTHOOK_SLOWDOWN) || testhook_active(TESTHOOK_WORK))
		fprintf(stderr, "harness: test hooks on: %s=%s %s=%s lengthen the timings of those variants\n",
			TESTHOOK_WORK, testhook_active(TESTHOOK_WORK) ? testhook_active(TESTHOOK_WORK) : "",
			TESTHOOK_SLOWDOWN,
			testhook_active(TESTHOOK_SLOWDOWN) ? testhook_active(TESTHOOK_SLOWDOWN) : "");
	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return compare_command(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "ab") == 0)
		return ab_command(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "plot") == 0)
		return plot_command(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "sph") == 0)
		return sph_command(argc, argv);
	if (main_is_sph_suite(argc, argv))
		return main_sph_suite(argc, argv);
	if (cli_parse(argc, argv, &o, err, sizeof err) != CLI_OK)
		return main_usage_error(err);
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
