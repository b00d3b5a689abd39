/* plot_data.c - a figure's data: the curves of results tables' rows, and the documents' published numbers */
#define _POSIX_C_SOURCE 200809L
#include "plot_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/json_in.h"
#include "../core/results.h"

/* ---- curves from results tables ------------------------------------------ */

/* A number that may be empty (NAN then); -1 with err when malformed. */
static int plot_number(const struct csv_table *t, size_t row, const char *col, double *out,
		       char *err, size_t errlen)
{
	if (csv_table_named(t, row, col)[0] == '\0') {
		*out = NAN;
		return 0;
	}
	return csv_table_double(t, row, col, out, err, errlen);
}

static int plot_check_columns(const struct plot_suite *s, const struct csv_table *t, char *err,
			      size_t errlen)
{
	const char *need[] = { s->x_col, s->curve_col, s->y_col, "variant", "n", "valid",
			       "device_name" };
	for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
		if (csv_table_col(t, need[i]) >= 0)
			continue;
		snprintf(err, errlen, "%s:%zu: no column '%s' (not a results CSV of bin/harness?)",
			 t->path, t->header_line, need[i]);
		return -1;
	}
	return 0;
}

/* The index of the curve of row (title from curve_col) in table, added
 * when new; (size_t)-1 when out of memory. */
static size_t plot_curve_of(const struct plot_suite *s, const struct csv_table *t, size_t row,
			    const char *tag, struct plot_curves *c)
{
	const char *key = csv_table_named(t, row, s->curve_col);
	char title[1024], label[300];
	bool by_n = strcmp(s->curve_col, "n") == 0;
	if (by_n) {
		char n[64];
		plot_format_n(strtod(key, NULL), n, sizeof n);
		snprintf(label, sizeof label, "N = %s", n);
	} else {
		snprintf(label, sizeof label, "%s", key);
	}
	if (tag)
		snprintf(title, sizeof title, "%s%s: %s", csv_table_named(t, row, "device_name"), tag,
			 label);
	else
		snprintf(title, sizeof title, "%s", label);
	for (size_t i = 0; i < c->ncurves; i++)
		if (c->curves[i].table == c->ntables && strcmp(c->curves[i].title, title) == 0)
			return i;
	struct plot_curve *cv = plot_grow(c->curves, &c->curves_cap, c->ncurves + 1, sizeof *cv);
	if (!cv)
		return (size_t)-1;
	c->curves = cv;
	cv = &c->curves[c->ncurves];
	cv->title = strdup(title);
	cv->device = strdup(csv_table_named(t, row, "device_name"));
	cv->table = c->ntables;
	cv->order = by_n ? strtod(key, NULL) : (double)c->ncurves;
	cv->look = (struct plot_look){ c->ncurves, c->ncurves, false }; /* each its own */
	if (!cv->title || !cv->device) {
		free(cv->title);
		free(cv->device);
		return (size_t)-1;
	}
	return c->ncurves++;
}

/* Reads row's point; *keep is false for rows not drawn (invalid, untimed). */
static int plot_read_point(const struct plot_suite *s, const struct csv_table *t, size_t row,
			   struct plot_point *p, bool *keep, char *err, size_t errlen)
{
	double valid;
	*keep = false;
	if (plot_number(t, row, "valid", &valid, err, errlen) != 0 ||
	    plot_number(t, row, s->x_col, &p->x, err, errlen) != 0 ||
	    plot_number(t, row, s->y_col, &p->y, err, errlen) != 0 ||
	    plot_number(t, row, "pct_of_ceiling", &p->pct_of_ceiling, err, errlen) != 0 ||
	    plot_number(t, row, "interactions_per_s", &p->speedup, err, errlen) != 0 ||
	    plot_number(t, row, "noise_pct", &p->noise_pct, err, errlen) != 0)
		return -1;
	*keep = valid == 1 && p->y > 0 && isfinite(p->y) && isfinite(p->x);
	return 0;
}

/* Turns the interactions/s each point of table holds in speedup into the
 * ratio over cpu-portable's at the same N in that table. */
static void plot_speedups(const struct csv_table *t, struct plot_curves *c, size_t first,
			  const size_t *rows)
{
	size_t n = c->npoints - first;
	double *base = malloc((n ? n : 1) * sizeof *base);
	for (size_t i = 0; base && i < n; i++) {
		base[i] = NAN;
		const char *ni = csv_table_named(t, rows[i], "n");
		for (size_t j = 0; j < n; j++)
			if (strcmp(csv_table_named(t, rows[j], "variant"), "cpu-portable") == 0 &&
			    strcmp(csv_table_named(t, rows[j], "n"), ni) == 0)
				base[i] = c->points[first + j].speedup;
	}
	for (size_t i = 0; i < n; i++)
		c->points[first + i].speedup = base ? c->points[first + i].speedup / base[i] : NAN;
	free(base);
}

