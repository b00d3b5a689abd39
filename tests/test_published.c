/* test_published.c - published numbers: well formed, each one traced to its source text */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/core/csv_table.h"

/* The published files, and the source each names in its rows. */
static const char *const published_files[][2] = {
	{ "results/published/gpugems3_ch31.csv", "gpugems3_ch31" },
	{ "results/published/goswami2010_sph.csv", "goswami2010_sph" },
};
#define PUBLISHED_COUNT (sizeof published_files / sizeof *published_files)

static const char *const published_columns[] = {
	"source", "quantity", "value", "unit", "n", "device", "note", "citation",
};

/* The source documents as text (the chapter, its footnotes and captions,
 * the SPH paper): every .txt file in the folder HARNESS_SOURCES_DIR
 * names. Without it the tracing tests skip, saying so. */
#define SEED_MAX 16
static size_t seed_count;
struct seed {
	char *text;       /* as stored */
	char *normalized; /* lower-case letters and digits only */
};

static void read_table(const char *path, struct csv_table *t)
{
	char err[512];
	cr_assert_eq(csv_table_read(path, t, err, sizeof err), 0, "%s", err);
}

static const char *cell(const struct csv_table *t, size_t row, const char *col)
{
	int c = csv_table_col(t, col);
	cr_assert_geq(c, 0, "%s: no column '%s'", t->path, col);
	return csv_table_cell(t, row, (size_t)c);
}

static double cell_double(const struct csv_table *t, size_t row, const char *col)
{
	char err[512];
	double v;
	cr_assert_eq(csv_table_double(t, row, col, &v, err, sizeof err), 0, "%s", err);
	return v;
}

/* Whitespace, punctuation, markup (*N*, ^{2}) and hyphenation at line
 * ends all vanish, so a sentence matches across the three renderings of
 * the chapter and across line breaks. */
static char *normalize(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	cr_assert_not_null(out);
	for (; *s; s++)
		if (isalnum((unsigned char)*s))
			*o++ = (char)tolower((unsigned char)*s);
	*o = '\0';
	return out;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp, "cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	rewind(fp);
	char *buf = malloc((size_t)len + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)len, fp), (size_t)len);
	buf[len] = '\0';
	fclose(fp);
	return buf;
}

static void load_seeds(struct seed *seeds)
{
	const char *dir = getenv("HARNESS_SOURCES_DIR");
	if (!dir || !*dir)
		cr_skip_test("HARNESS_SOURCES_DIR is not set (the folder of the source documents as .txt "
			     "files, to trace each published number to its sentence)");
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "HARNESS_SOURCES_DIR '%s' cannot be read", dir);
	seed_count = 0;
	for (struct dirent *e; (e = readdir(d)) && seed_count < SEED_MAX;) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".txt") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		seeds[seed_count].text = slurp(path);
		seeds[seed_count].normalized = normalize(seeds[seed_count].text);
		seed_count++;
	}
	closedir(d);
	cr_assert_gt(seed_count, 0, "HARNESS_SOURCES_DIR '%s' holds no .txt file", dir);
}

static void free_seeds(struct seed *seeds)
{
	for (size_t i = 0; i < seed_count; i++) {
		free(seeds[i].text);
		free(seeds[i].normalized);
	}
}

/* ---- numbers as the documents write them ------------------------------- */

/* Reads the number at *p: digits with "," or "'" before groups of three
 * (16,384 and 16'128), an optional decimal part, then a multiplier: a K or
 * M stuck to it (75K, 1M) or the word billion or million after it. */
