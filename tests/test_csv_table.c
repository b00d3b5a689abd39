/* test_csv_table.c - tests of csv_table: round trips, malformed input, strict numbers */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp, open_memstream */

#include <criterion/criterion.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/core/csv_table.h"

static char dir[64];
static char path[128]; /* the one CSV file a test writes */

static void make_dir(void)
{
	strcpy(dir, "/tmp/test_csv_table.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/t.csv", dir);
}

static int remove_entry(const char *p, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	return remove(p);
}

static void remove_dir(void)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(csv_table, .init = make_dir, .fini = remove_dir);

/* Writes text, byte for byte, as the test's CSV file. */
static void write_text(const char *text)
{
	FILE *fp = fopen(path, "wb");

	cr_assert_not_null(fp, "fopen %s: %s", path, strerror(errno));
	fputs(text, fp);
	cr_assert_eq(fclose(fp), 0);
}

/* Reads the test's file expecting failure; checks err names path and part. */
static void expect_read_error(const char *part)
{
	struct csv_table t;
	char err[512] = "";

	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), -1,
		     "read succeeded, expected an error with '%s'", part);
	cr_assert_not_null(strstr(err, path), "message '%s' lacks the path", err);
	cr_assert_not_null(strstr(err, part), "message '%s' lacks '%s'", err, part);
	cr_assert_null(strchr(err, '\n'), "message is not one line: %s", err);
	cr_assert_null(t.cells);
	cr_assert_null(t.header);
	csv_table_free(&t);
}

/* Formats one row with csv_write_row into a string (malloc'd). */
static char *row_text(const char *const *fields, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	cr_assert_not_null(fp);
	cr_assert_eq(csv_write_row(fp, fields, n), 0);
	fclose(fp);
	return buf;
}

Test(csv_table, writer_quotes_only_what_needs_it)
{
	const char *row[] = { "plain", "1.5e-3", "a,b", "say \"hi\"", "",
			      " lead", "trail\t", "two\nlines", NULL };
	char *got = row_text(row, 9);

	cr_assert_str_eq(got, "plain,1.5e-3,\"a,b\",\"say \"\"hi\"\"\",,"
			      "\" lead\",\"trail\t\",\"two\nlines\",\n");
	free(got);
}

Test(csv_table, writer_quotes_lone_empty_field)
{
	const char *row[] = { "" };
	char *got = row_text(row, 1);

	/* A bare "\n" would be a blank line, which readers skip. */
	cr_assert_str_eq(got, "\"\"\n");
	free(got);
}

Test(csv_table, round_trip_keeps_awkward_values)
{
	enum { NCOLS = 4, NROWS = 4, LONG_LEN = 100000 };
	char *longf = malloc(LONG_LEN + 1);
	const char *header[NCOLS] = { "name", "value, with comma", "note", "x" };
	const char *rows[NROWS][NCOLS] = {
		{ "comma,inside", "say \"hi\"", "line1\nline2", "" },
		{ "  spaces both  ", "\ttab", "crlf\r\ninside", "\"" },
		{ "µs — Grüße, 日本", "1e-300", "-0", "NaN" },
		{ "long", NULL, ",", "\"\"" },
	};
	struct csv_table t;
	char err[512] = "";
	FILE *fp;

	cr_assert_not_null(longf);
	for (int i = 0; i < LONG_LEN; i++)
		longf[i] = (i % 97 == 0) ? ',' : (i % 89 == 0) ? '"' : 'a' + i % 26;
	longf[LONG_LEN] = '\0';
	rows[3][1] = longf;

	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	cr_assert_eq(csv_write_row(fp, header, NCOLS), 0);
	for (int r = 0; r < NROWS; r++)
		cr_assert_eq(csv_write_row(fp, rows[r], NCOLS), 0);
	cr_assert_eq(fclose(fp), 0);

	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.ncols, NCOLS);
	cr_assert_eq(t.nrows, NROWS);
	for (int c = 0; c < NCOLS; c++)
		cr_assert_str_eq(t.header[c], header[c]);
	for (int r = 0; r < NROWS; r++) {
		for (int c = 0; c < NCOLS; c++) {
			const char *got = csv_table_cell(&t, (size_t)r, (size_t)c);

			cr_assert_eq(strcmp(got, rows[r][c]), 0,
				     "row %d col %d: got '%.60s', want '%.60s'",
				     r, c, got, rows[r][c]);
		}
	}
	/* Rows 1 and 2 each hold one embedded line end. */
	cr_assert_eq(t.row_line[0], 2);
	cr_assert_eq(t.row_line[1], 4);
	cr_assert_eq(t.row_line[2], 6);
	cr_assert_eq(t.row_line[3], 7);
	csv_table_free(&t);
	csv_table_free(&t); /* harmless twice */
	free(longf);
}

