/* nbody_forces.c - bin/harness forces: per-body accelerations of one variant next to the reference */
#include "nbody_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../reference/nbody_ref.h"
#include "../core/atomic_file.h"
#include "bodies_io.h"
#include "../cli.h"
#include "../core/csv_table.h"
#include "instance.h"
#include "validate.h"

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

int main_forces(const struct cli_options *o)
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
