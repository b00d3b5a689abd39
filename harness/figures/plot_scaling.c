/* plot_scaling.c - the scaling figures: one CSV per number of ranks, merged */
#define _POSIX_C_SOURCE 200809L
#include "plot_scaling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../variants/registry.h"
#include "../core/csv_table.h"

/* One valid, timed row of a scaling CSV. */
struct scaling_row {
	char variant[64];
	char device[256];
	double n, ranks, gpus, ips, pct, noise;
};

struct scaling_rows {
	struct scaling_row *rows;
	size_t count, cap;
};

/* Whether file (a path) is dir/<suite>-p<digits>.csv. */
static bool scaling_is_rank_file(const char *path, const char *suite)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(suite);
	if (strncmp(base, suite, len) != 0 || strncmp(base + len, "-p", 2) != 0)
		return false;
	const char *d = base + len + 2;
	size_t digits = strspn(d, "0123456789");
	return digits > 0 && strcmp(d + digits, ".csv") == 0;
}

/* A cell as a number: NAN when empty or malformed. */
static double scaling_number(const struct csv_table *t, size_t r, const char *col)
{
	const char *cell = csv_table_named(t, r, col);
	char *end;
	double v = strtod(cell, &end);
	return cell[0] && *end == '\0' ? v : NAN;
}