Test(csv_table, blank_lines_crlf_and_missing_final_newline)
{
	struct csv_table t;
	char err[512] = "";

	write_text("a,b\r\n1,2\r\n\r\n  \n3,4");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(csv_table_cell(&t, 0, 1), "2");
	cr_assert_str_eq(csv_table_cell(&t, 1, 0), "3");
	cr_assert_str_eq(csv_table_cell(&t, 1, 1), "4");
	cr_assert_eq(t.row_line[1], 5);
	csv_table_free(&t);

	write_text("a,b\n1,2\n\n\n");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nrows, 1);
	csv_table_free(&t);
}

/* By name: the cell, or "" for a column the table lacks (or none asked). */
Test(csv_table, named_cell_of_an_absent_column_is_empty)
{
	struct csv_table t;
	char err[512] = "";

	write_text("a,b\n1,\n");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(csv_table_named(&t, 0, "a"), "1");
	cr_expect_str_eq(csv_table_named(&t, 0, "b"), "");
	cr_expect_str_eq(csv_table_named(&t, 0, "c"), "");
	cr_expect_str_eq(csv_table_named(&t, 0, NULL), "");
	csv_table_free(&t);
}

Test(csv_table, header_only_has_no_rows)
{
	struct csv_table t;
	char err[512] = "";

	write_text("variant,n,ms\n");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.ncols, 3);
	cr_assert_eq(t.nrows, 0);
	cr_assert_str_eq(t.header[2], "ms");
	csv_table_free(&t);
}

Test(csv_table, column_lookup)
{
	struct csv_table t;
	char err[512] = "";

	write_text("variant,n,ms\nx,1,2\n");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(csv_table_col(&t, "variant"), 0);
	cr_assert_eq(csv_table_col(&t, "ms"), 2);
	cr_assert_eq(csv_table_col(&t, "MS"), -1);
	cr_assert_eq(csv_table_col(&t, "m"), -1);
	csv_table_free(&t);
}

Test(csv_table, short_row_names_its_line)
{
	write_text("a,b,c\n1,2,3\n4,5\n");
	expect_read_error(":3: 2 fields, header has 3");
}

Test(csv_table, long_row_names_its_line)
{
	write_text("a,b,c\n1,2,3,4\n");
	expect_read_error(":2: 4 fields, header has 3");
}

Test(csv_table, bad_row_line_counts_embedded_newlines)
{
	/* Row 1 spans lines 2-4, so the bad row is on line 6, not 3. */
	write_text("a,b\n\"x\ny\nz\",1\n\n5\n");
	expect_read_error(":6: 1 field, header has 2");
}

Test(csv_table, unterminated_quote_fails)
{
	write_text("a,b\n1,\"2\n3,4\n");
	expect_read_error(":2: unterminated quoted field");
}

Test(csv_table, quote_inside_unquoted_field_fails)
{
	write_text("a,b\n1,2\n3,4\"x\n");
	expect_read_error(":3: malformed");
}

Test(csv_table, text_after_closing_quote_fails)
{
	write_text("a,b\n\"1\"x,2\n");
	expect_read_error(":2: malformed");
}

Test(csv_table, empty_file_fails)
{
	write_text("");
	expect_read_error("empty");
	write_text("\n\n  \n");
	expect_read_error("empty");
}

Test(csv_table, duplicate_header_fails)
{
	write_text("a,b,a\n1,2,3\n");
	expect_read_error(":1: column name 'a' appears twice");
}

Test(csv_table, unreadable_path_fails)
{
	snprintf(path, sizeof(path), "%s/no_such_file.csv", dir);
	expect_read_error(strerror(ENOENT));
	snprintf(path, sizeof(path), "%s", dir);
	expect_read_error(strerror(EISDIR));
}

