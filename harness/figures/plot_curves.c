/* plot_curves.c - the curves of a figure: points by curve, written as gnuplot data */
#define _POSIX_C_SOURCE 200809L
#include "plot_curves.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"

void *plot_grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? 2 * *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

void plot_format_n(double n, char *out, size_t outlen)
{
	if (!(n >= 1 && n < 1e18 && n == floor(n))) {
		snprintf(out, outlen, "%g", n);
		return;
	}
	int e;
	if (frexp(n, &e) == 0.5 && e - 1 >= 16) {
		snprintf(out, outlen, "2^%d", e - 1);
		return;
	}
	char digits[32], grouped[48];
	int len = snprintf(digits, sizeof digits, "%.0f", n), k = 0;
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			grouped[k++] = ',';
		grouped[k++] = digits[i];
	}
	grouped[k] = '\0';
	snprintf(out, outlen, "%s", grouped);
}

/* Twenty colours apart from each other and from black and grey. */
static const char *const plot_palette_fixed[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#17becf", "#bcbd22", "#000080", "#aec7e8", "#ff9896", "#98df8a", "#ffbb78",
	"#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#800000",
};
#define PLOT_PALETTE_FIXED (sizeof plot_palette_fixed / sizeof *plot_palette_fixed)

/* Colour i past the fixed ones: hues a golden angle apart, saturated, at
 * three lightnesses in turn, so that no two are equal. */
static void plot_palette_generated(size_t i, char *out, size_t outlen)
{
	double h = fmod(0.11 + (double)i * 0.618033988749895, 1.0) * 6;
	double v = 0.55 + 0.2 * (double)(i % 3), s = 0.85, c = v * s;
	double x = c * (1 - fabs(fmod(h, 2) - 1)), m = v - c, rgb[3];
	int sector = (int)h;
	double table[6][3] = { { c, x, 0 }, { x, c, 0 }, { 0, c, x },
			       { 0, x, c }, { x, 0, c }, { c, 0, x } };
	for (int k = 0; k < 3; k++)
		rgb[k] = table[sector % 6][k] + m;
	snprintf(out, outlen, "#%02x%02x%02x", (int)lround(rgb[0] * 255), (int)lround(rgb[1] * 255),
		 (int)lround(rgb[2] * 255));
}

/* Colour i of the palette, "#rrggbb", into out (16 bytes). */
static void plot_palette_colour(size_t i, char *out)
{
	if (i < PLOT_PALETTE_FIXED)
		snprintf(out, 16, "%s", plot_palette_fixed[i]);
	else
		plot_palette_generated(i - PLOT_PALETTE_FIXED, out, 16);
}

size_t plot_palette(size_t count, char *out, size_t outlen)
{
	size_t used = 0, i = 0;
	if (outlen)
		out[0] = '\0';
	for (; i < count; i++) {
		char c[16];
		plot_palette_colour(i, c);
		if (used + strlen(c) + 2 > outlen)
			break;
		used += (size_t)snprintf(out + used, outlen - used, "%s%s", i ? " " : "", c);
	}
	return i;
}

/* gnuplot's point types, filled shapes (circle, square, triangles,
 * diamond, pentagon) before open ones, then the strokes. */
static const int plot_markers[PLOT_MARKERS] = { 7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14, 1, 2, 3 };
/* gnuplot's dash types: solid, dashed, dash-dot, dash-dot-dot, dotted. */
static const int plot_dashes[] = { 1, 2, 4, 5, 3 };

/* Appends word to the list at out (len bytes); false when it does not fit. */
static bool plot_add_word(char *out, size_t len, const char *word)
{
	size_t used = strlen(out);
	int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", word);
	return n >= 0 && (size_t)n < len - used;
}

int plot_line_styles(const struct plot_curves *c, struct plot_line_styles *s)
{
	size_t *order = malloc((c->ncurves + 1) * sizeof *order);
	bool ok = order != NULL;
	s->colours[0] = s->points[0] = s->dashes[0] = s->widths[0] = '\0';
	if (ok)
		plot_curve_order(c, order);
	for (size_t k = 0; ok && k < c->ncurves; k++) {
		const struct plot_look *l = &c->curves[order[k]].look;
		char colour[16], w[32];
		plot_palette_colour(l->family, colour);
		snprintf(w, sizeof w, "#%s%s", l->backdrop ? "aa" : "", colour + 1);
		ok = plot_add_word(s->colours, sizeof s->colours, w);
		snprintf(w, sizeof w, "%d", plot_markers[l->backdrop ? 0 : l->member % PLOT_MARKERS]);
		ok = ok && plot_add_word(s->points, sizeof s->points, w);
		snprintf(w, sizeof w, "%d", l->backdrop ? 1 : plot_dashes[l->family % 5]);
		ok = ok && plot_add_word(s->dashes, sizeof s->dashes, w);
		ok = ok && plot_add_word(s->widths, sizeof s->widths, l->backdrop ? "8" : "2");
	}
	free(order);
	return ok ? 0 : -1;
}