/* Adds the valid, timed rows of the CSV at path. 0, or -1 with err. */
static int scaling_read(const char *path, struct scaling_rows *out, char *err, size_t errlen)
{
	struct csv_table t;
	static const char *const need[] = { "variant", "n", "ranks", "valid", "interactions_per_s",
					    "device_name" };
	if (csv_table_read(path, &t, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
		if (csv_table_col(&t, need[i]) >= 0)
			continue;
		snprintf(err, errlen, "%s:%zu: no column '%s' (a scaling CSV of bin/harness?)", path,
			 t.header_line, need[i]);
		csv_table_free(&t);
		return -1;
	}
	for (size_t r = 0; r < t.nrows; r++) {
		struct scaling_row row = {
			.n = scaling_number(&t, r, "n"), .ranks = scaling_number(&t, r, "ranks"),
			.gpus = scaling_number(&t, r, "gpus"),
			.ips = scaling_number(&t, r, "interactions_per_s"),
			.pct = scaling_number(&t, r, "pct_of_ceiling"),
			.noise = scaling_number(&t, r, "noise_pct"),
		};
		if (scaling_number(&t, r, "valid") != 1 || !(row.ips > 0) || !(row.ranks >= 1) ||
		    !(row.n >= 1))
			continue;
		snprintf(row.variant, sizeof row.variant, "%s",
			 csv_table_cell(&t, r, (size_t)csv_table_col(&t, "variant")));
		snprintf(row.device, sizeof row.device, "%s",
			 csv_table_cell(&t, r, (size_t)csv_table_col(&t, "device_name")));
		if (out->count == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 64;
			struct scaling_row *p = realloc(out->rows, cap * sizeof *p);
			if (!p) {
				snprintf(err, errlen, "%s: out of memory", path);
				csv_table_free(&t);
				return -1;
			}
			out->rows = p;
			out->cap = cap;
		}
		out->rows[out->count++] = row;
	}
	csv_table_free(&t);
	return 0;
}

/* The row of variant name on one rank at n bodies, or NULL. */
static const struct scaling_row *scaling_find(const struct scaling_rows *rs, const char *name,
					      double n)
{
	for (size_t i = 0; i < rs->count; i++)
		if (rs->rows[i].ranks == 1 && rs->rows[i].n == n && strcmp(rs->rows[i].variant, name) == 0)
			return &rs->rows[i];
	return NULL;
}

/* The one-device rate row r's efficiency divides by (see plot_scaling.h). */
static const struct scaling_row *scaling_base(const struct scaling_rows *rs,
					      const struct scaling_row *r, const struct variant *v,
					      bool weak)
{
	double n = weak ? r->n / r->ranks : r->n;
	const struct scaling_row *b = scaling_find(rs, nbody_variants[v->rank_kernel].name, n);
	return b ? b : scaling_find(rs, r->variant, n);
}

/* The registry index of a variant name (curves sort by it); a large
 * number for names this build does not know. */
static double scaling_order(const char *name)
{
	const struct variant *v = variant_find(name);
	return v ? (double)(v - nbody_variants) : (double)NBODY_VARIANT_COUNT;
}

/* The dense rank of v among the distinct values of key over the rows (how
 * many are below it), so that families and members count from 0. */
static size_t scaling_rank(const struct scaling_rows *rs,
			   double (*key)(const struct scaling_row *), double v)
{
	size_t below = 0;
	for (size_t i = 0; i < rs->count; i++) {
		double k = key(&rs->rows[i]);
		bool first = k < v;
		for (size_t j = 0; j < i && first; j++)
			first = key(&rs->rows[j]) != k;
		below += first;
	}
	return below;
}

/* Distributed variants first, so that they take the first colours and
 * dash types (solid, dashed, ...), then the one-device ones. */
static double scaling_key_variant(const struct scaling_row *r)
{
	const struct variant *v = variant_find(r->variant);
	return scaling_order(r->variant) + (v && v->dist ? 0 : 2.0 * NBODY_VARIANT_COUNT);
}

static double scaling_key_n(const struct scaling_row *r)
{
	return r->n;
}

static double scaling_key_ranks(const struct scaling_row *r)
{
	return r->ranks;
}

/* Turns the rows into the two sets of curves. 0, or -1 (out of memory).
 * Looks (plot_look): a variant is a family in both sets, so it has one
 * colour in both panels; the members are the curves' P (rates) and N
 * (efficiencies) of strong scaling, each variant its own in weak scaling;
 * the one-device rate is a backdrop, which the P = 1 rows coincide with. */
static int scaling_curves(const struct plot_suite *s, const struct scaling_rows *rs,
			  struct plot_curves *rate, struct plot_curves *eff)
{
	bool weak = s->scaling == PLOT_WEAK;
	char title[512];
	for (size_t i = 0; i < rs->count; i++) {
		const struct scaling_row *r = &rs->rows[i];
		const struct variant *v = variant_find(r->variant);
		bool dist = v && v->dist;
		double order = scaling_order(r->variant);
		size_t family = scaling_rank(rs, scaling_key_variant, scaling_key_variant(r));
		struct plot_look look = { family, family, !dist };
		struct plot_point p = { 0, weak ? r->ranks : r->n, r->ips, r->pct, NAN, NAN, r->noise };
		if (!weak)
			look.member = scaling_rank(rs, scaling_key_ranks, r->ranks);
		if (dist && !weak)
			snprintf(title, sizeof title, "%s, P = %g", r->variant, r->ranks);
		else
			snprintf(title, sizeof title, "%s%s", r->variant, dist ? "" : " (one device)");
		if (plot_curves_add(rate, title, r->device, r->ranks * 1e3 + order, look, p) != 0)
			return -1;
		const struct scaling_row *b = dist ? scaling_base(rs, r, v, weak) : NULL;
		if (!b)
			continue;
		struct plot_point e = { 0, r->ranks, 100.0 * r->ips / (r->ranks * b->ips), NAN, NAN,
					NAN, NAN };
		if (weak)
			snprintf(title, sizeof title, "%s", r->variant);
		else {
			char n[64];
			plot_format_n(r->n, n, sizeof n);
			snprintf(title, sizeof title, "%s, N = %s", r->variant, n);
		}
		look.backdrop = false;
		if (!weak)
			look.member = scaling_rank(rs, scaling_key_n, r->n);
		if (plot_curves_add(eff, title, r->device, order * 1e12 + (weak ? 0 : r->n), look,
				    e) != 0)
			return -1;
	}
	return 0;
}

/* The machine of one device name: the most GPUs (else ranks) a row of it
 * ran on, as "4 x NVIDIA H200", "AMD EPYC (2 ranks)" or the bare name. */
static void scaling_machine(const struct scaling_rows *rs, const char *device, char *out,
			    size_t outlen)
{
	double gpus = 0, ranks = 0;
	for (size_t i = 0; i < rs->count; i++) {
		const struct scaling_row *r = &rs->rows[i];
		if (strcmp(r->device, device) != 0)
			continue;
		gpus = r->gpus > gpus ? r->gpus : gpus;
		ranks = r->ranks > ranks ? r->ranks : ranks;
	}
	if (gpus >= 2)
		snprintf(out, outlen, "%g x %s", gpus, device);
	else if (gpus < 1 && ranks >= 2)
		snprintf(out, outlen, "%s (%g ranks)", device, ranks);
	else
		snprintf(out, outlen, "%s", device);
}

/* The machines of the rows, joined with " / " in order of appearance. */
static void scaling_machines(const struct scaling_rows *rs, char *out, size_t outlen)
{
	out[0] = '\0';
	for (size_t i = 0; i < rs->count; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(rs->rows[j].device, rs->rows[i].device) == 0;
		if (seen || !rs->rows[i].device[0])
			continue;
		char one[400];
		size_t used = strlen(out);
		scaling_machine(rs, rs->rows[i].device, one, sizeof one);
		snprintf(out + used, outlen - used, "%s%s", used ? " / " : "", one);
	}
}

int plot_scaling_collect(const struct plot_suite *s, const char *dir, struct plot_curves *rate,
			 struct plot_curves *eff, char *sources, size_t srclen, char *machines,
			 size_t machlen, char *err, size_t errlen)
{
	char **files = plot_list_csv(dir);
	struct scaling_rows rs = { 0 };
	int nfiles = 0, rc = 0;
	sources[0] = '\0';
	for (size_t i = 0; files && files[i] && rc == 0; i++) {
		if (!scaling_is_rank_file(files[i], s->name))
			continue;
		rc = scaling_read(files[i], &rs, err, errlen);
		size_t used = strlen(sources);
		snprintf(sources + used, srclen - used, "%s%s", used ? ", " : "", files[i]);
		nfiles++;
	}
	plot_free_list(files);
	scaling_machines(&rs, machines, machlen);
	if (rc == 0 && scaling_curves(s, &rs, rate, eff) != 0) {
		snprintf(err, errlen, "%s: out of memory", dir);
		rc = -1;
	}
	free(rs.rows);
	return rc != 0 ? -1 : nfiles;
}

void plot_efficiency_range(const struct plot_curves *eff, double *lo, double *hi)
{
	double low = INFINITY, top = 100;
	for (size_t i = 0; i < eff->npoints; i++) {
		double y = eff->points[i].y;
		if (!isfinite(y))
			continue;
		low = y < low ? y : low;
		top = y > top ? y : top;
	}
	if (!isfinite(low)) {
		*lo = 0;
		*hi = 110;
		return;
	}
	double l = low - 0.1 * (top - low);
	l = floor(l < top - 5 ? l : top - 5);
	*lo = l > 0 ? l : 0;
	*hi = top + fmax(1, 0.05 * (top - *lo));
}