static double read_written_number(const char **p)
{
	const char *s = *p;
	double v = 0;
	for (;;) {
		while (isdigit((unsigned char)*s))
			v = 10 * v + (*s++ - '0');
		bool group = (*s == ',' || *s == '\'') && isdigit((unsigned char)s[1]) &&
			     isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) &&
			     !isdigit((unsigned char)s[4]);
		if (!group)
			break;
		s++;
	}
	if (*s == '.' && isdigit((unsigned char)s[1])) {
		double scale = 0.1;
		for (s++; isdigit((unsigned char)*s); s++, scale /= 10)
			v += scale * (*s - '0');
	}
	if ((*s == 'K' || *s == 'k' || *s == 'M') && !isalpha((unsigned char)s[1]))
		v *= *s++ == 'M' ? 1e6 : 1e3;
	else if (strncmp(s, " billion", 8) == 0)
		v *= 1e9;
	else if (strncmp(s, " million", 8) == 0)
		v *= 1e6;
	*p = s;
	return v;
}

/* Whether text writes the number v somewhere. */
static bool text_has_number(const char *text, double v)
{
	for (const char *p = text; *p;) {
		if (isalpha((unsigned char)*p)) { /* a word such as X1900 holds no number */
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		if (!isdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		double x = read_written_number(&p);
		if (fabs(x - v) <= 1e-9 * fmax(fabs(v), 1.0))
			return true;
	}
	return false;
}

/* ---- the checks a citation must pass ----------------------------------- */

/* Whether every part of a citation (parts joined by " [...] " where the
 * source breaks for a page or a figure) occurs in one seed, in order. */
static bool quote_in_seeds(const struct seed *seeds, const char *citation)
{
	char *copy = strdup(citation);
	bool found = false;
	for (size_t i = 0; i < seed_count && !found; i++) {
		const char *at = seeds[i].normalized;
		found = true;
		for (char *part = copy, *next; part && found; part = next) {
			next = strstr(part, " [...] ");
			if (next) {
				*next = '\0';
				next += 7;
			}
			char *norm = normalize(part);
			const char *hit = strstr(at, norm);
			found = hit != NULL;
			if (hit)
				at = hit + strlen(norm);
			free(norm);
			if (next)
				next[-7] = ' ';
		}
	}
	free(copy);
	return found;
}

/* Splits a tab-separated line into at most max cells (in place). */
static size_t split_tabs(char *line, char **cells, size_t max)
{
	size_t n = 0;
	for (char *c = strtok(line, "\t"); c && n < max; c = strtok(NULL, "\t"))
		cells[n++] = c;
	return n;
}

/* The line (copied, without its end) that starts with prefix and comes
 * last before end in text, or NULL. */
static char *line_before(const char *text, const char *end, const char *prefix)
{
	const char *best = NULL;
	for (const char *p = text; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			best = p;
	return best ? strndup(best, strcspn(best, "\n")) : NULL;
}

/* The cell of "Table K" (tab-separated: a header line starting "Particle
 * Count", rows, then the caption "Table K:") at row label and column name,
 * copied; NULL when any part is missing. */
static char *table_cell(const char *text, int table, const char *row, const char *column)
{
	char caption[32], prefix[64];
	snprintf(caption, sizeof caption, "Table %d:", table);
	const char *end = strstr(text, caption);
	if (!end)
		return NULL;
	char *header = line_before(text, end, "Particle Count\t");
	snprintf(prefix, sizeof prefix, "%s\t", row);
	char *line = header ? line_before(strstr(text, header), end, prefix) : NULL;
	char *result = NULL, *hc[16], *rc[16];
	if (line) {
		size_t nh = split_tabs(header, hc, 16), nr = split_tabs(line, rc, 16);
		for (size_t i = 0; i < nh && i < nr && !result; i++)
			if (strcmp(hc[i], column) == 0)
				result = strdup(rc[i]);
	}
	free(header);
	free(line);
	return result;
}

/*
 * Checks one published row against the documents: a table reference
 * "Table K, row R, column C" must name a cell holding value (and R must be
 * n); any other citation must be a quotation from a seed that writes the
 * value and, when the row has one, n. Returns NULL, or why it fails.
 */
static const char *check_citation(const struct seed *seeds, const char *citation, double value,
				  const char *n)
{
	static char why[256];
	int table;
	char row[32], column[64];
	if (sscanf(citation, "Table %d, row %31[^,], column %63[^\n]", &table, row, column) == 3) {
		char *c = NULL;
		for (size_t i = 0; i < seed_count && !c; i++)
			c = table_cell(seeds[i].text, table, row, column);
		if (!c)
			return "no such table cell in the seeds";
		double v = strtod(c, NULL);
		free(c);
		if (fabs(v - value) > 1e-9 * fabs(value))
			return "the table cell holds another value";
		const char *p = row;
		if (n[0] && read_written_number(&p) != strtod(n, NULL))
			return "the table row is not n";
		return NULL;
	}
	if (!quote_in_seeds(seeds, citation))
		return "the quotation is not in any seed";
	if (!text_has_number(citation, value)) {
		snprintf(why, sizeof why, "the quotation does not state the value %g", value);
		return why;
	}
	if (n[0] && !text_has_number(citation, strtod(n, NULL)))
		return "the quotation does not state n";
	return NULL;
}

/* ---- the tests --------------------------------------------------------- */

Test(published, files_are_well_formed)
{
	for (size_t f = 0; f < PUBLISHED_COUNT; f++) {
		struct csv_table t;
		read_table(published_files[f][0], &t);
		cr_assert_eq(t.ncols, 8, "%s", t.path);
		for (size_t c = 0; c < t.ncols; c++)
			cr_expect_str_eq(t.header[c], published_columns[c], "%s column %zu", t.path,
					 c + 1);
		cr_expect_gt(t.nrows, 20, "%s has few rows", t.path);
		for (size_t r = 0; r < t.nrows; r++) {
			size_t line = t.row_line[r];
			cr_expect_str_eq(cell(&t, r, "source"), published_files[f][1], "%s:%zu",
					 t.path, line);
			cr_expect_neq(cell(&t, r, "quantity")[0], '\0', "%s:%zu", t.path, line);
			cr_expect_neq(cell(&t, r, "unit")[0], '\0', "%s:%zu", t.path, line);
			cr_expect_neq(cell(&t, r, "citation")[0], '\0', "%s:%zu", t.path, line);
			double v = cell_double(&t, r, "value");
			cr_expect(isfinite(v) && v > 0, "%s:%zu: value %g", t.path, line, v);
			long long n;
			char err[256];
			if (cell(&t, r, "n")[0])
				cr_expect(csv_table_long(&t, r, "n", &n, err, sizeof err) == 0 && n > 0,
					  "%s:%zu: n", t.path, line);
		}
		csv_table_free(&t);
	}
}

Test(published, every_number_is_in_its_source)
{
	struct seed seeds[SEED_MAX];
	load_seeds(seeds);
	for (size_t f = 0; f < PUBLISHED_COUNT; f++) {
		struct csv_table t;
		read_table(published_files[f][0], &t);
		for (size_t r = 0; r < t.nrows; r++) {
			const char *why = check_citation(seeds, cell(&t, r, "citation"),
							 cell_double(&t, r, "value"), cell(&t, r, "n"));
			cr_expect_null(why, "%s:%zu (%s): %s", t.path, t.row_line[r],
				       cell(&t, r, "quantity"), why);
		}
		csv_table_free(&t);
	}
	free_seeds(seeds);
}

/* The check above must catch a misquoted sentence, a wrong value, a wrong
 * n and a wrong table cell. */
Test(published, planted_mistakes_are_caught)
{
	struct seed seeds[SEED_MAX];
	load_seeds(seeds);
	const char *good = "Our first implementation achieved 163 gigaflops for 16,384 bodies.";
	cr_assert_null(check_citation(seeds, good, 163, "16384"));
	cr_expect_not_null(check_citation(
		seeds, "Our first implementation achieved 164 gigaflops for 16,384 bodies.", 164,
		"16384"));
	cr_expect_not_null(check_citation(seeds, good, 165, "16384"));
	cr_expect_not_null(check_citation(seeds, good, 163, "8192"));
	cr_assert_null(check_citation(seeds, "Table 2, row 75'200, column Rendering", 88, "75200"));
	cr_expect_not_null(check_citation(seeds, "Table 1, row 75'200, column Rendering", 88, "75200"));
	cr_expect_not_null(check_citation(seeds, "Table 2, row 75'200, column Rendering", 88, "16128"));
	cr_expect_not_null(check_citation(seeds, "Table 3, row 75'200, column Rendering", 88, "75200"));
	cr_assert_null(check_citation(seeds,
		"Contrast this with our all-pairs implementation [3] on an Intel Core 2 Duo [4] that "
		"achieves about 20 million interactions per second.", 2e7, ""));
	cr_expect_not_null(check_citation(seeds,
		"Contrast this with our all-pairs implementation [3] on an Intel Core 2 Duo [4] that "
		"achieves about 20 million interactions per second.", 20, ""));
	free_seeds(seeds);
}

/* Finds the row of file f with quantity q (and n, when n > 0); fails if absent. */
static double published_value(const struct csv_table *t, const char *q, long long n)
{
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(cell(t, r, "quantity"), q) != 0)
			continue;
		if (n > 0 && strtoll(cell(t, r, "n"), NULL, 10) != n)
			continue;
		return cell_double(t, r, "value");
	}
	cr_assert_fail("%s: no row '%s' with n %lld", t->path, q, n);
	return NAN;
}

/* The numbers the figures overlay and the README quotes are all there. */
Test(published, chapter_headline_numbers)
{
	struct csv_table t;
	read_table(published_files[0][0], &t);
	cr_expect_eq(published_value(&t, "first_impl_gflop_per_s", 16384), 163);
	cr_expect_eq(published_value(&t, "unroll4_gflop_per_s", 8192), 200);
	cr_expect_eq(published_value(&t, "unroll4_interactions_per_s", 8192), 1e10);
	cr_expect_eq(published_value(&t, "steps_per_s", 16384), 38);
	cr_expect_eq(published_value(&t, "two_threads_gain_pct", 1024), 44);
	cr_expect_eq(published_value(&t, "multiprocessors", 0), 16);
	cr_expect_eq(published_value(&t, "processors", 0), 128);
	cr_expect_eq(published_value(&t, "clock_ghz", 0), 1.35);
	cr_expect_eq(published_value(&t, "peak_gflop_per_s", 0), 172.8);
	cr_expect_eq(published_value(&t, "cpu_interactions_per_s", 0), 2e7);
	cr_expect_eq(published_value(&t, "cpu_clock_ghz", 0), 1.87);
	cr_expect_eq(published_value(&t, "speedup_vs_tuned_cpu", 0), 50);
	cr_expect_eq(published_value(&t, "speedup_vs_portable_c", 0), 250);
	cr_expect_eq(published_value(&t, "elsen_sse_gflop_per_s", 0), 3.8);
	cr_expect_eq(published_value(&t, "cycles_unroll4", 0), 72);
	csv_table_free(&t);
}

/* Tables 1 and 2 of the SPH paper: every cell, once. */
Test(published, sph_tables_complete)
{
	struct csv_table t;
	read_table(published_files[1][0], &t);
	size_t cells[3] = { 0 };
	for (size_t r = 0; r < t.nrows; r++) {
		int table;
		if (sscanf(cell(&t, r, "citation"), "Table %d,", &table) == 1 && table >= 1 &&
		    table <= 2)
			cells[table]++;
	}
	cr_expect_eq(cells[1], 16, "Table 1: 4 particle counts x 4 columns");
	cr_expect_eq(cells[2], 16, "Table 2: 4 particle counts x 4 columns");
	cr_expect_eq(published_value(&t, "overall_fps", 255600), 3, "Table 1 comes first");
	csv_table_free(&t);
}
