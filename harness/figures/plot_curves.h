/* plot_curves.h - the curves of a figure: points by curve, written as gnuplot data */
#ifndef HARNESS_PLOT_CURVES_H
#define HARNESS_PLOT_CURVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One figure: which CSV columns make its curves. */
struct plot_suite {
	const char *name;      /* results file <name>.csv, script plots/<name>.gp */
	const char *x_col;     /* the x axis */
	const char *curve_col; /* rows with equal values form one curve */
	const char *y_col;     /* the y axis */
	const char *xlabel, *ylabel; /* for compare.gp */
	bool logx;
	/* Scaling suites read every DIR/<name>-p<P>.csv (one per number of
	 * ranks) and draw interactions/s and the parallel efficiency against
	 * the one-device rows (plot_scaling.c): */
	int scaling; /* PLOT_STRONG or PLOT_WEAK; 0 for the other figures */
};

enum { PLOT_STRONG = 1, PLOT_WEAK = 2 };

/* Points of the curves of one figure, from one or more results tables. */
struct plot_point {
	size_t curve;
	double x, y;
	double pct_of_ceiling;    /* NAN when the row has none */
	double speedup;           /* interactions/s over cpu-portable at the same N and table; NAN if none */
	double rel_first;         /* y over y at the curve's smallest x */
	double noise_pct;
};

/*
 * How a curve is told apart from the others where a figure has many of
 * few kinds (the scaling figures, plot_line_styles): the curves of one
 * family (a variant, over N or P) share a colour and a dash pattern, those
 * of one member (an N, a P) a marker, so that colour tells the variant
 * and the marker the N, and in grey print dash and marker still tell every
 * curve apart. A backdrop is drawn wide and pale, for the curves that
 * coincide with it to show on top (the one-device rate, which every
 * variant's P = 1 row repeats).
 */
struct plot_look {
	size_t family, member;
	bool backdrop;
};

struct plot_curve {
	char *title;
	double order; /* curves are written by (table, order) */
	size_t table;
	char *device; /* device_name of its first row */
	struct plot_look look;
};

struct plot_curves {
	struct plot_curve *curves;
	size_t ncurves, curves_cap;
	struct plot_point *points;
	size_t npoints, points_cap;
	size_t ntables;
};

/*
 * Writes c as gnuplot data: '#' comments, then one block per curve
 * (blocks separated by two blank lines, so `index i` selects one), each
 * opening with a header line whose first field is the quoted title, then
 * rows "x y pct_of_ceiling speedup rel_first noise_pct" sorted by x, NaN
 * for none. Returns 0, or -1 on an I/O error.
 */
int plot_write_curves(FILE *fp, const struct plot_curves *c, const char *comment);

void plot_curves_free(struct plot_curves *c);

/* Adds point p (its curve field is set here) to the curve of c titled
 * title, made when new with device, order (curves are written in
 * increasing order) and look. Returns 0, or -1 when out of memory. */
int plot_curves_add(struct plot_curves *c, const char *title, const char *device, double order,
		    struct plot_look look, struct plot_point p);

/* The *.csv files of dir, sorted, in a NULL-terminated array (free with
 * plot_free_list); NULL when dir cannot be read. */
char **plot_list_csv(const char *dir);
void plot_free_list(char **list);

/* The curves of c in the order they are written: order[0 .. ncurves). */
void plot_curve_order(const struct plot_curves *c, size_t *order);

/* One gnuplot field, after a space: a double (NaN for none), or a string
 * double-quoted with no '"' or line break inside. */
void plot_put(FILE *fp, double v);
void plot_put_string(FILE *fp, const char *s);

/*
 * N as figure labels write it, one way in every figure: a power of two from
 * 2^16 up as "2^20" (as the N axes label their ticks), any other whole
 * number in digits grouped by thousands ("16,384", "1,000,003"), anything
 * else as %g. Writes into out (always terminated).
 */
void plot_format_n(double n, char *out, size_t outlen);

/*
 * The colours of a figure's lines: count distinct colours ("#rrggbb"),
 * space-separated into out, for a script's `lc rgb word(colours, i + 1)`.
 * The first twenty are a fixed palette; further ones are spread over the
 * hue circle. None is black or grey, which the scripts keep for published
 * numbers and guides. Returns how many were written (fewer only when out is
 * too small).
 */
size_t plot_palette(size_t count, char *out, size_t outlen);

/*
 * The line styles of c's curves by their looks, as gnuplot word lists with
 * a word per curve in the order they are written (plot_curve_order), for a
 * script's `lc rgb word(colours, i + 1) pt ... dt ... lw ...`:
 *   colours  the family's colour of plot_palette ("#1f77b4"); a backdrop's
 *            with transparency ("#aa1f77b4", gnuplot's alpha first)
 *   points   the member's marker, a gnuplot point type: filled shapes
 *            first, then open ones, PLOT_MARKERS apart before one repeats;
 *            a backdrop's the first (a filled circle)
 *   dashes   the family's dash type (1 solid, 2 dashed, ...; 5 apart)
 *   widths   the line width: 2, a backdrop's 8
 * Returns 0, or -1 when out of memory or a list does not fit.
 */
#define PLOT_MARKERS 15
struct plot_line_styles {
	char colours[8192], points[2048], dashes[2048], widths[2048];
};
int plot_line_styles(const struct plot_curves *c, struct plot_line_styles *s);

/* p grown to hold need elements of size (capacity in *cap, doubled); NULL
 * when out of memory (p is then unchanged and still owned by the caller). */
void *plot_grow(void *p, size_t *cap, size_t need, size_t size);

/* Writes dir/name (with one '/' between) into out; false when it does not fit. */
bool plot_path(char *out, size_t len, const char *dir, const char *name);

#endif
