/* sph_snapshot.c - bin/harness sph snapshot: a variant's state at the steps of --at, as CSV or VTK */
#define _GNU_SOURCE
#include "sph_snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/atomic_file.h"
#include "../core/csv_table.h"
#include "../cli.h"
#include "sph_vtk.h"
#include "sph_row.h"
#include "sph_window.h"

/*
 * A snapshot's output format (--format): prepare checks, before the run,
 * that its files can be written (CLI_USAGE's one line in err when not);
 * begin takes the built scene; step gets the variant's state at each step
 * of --at (in the caller's order, fluid only); commit makes the output
 * appear whole, abort leaves nothing of it. Each but abort returns 0, or
 * -1 with one line in err.
 */
struct sph_snap_writer;
struct sph_snap_format {
	const char *name;
	int (*prepare)(struct sph_snap_writer *w, const struct sph_options *o,
		       const struct sph_variant *v, char *err, size_t errlen);
	int (*begin)(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
		     size_t errlen);
	int (*step)(struct sph_snap_writer *w, unsigned long step, double time, const float *pos4,
		    const float *vel4, const float *rho, char *err, size_t errlen);
	int (*commit)(struct sph_snap_writer *w, char *err, size_t errlen);
	void (*abort)(struct sph_snap_writer *w);
};

/* The state of either format's writer. */
struct sph_snap_writer {
	const struct sph_snap_format *fmt;
	const struct sph_scene *sc;
	const char *out;	/* what a user opens: the CSV, or the series' .pvd */
	char pvd[1400];		/* vtk: the .pvd's path */
	struct atomic_file af;	/* csv */
	struct sph_vtk_series vs; /* vtk */
	float *pres;		/* vtk: each fluid particle's pressure */
};

/* csv: one file, a row per particle and step (plots/sph-collapse.gp). */
static int sph_snap_csv_prepare(struct sph_snap_writer *w, const struct sph_options *o,
				const struct sph_variant *v, char *err, size_t errlen)
{
	(void)v;
	w->out = o->out;
	return atomic_path_writable(o->out, err, errlen);
}

static int sph_snap_csv_begin(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
			      size_t errlen)
{
	static const char *const header[] = { "step", "time_s", "x_m", "y_m", "z_m",
					      "speed_m_per_s", "rho_kg_per_m3" };
	w->sc = sc;
	if (atomic_file_open(&w->af, w->out, err, errlen) != 0)
		return -1;
	if (csv_write_row(w->af.fp, header, 7) != 0) {
		snprintf(err, errlen, "cannot write %s", w->out);
		return -1;
	}
	return 0;
}

static int sph_snap_csv_step(struct sph_snap_writer *w, unsigned long step, double time,
			     const float *pos4, const float *vel4, const float *rho, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < w->sc->n; i++) {
		char c[7][32];
		const char *f[7] = { c[0], c[1], c[2], c[3], c[4], c[5], c[6] };
		double sp = sqrt((double)vel4[4 * i] * vel4[4 * i] +
				 (double)vel4[4 * i + 1] * vel4[4 * i + 1] +
				 (double)vel4[4 * i + 2] * vel4[4 * i + 2]);
		snprintf(c[0], 32, "%lu", step);
		snprintf(c[1], 32, "%.6g", time);
		for (int d = 0; d < 3; d++)
			snprintf(c[2 + d], 32, "%.7g", pos4[4 * i + d]);
		snprintf(c[5], 32, "%.5g", sp);
		snprintf(c[6], 32, "%.6g", rho[i]);
		if (csv_write_row(w->af.fp, f, 7) != 0) {
			snprintf(err, errlen, "cannot write %s", w->out);
			return -1;
		}
	}
	return 0;
}

static int sph_snap_csv_commit(struct sph_snap_writer *w, char *err, size_t errlen)
{
	return atomic_file_commit(&w->af, err, errlen);
}

static void sph_snap_csv_abort(struct sph_snap_writer *w)
{
	atomic_file_abort(&w->af);
}

/* vtk: a directory of PolyData files and their time series (sph_vtk.h),
 * <variant>-<column> the prefix of its files. */
static int sph_snap_vtk_prepare(struct sph_snap_writer *w, const struct sph_options *o,
				const struct sph_variant *v, char *err, size_t errlen)
{
	char base[256];
	snprintf(base, sizeof base, "%s-%s", v->name, o->columns[0].name);
	if (sph_vtk_series_open(&w->vs, o->out, base, o->at, o->nat, err, errlen) != 0)
		return -1;
	sph_vtk_file_name(w->pvd, sizeof w->pvd, o->out, base, SPH_VTK_PVD, 0);
	w->out = w->pvd;
	return 0;
}

/* The boundary file: the walls' positions and psi (Akinci's volume-based
 * mass, kg: the scene stores psi / m). */
static int sph_snap_vtk_begin(struct sph_snap_writer *w, const struct sph_scene *sc, char *err,
			      size_t errlen)
{
	w->sc = sc;
	w->pres = malloc((sc->n ? sc->n : 1) * sizeof *w->pres);
	float *psi = malloc((sc->nb ? sc->nb : 1) * sizeof *psi);
	int rc = -1;
	if (!w->pres || !psi) {
		snprintf(err, errlen, "out of memory for %zu particles", sc->n + sc->nb);
		goto out_free_psi;
	}
	for (size_t b = 0; b < sc->nb; b++)
		psi[b] = (float)(sc->bnd4[4 * b + 3] * sc->p.mass);
	const struct sph_vtk_array a[] = { { "psi_kg", 1, psi, 1 } };
	rc = sph_vtk_series_boundary(&w->vs, sc->nb, sc->bnd4, 4, a, 1, err, errlen);
out_free_psi:
	free(psi);
	return rc;
}