static int plot_cmp_curve(const struct plot_curve *a, const struct plot_curve *b)
{
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static int plot_cmp_x(const void *a, const void *b)
{
	const struct plot_point *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

/* A double as gnuplot reads it: NaN for none. */
void plot_put(FILE *fp, double v)
{
	if (isfinite(v))
		fprintf(fp, " %.9g", v);
	else
		fputs(" NaN", fp);
}

/* A string as gnuplot reads one field: double-quoted, with no '"' inside. */
void plot_put_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s, fp);
	fputc('"', fp);
}

static void plot_write_block(FILE *fp, const struct plot_curves *c, size_t curve,
			     struct plot_point *buf)
{
	size_t n = 0;
	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].curve == curve)
			buf[n++] = c->points[i];
	qsort(buf, n, sizeof *buf, plot_cmp_x);
	plot_put_string(fp, c->curves[curve].title);
	fputs(" y pct_of_ceiling speedup rel_first noise_pct\n", fp);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "%.9g", buf[i].x);
		plot_put(fp, buf[i].y);
		plot_put(fp, buf[i].pct_of_ceiling);
		plot_put(fp, buf[i].speedup);
		plot_put(fp, buf[i].rel_first);
		plot_put(fp, buf[i].noise_pct);
		fputc('\n', fp);
	}
}

/* Fills order[0..ncurves) with the curve indices in the order they are
 * written: by table, then by N or first appearance (an insertion sort: a
 * figure has a handful of curves). */
void plot_curve_order(const struct plot_curves *c, size_t *order)
{
	for (size_t i = 0; i < c->ncurves; i++) {
		size_t j = i;
		for (; j > 0 && plot_cmp_curve(&c->curves[order[j - 1]], &c->curves[i]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

int plot_write_curves(FILE *fp, const struct plot_curves *c, const char *comment)
{
	size_t *order = malloc((c->ncurves + 1) * sizeof *order);
	struct plot_point *buf = malloc((c->npoints + 1) * sizeof *buf);
	if (!order || !buf) {
		free(order);
		free(buf);
		return -1;
	}
	plot_curve_order(c, order);
	fprintf(fp, "# %s\n# %zu curves; columns: x y pct_of_ceiling speedup rel_first noise_pct\n",
		comment, c->ncurves);
	for (size_t k = 0; k < c->ncurves; k++) {
		fputs(k ? "\n\n" : "", fp);
		plot_write_block(fp, c, order[k], buf);
	}
	free(order);
	free(buf);
	return ferror(fp) ? -1 : 0;
}

void plot_curves_free(struct plot_curves *c)
{
	for (size_t i = 0; i < c->ncurves; i++) {
		free(c->curves[i].title);
		free(c->curves[i].device);
	}
	free(c->curves);
	free(c->points);
	memset(c, 0, sizeof *c);
}

int plot_curves_add(struct plot_curves *c, const char *title, const char *device, double order,
		    struct plot_look look, struct plot_point p)
{
	size_t k = 0;
	while (k < c->ncurves && strcmp(c->curves[k].title, title) != 0)
		k++;
	if (k == c->ncurves) {
		struct plot_curve *cv = plot_grow(c->curves, &c->curves_cap, k + 1, sizeof *cv);
		if (!cv)
			return -1;
		c->curves = cv;
		cv[k] = (struct plot_curve){ strdup(title), order, c->ntables, strdup(device), look };
		if (!cv[k].title || !cv[k].device) {
			free(cv[k].title);
			free(cv[k].device);
			return -1;
		}
		c->ncurves++;
	}
	struct plot_point *np = plot_grow(c->points, &c->points_cap, c->npoints + 1, sizeof *np);
	if (!np)
		return -1;
	c->points = np;
	p.curve = k;
	c->points[c->npoints++] = p;
	return 0;
}

static int plot_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **plot_list_csv(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	size_t n = 0, cap = 0;
	char **names = NULL;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".csv") != 0)
			continue;
		char **nn = plot_grow(names, &cap, n + 2, sizeof *names);
		if (!nn)
			break;
		names = nn;
		names[n] = malloc(strlen(dir) + len + 2);
		if (names[n])
			sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (!names)
		names = calloc(1, sizeof *names);
	else
		qsort(names, n, sizeof *names, plot_cmp_str);
	if (names)
		names[n] = NULL;
	return names;
}

void plot_free_list(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/* Writes dir/name (with one '/' between) into out; false when it does not fit. */
bool plot_path(char *out, size_t len, const char *dir, const char *name)
{
	return atomic_path_in(out, len, dir, "%s", name) == 0;
}