/* Reads a one-column table "x" whose one data row (line 2) holds cell. */
static void read_cell_table(struct csv_table *t, const char *cell)
{
	const char *header[] = { "x" }, *row[] = { cell };
	char err[512] = "";
	FILE *fp = fopen(path, "w");

	cr_assert_not_null(fp);
	cr_assert_eq(csv_write_row(fp, header, 1), 0);
	cr_assert_eq(csv_write_row(fp, row, 1), 0);
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(csv_table_read(path, t, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(csv_table_cell(t, 0, 0), cell);
}

static void expect_double(const char *cell, double want)
{
	struct csv_table t;
	char err[512] = "";
	double got = 12345.0;

	read_cell_table(&t, cell);
	cr_assert_eq(csv_table_double(&t, 0, "x", &got, err, sizeof(err)), 0,
		     "'%s': %s", cell, err);
	cr_assert(got == want && signbit(got) == signbit(want),
		  "'%s' read as %.17g, want %.17g", cell, got, want);
	csv_table_free(&t);
}

static void expect_bad_double(const char *cell, const char *why)
{
	struct csv_table t;
	char err[512] = "", want[512];
	double got = 12345.0;

	read_cell_table(&t, cell);
	cr_assert_eq(csv_table_double(&t, 0, "x", &got, err, sizeof(err)), -1,
		     "'%s' accepted as %g", cell, got);
	snprintf(want, sizeof(want), "%s:2: column 'x': '%s' %s", path, cell, why);
	cr_assert_str_eq(err, want);
	cr_assert_eq(got, 12345.0, "*out written on failure");
	csv_table_free(&t);
}

Test(csv_table, double_accepts_whole_numbers_only)
{
	expect_double("1.5", 1.5);
	expect_double("-0", -0.0);
	expect_double("1e-300", 1e-300);
	expect_double("2.5E+3", 2500.0);
	expect_double("inf", INFINITY);
	expect_bad_double("12abc", "is not a number");
	expect_bad_double("", "is not a number");
	expect_bad_double(" 1", "is not a number");
	expect_bad_double("1 ", "is not a number");
	expect_bad_double("abc", "is not a number");
	expect_bad_double("1e999", "is out of range");
}

Test(csv_table, double_accepts_nan)
{
	struct csv_table t;
	char err[512] = "";
	double got = 0.0;

	read_cell_table(&t, "NaN");
	cr_assert_eq(csv_table_double(&t, 0, "x", &got, err, sizeof(err)), 0, "%s", err);
	cr_assert(isnan(got));
	csv_table_free(&t);
}

static void expect_long(const char *cell, long long want)
{
	struct csv_table t;
	char err[512] = "";
	long long got = 12345;

	read_cell_table(&t, cell);
	cr_assert_eq(csv_table_long(&t, 0, "x", &got, err, sizeof(err)), 0,
		     "'%s': %s", cell, err);
	cr_assert_eq(got, want, "'%s' read as %lld", cell, got);
	csv_table_free(&t);
}

static void expect_bad_long(const char *cell, const char *why)
{
	struct csv_table t;
	char err[512] = "", want[512];
	long long got = 12345;

	read_cell_table(&t, cell);
	cr_assert_eq(csv_table_long(&t, 0, "x", &got, err, sizeof(err)), -1,
		     "'%s' accepted as %lld", cell, got);
	snprintf(want, sizeof(want), "%s:2: column 'x': '%s' %s", path, cell, why);
	cr_assert_str_eq(err, want);
	cr_assert_eq(got, 12345, "*out written on failure");
	csv_table_free(&t);
}

Test(csv_table, long_accepts_whole_integers_only)
{
	expect_long("42", 42);
	expect_long("-7", -7);
	expect_long("9223372036854775807", 9223372036854775807LL);
	expect_bad_long("12abc", "is not an integer");
	expect_bad_long("1.5", "is not an integer");
	expect_bad_long("", "is not an integer");
	expect_bad_long(" 1", "is not an integer");
	expect_bad_long("1 ", "is not an integer");
	expect_bad_long("0x10", "is not an integer");
	expect_bad_long("99999999999999999999", "is out of range");
}

Test(csv_table, typed_access_names_row_line_and_missing_column)
{
	struct csv_table t;
	char err[512] = "", want[512];
	double d;
	long long n;

	/* The bad cell is in data row 1, which starts on line 5. */
	write_text("name,ms\n\"multi\nline\",1.0\n\nb,fast\n");
	cr_assert_eq(csv_table_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 0, "ms", &d, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(d, 1.0);
	cr_assert_eq(csv_table_double(&t, 1, "ms", &d, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:5: column 'ms': 'fast' is not a number", path);
	cr_assert_str_eq(err, want);
	cr_assert_eq(csv_table_long(&t, 0, "count", &n, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:1: no column 'count' in the header", path);
	cr_assert_str_eq(err, want);
	csv_table_free(&t);
}