/* rel_first of every point: y over y at the smallest x of its curve. */
static void plot_rel_first(struct plot_curves *c)
{
	for (size_t i = 0; i < c->npoints; i++) {
		const struct plot_point *first = NULL;
		for (size_t j = 0; j < c->npoints; j++)
			if (c->points[j].curve == c->points[i].curve &&
			    (!first || c->points[j].x < first->x))
				first = &c->points[j];
		c->points[i].rel_first = c->points[i].y / first->y;
	}
}

int plot_collect(const struct plot_suite *s, const struct csv_table *t, const char *tag,
		 struct plot_curves *c, char *err, size_t errlen)
{
	size_t first = c->npoints, *rows = NULL, rows_cap = 0;
	if (plot_check_columns(s, t, err, errlen) != 0)
		return -1;
	for (size_t r = 0; r < t->nrows; r++) {
		struct plot_point p;
		bool keep;
		if (plot_read_point(s, t, r, &p, &keep, err, errlen) != 0)
			goto out_error;
		if (!keep)
			continue;
		size_t k = c->npoints - first;
		size_t *nr = plot_grow(rows, &rows_cap, k + 1, sizeof *rows);
		struct plot_point *np = plot_grow(c->points, &c->points_cap, c->npoints + 1,
						  sizeof *np);
		if (nr)
			rows = nr;
		if (np)
			c->points = np;
		p.curve = plot_curve_of(s, t, r, tag, c);
		if (!nr || !np || p.curve == (size_t)-1)
			goto out_oom;
		rows[k] = r;
		c->points[c->npoints++] = p;
	}
	plot_speedups(t, c, first, rows);
	plot_rel_first(c);
	c->ntables++;
	free(rows);
	return 0;
out_oom:
	snprintf(err, errlen, "%s: out of memory", t->path);
out_error:
	free(rows);
	return -1;
}

/* ---- published numbers ---------------------------------------------------- */

static int plot_write_published_file(FILE *fp, const char *path, char *err, size_t errlen)
{
	struct csv_table t;
	if (csv_table_read(path, &t, err, errlen) != 0)
		return -1;
	/* The sidecar says what a published file is: only the documents'
	 * rates (or a file without a sidecar) go among them; a series such
	 * as martin_moyce1952's has a figure of its own. */
	char *side = results_sidecar_path(path), jerr[256];
	struct json_in_value doc;
	if (side && json_in_read_file(side, &doc, jerr, sizeof jerr) == 0) {
		const struct json_in_value *schema = json_in_member(&doc, "schema");
		const bool rates = !schema || schema->type != JSON_IN_STRING ||
				   strcmp(schema->string, PLOT_PUBLISHED_SCHEMA) == 0;
		if (!rates)
			fprintf(fp, "# %s: %s, not rates: left out\n", path, schema->string);
		json_in_free(&doc);
		if (!rates) {
			free(side);
			csv_table_free(&t);
			return 0;
		}
	}
	free(side);
	const char *cols[] = { "source", "quantity", "value", "n", "unit", "device" };
	for (size_t i = 0; i < 6; i++) {
		if (csv_table_col(&t, cols[i]) >= 0)
			continue;
		snprintf(err, errlen, "%s:%zu: no column '%s'", path, t.header_line, cols[i]);
		csv_table_free(&t);
		return -1;
	}
	for (size_t r = 0; r < t.nrows; r++) {
		double v, n;
		if (plot_number(&t, r, "value", &v, err, errlen) != 0 ||
		    plot_number(&t, r, "n", &n, err, errlen) != 0) {
			csv_table_free(&t);
			return -1;
		}
		plot_put_string(fp, csv_table_named(&t, r, "source"));
		fputc(' ', fp);
		plot_put_string(fp, csv_table_named(&t, r, "quantity"));
		plot_put(fp, v);
		plot_put(fp, n);
		fputc(' ', fp);
		plot_put_string(fp, csv_table_named(&t, r, "unit"));
		fputc(' ', fp);
		plot_put_string(fp, csv_table_named(&t, r, "device"));
		fputc('\n', fp);
	}
	csv_table_free(&t);
	return 0;
}

int plot_write_published(FILE *fp, const char *dir, char *err, size_t errlen)
{
	char **files = plot_list_csv(dir);
	int rc = 0;
	fprintf(fp, "# published numbers from %s/*.csv\n"
		    "# columns: source quantity value n unit device\n", dir);
	for (size_t i = 0; files && files[i] && rc == 0; i++)
		rc = plot_write_published_file(fp, files[i], err, errlen);
	plot_free_list(files);
	if (rc == 0 && ferror(fp)) {
		snprintf(err, errlen, "cannot write the published numbers");
		rc = -1;
	}
	return rc;
}