/* A fluid file: positions, velocity, density and the pressure of the
 * equation of state (sph_ref_pressure) of that density. */
static int sph_snap_vtk_step(struct sph_snap_writer *w, unsigned long step, double time,
			     const float *pos4, const float *vel4, const float *rho, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < w->sc->n; i++)
		w->pres[i] = (float)sph_ref_pressure(&w->sc->p, rho[i]);
	const struct sph_vtk_array a[] = { { "velocity_m_per_s", 3, vel4, 4 },
					   { "density_kg_per_m3", 1, rho, 1 },
					   { "pressure_Pa", 1, w->pres, 1 } };
	return sph_vtk_series_step(&w->vs, step, time, w->sc->n, pos4, 4, a, 3, err, errlen);
}

static int sph_snap_vtk_commit(struct sph_snap_writer *w, char *err, size_t errlen)
{
	free(w->pres);
	w->pres = NULL;
	return sph_vtk_series_commit(&w->vs, err, errlen);
}

static void sph_snap_vtk_abort(struct sph_snap_writer *w)
{
	free(w->pres);
	w->pres = NULL;
	sph_vtk_series_abort(&w->vs);
}

/* The formats --format takes; the first is the default. */
static const struct sph_snap_format sph_snap_formats[] = {
	{ "csv", sph_snap_csv_prepare, sph_snap_csv_begin, sph_snap_csv_step, sph_snap_csv_commit,
	  sph_snap_csv_abort },
	{ "vtk", sph_snap_vtk_prepare, sph_snap_vtk_begin, sph_snap_vtk_step, sph_snap_vtk_commit,
	  sph_snap_vtk_abort },
};
#define SPH_SNAP_NFORMATS (sizeof sph_snap_formats / sizeof sph_snap_formats[0])

/* --format NAME: one of sph_snap_formats. CLI_OK, or CLI_USAGE naming them. */
int sph_parse_format(const char *s, struct sph_options *o, char *err, size_t errlen)
{
	o->format_given = true;
	for (size_t f = 0; f < SPH_SNAP_NFORMATS; f++)
		if (strcmp(s, sph_snap_formats[f].name) == 0) {
			o->format = f;
			return CLI_OK;
		}
	int w = snprintf(err, errlen, "--format '%s': allowed are", s);
	for (size_t f = 0; f < SPH_SNAP_NFORMATS && w > 0 && (size_t)w < errlen; f++)
		w += snprintf(err + w, errlen - (size_t)w, "%s %s", f ? "," : "", sph_snap_formats[f].name);
	return CLI_USAGE;
}

/* Runs one variant on one column and hands every particle at the steps of
 * --at to the writer of --format: the data of the collapse picture
 * (plots/sph-collapse.gp), or of ParaView. */
int sph_snapshot(const struct sph_options *o)
{
	char err[1600];
	const struct sph_variant *v = NULL;
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (sph_wants(o, i))
			v = &sph_variants[i];
	const char *why;
	if (!sph_variant_available(v, &why)) {
		snprintf(err, sizeof err, "%s cannot run here: %s", v->name, why);
		return cli_usage_error("sph", err);
	}
	struct sph_snap_writer w = { 0 };
	w.fmt = &sph_snap_formats[o->format];
	if (sph_check_columns(o, err, sizeof err) != 0 || w.fmt->prepare(&w, o, v, err, sizeof err) != 0)
		return cli_usage_error("sph", err);
	const struct sph_column *col = &o->columns[0];
	struct sph_scene sc;
	if (sph_scene_build(col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: cannot build column %s: %s\n", col->name, err);
		w.fmt->abort(&w);
		return CLI_FAILED;
	}
	const struct sph_params p = sc.p;
	const size_t n = sc.n;
	int status = CLI_FAILED;
	void *ctx = NULL;
	float *pos4 = malloc(4 * n * sizeof(float)), *vel4 = malloc(4 * n * sizeof(float));
	float *rho = malloc(n * sizeof(float));
	const struct sph_input in = { sc.n, sc.pos4, sc.vel4, sc.nb, sc.bnd4 };
	if (!pos4 || !vel4 || !rho) {
		fprintf(stderr, "harness: sph: out of memory for %zu particles\n", n);
		goto out_free;
	}
	if (v->ops->create(&ctx, &in, &p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s: %s\n", v->name, err);
		goto out_free;
	}
	if (w.fmt->begin(&w, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s\n", err);
		goto out_destroy;
	}
	unsigned long done = 0;
	for (size_t k = 0; k < o->nat; k++) {
		struct sph_phase_times t = { 0 };
		if ((o->at[k] > done && v->ops->steps(ctx, (int)(o->at[k] - done), &t) != 0) ||
		    v->ops->evaluate(ctx, 0) != 0 || v->ops->read(ctx, pos4, vel4, rho, NULL) != 0) {
			fprintf(stderr, "harness: sph: %s failed: %s\n", v->name, v->ops->error(ctx));
			goto out_destroy;
		}
		done = o->at[k];
		if (w.fmt->step(&w, done, done * p.dt, pos4, vel4, rho, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph: %s\n", err);
			goto out_destroy;
		}
	}
	if (w.fmt->commit(&w, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s\n", err);
	} else {
		status = CLI_OK;
		if (!o->quiet)
			printf("wrote %s: %zu particles at %zu steps (dt = %g s)\n", w.out, n, o->nat, p.dt);
	}
out_destroy:
	v->ops->destroy(ctx);
out_free:
	if (status != CLI_OK)
		w.fmt->abort(&w);
	free(pos4);
	free(vel4);
	free(rho);
	sph_scene_free(&sc);
	return status;
}
