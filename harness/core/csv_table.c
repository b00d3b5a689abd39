/* csv_table.c - CSV files through libcsv: writing rows, reading whole tables */
#define _POSIX_C_SOURCE 200809L

#include "csv_table.h"

#include <assert.h>
#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How much of the file is read at a time. */
#define CSV_READ_BLOCK 65536

/*
 * Whether field would not read back as itself unquoted: libcsv drops
 * spaces and tabs around unquoted fields, and comma, quote, CR and LF are
 * syntax. A lone empty field is quoted too, since a bare empty row is a
 * blank line, which readers skip.
 */
static int csv_needs_quotes(const char *field, size_t nfields)
{
	size_t len = strlen(field);

	if (len == 0)
		return nfields == 1;
	if (field[0] == ' ' || field[0] == '\t' ||
	    field[len - 1] == ' ' || field[len - 1] == '\t')
		return 1;
	return strpbrk(field, ",\"\r\n") != NULL;
}

int csv_write_row(FILE *fp, const char *const *fields, size_t nfields)
{
	for (size_t i = 0; i < nfields; i++) {
		const char *field = fields[i] ? fields[i] : "";

		if (i > 0 && fputc(',', fp) == EOF)
			return -1;
		if (csv_needs_quotes(field, nfields)) {
			if (csv_fwrite(fp, field, strlen(field)) != 0)
				return -1;
		} else if (fputs(field, fp) == EOF) {
			return -1;
		}
	}
	if (fputc('\n', fp) == EOF)
		return -1;
	return 0;
}

/* State shared with the libcsv callbacks while a table is read. */
struct csv_reader {
	struct csv_table *t;
	char **row;        /* fields of the row being read */
	size_t nrow, row_cap;
	size_t rows_cap;   /* rows t->cells and t->row_line have room for */
	size_t line;       /* line of the byte being parsed, from 1 */
	size_t row_start;  /* line the open row started on; 0: none open */
	int failed;        /* a callback has written err; stop parsing */
	char *err;
	size_t errlen;
};

static void csv_reader_oom(struct csv_reader *r)
{
	snprintf(r->err, r->errlen, "%s: out of memory", r->t->path);
	r->failed = 1;
}

/* libcsv field callback: appends a copy of the field to the open row. */
static void csv_on_field(void *data, size_t len, void *arg)
{
	struct csv_reader *r = arg;
	char *copy;

	if (r->failed)
		return;
	if (r->nrow == r->row_cap) {
		size_t cap = r->row_cap ? 2 * r->row_cap : 16;
		char **row = realloc(r->row, cap * sizeof(*row));

		if (!row) {
			csv_reader_oom(r);
			return;
		}
		r->row = row;
		r->row_cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy) {
		csv_reader_oom(r);
		return;
	}
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	r->row[r->nrow++] = copy;
}

/* Takes the open row as the header; checks that its names are distinct. */
static void csv_take_header(struct csv_reader *r)
{
	struct csv_table *t = r->t;

	t->header = r->row;
	t->ncols = r->nrow;
	t->header_line = r->row_start;
	r->row = NULL;
	r->nrow = r->row_cap = 0;
	for (size_t i = 0; i < t->ncols; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(t->header[i], t->header[j]) != 0)
				continue;
			snprintf(r->err, r->errlen,
				 "%s:%zu: column name '%s' appears twice (columns %zu and %zu)",
				 t->path, t->header_line, t->header[i], j + 1, i + 1);
			r->failed = 1;
			return;
		}
	}
}

/* Moves the open row into the table after checking its field count. */
static void csv_take_row(struct csv_reader *r)
{
	struct csv_table *t = r->t;

	if (r->nrow != t->ncols) {
		snprintf(r->err, r->errlen, "%s:%zu: %zu field%s, header has %zu",
			 t->path, r->row_start, r->nrow, r->nrow == 1 ? "" : "s",
			 t->ncols);
		r->failed = 1;
		return;
	}
	if (t->nrows == r->rows_cap) {
		size_t cap = r->rows_cap ? 2 * r->rows_cap : 64;
		char **cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));
		size_t *lines;

		if (!cells) {
			csv_reader_oom(r);
			return;
		}
		t->cells = cells;
		lines = realloc(t->row_line, cap * sizeof(*lines));
		if (!lines) {
			csv_reader_oom(r);
			return;
		}
		t->row_line = lines;
		r->rows_cap = cap;
	}
	memcpy(t->cells + t->nrows * t->ncols, r->row, t->ncols * sizeof(*r->row));
	t->row_line[t->nrows++] = r->row_start;
	r->nrow = 0;
}

/* libcsv end-of-row callback: the first row is the header, then data. */
static void csv_on_row(int terminator, void *arg)
{
	struct csv_reader *r = arg;

	(void)terminator;
	if (!r->failed) {
		if (r->t->header)
			csv_take_row(r);
		else
			csv_take_header(r);
	}
	r->row_start = 0;
}

static void csv_reader_free_row(struct csv_reader *r)
{
	for (size_t i = 0; i < r->nrow; i++)
		free(r->row[i]);
	free(r->row);
	r->row = NULL;
	r->nrow = r->row_cap = 0;
}

/*
 * Parses the stream into r->t one byte at a time, so that the line number
 * is known exactly when libcsv reports a row or an error (libcsv counts no
 * lines itself). A row starts at its first byte that libcsv does not skip
 * as blank. Returns 0, or -1 with r->err written.
 */
static int csv_parse_stream(struct csv_reader *r, struct csv_parser *p,
			    FILE *fp)
{
	unsigned char buf[CSV_READ_BLOCK];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		for (size_t i = 0; i < n; i++) {
			unsigned char c = buf[i];

			if (!r->row_start && c != ' ' && c != '\t' &&
			    c != '\r' && c != '\n')
				r->row_start = r->line;
			if (csv_parse(p, &c, 1, csv_on_field, csv_on_row, r) != 1) {
				snprintf(r->err, r->errlen,
					 "%s:%zu: malformed quoted field (%s)",
					 r->t->path, r->line,
					 csv_strerror(csv_error(p)));
				return -1;
			}
			if (r->failed)
				return -1;
			if (c == '\n')
				r->line++;
		}
	}
	if (ferror(fp)) {
		snprintf(r->err, r->errlen, "%s: read error: %s", r->t->path,
			 strerror(errno));
		return -1;
	}
	if (csv_fini(p, csv_on_field, csv_on_row, r) != 0) {
		snprintf(r->err, r->errlen, "%s:%zu: unterminated quoted field",
			 r->t->path, r->row_start ? r->row_start : r->line);
		return -1;
	}
	return r->failed ? -1 : 0;
}

int csv_table_read(const char *path, struct csv_table *t,
		   char *err, size_t errlen)
{
	struct csv_reader r = { .t = t, .line = 1, .err = err, .errlen = errlen };
	struct csv_parser parser;
	FILE *fp;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	if (!t->path) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_free_table;
	}
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out_close;
	}
	if (csv_parse_stream(&r, &parser, fp) < 0)
		goto out_free_parser;
	if (!t->header) {
		snprintf(err, errlen, "%s: empty file (no header row)", path);
		goto out_free_parser;
	}
	rc = 0;

out_free_parser:
	csv_free(&parser);
	csv_reader_free_row(&r);
out_close:
	fclose(fp);
out_free_table:
	if (rc < 0)
		csv_table_free(t);
	return rc;
}

void csv_table_free(struct csv_table *t)
{
	if (t->header) {
		for (size_t i = 0; i < t->ncols; i++)
			free(t->header[i]);
	}
	if (t->cells) {
		for (size_t i = 0; i < t->nrows * t->ncols; i++)
			free(t->cells[i]);
	}
	free(t->header);
	free(t->cells);
	free(t->row_line);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

int csv_table_col(const struct csv_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (strcmp(t->header[i], name) == 0)
			return (int)i;
	}
	return -1;
}

const char *csv_table_cell(const struct csv_table *t, size_t row, size_t col)
{
	assert(row < t->nrows && col < t->ncols);
	return t->cells[row * t->ncols + col];
}

const char *csv_table_named(const struct csv_table *t, size_t row, const char *col)
{
	int c = col ? csv_table_col(t, col) : -1;

	return c < 0 ? "" : csv_table_cell(t, row, (size_t)c);
}

/*
 * Finds the cell of data row row in the column named col for the typed
 * accessors. Returns the cell, or NULL with a message when there is no
 * such column.
 */
static const char *csv_named_cell(const struct csv_table *t, size_t row,
				  const char *col, char *err, size_t errlen)
{
	int c = csv_table_col(t, col);

	assert(row < t->nrows);
	if (c < 0) {
		snprintf(err, errlen, "%s:%zu: no column '%s' in the header",
			 t->path, t->header_line, col);
		return NULL;
	}
	return csv_table_cell(t, row, (size_t)c);
}

/* Writes the accessors' message about a cell that is not a number. */
static int csv_bad_number(const struct csv_table *t, size_t row,
			  const char *col, const char *cell, const char *why,
			  char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%zu: column '%s': '%s' %s", t->path,
		 t->row_line[row], col, cell, why);
	return -1;
}

int csv_table_double(const struct csv_table *t, size_t row, const char *col,
		     double *out, char *err, size_t errlen)
{
	const char *cell = csv_named_cell(t, row, col, err, errlen);
	char *end;
	double v;

	if (!cell)
		return -1;
	/* strtod would skip leading space; a cell that has some is refused. */
	if (cell[0] == '\0' || isspace((unsigned char)cell[0]))
		return csv_bad_number(t, row, col, cell, "is not a number",
				      err, errlen);
	errno = 0;
	v = strtod(cell, &end);
	if (*end != '\0')
		return csv_bad_number(t, row, col, cell, "is not a number",
				      err, errlen);
	/* Underflow also sets ERANGE, but its result is the nearest double. */
	if (errno == ERANGE && isinf(v))
		return csv_bad_number(t, row, col, cell, "is out of range",
				      err, errlen);
	*out = v;
	return 0;
}

int csv_table_long(const struct csv_table *t, size_t row, const char *col,
		   long long *out, char *err, size_t errlen)
{
	const char *cell = csv_named_cell(t, row, col, err, errlen);
	char *end;
	long long v;

	if (!cell)
		return -1;
	if (cell[0] == '\0' || isspace((unsigned char)cell[0]))
		return csv_bad_number(t, row, col, cell, "is not an integer",
				      err, errlen);
	errno = 0;
	v = strtoll(cell, &end, 10);
	if (*end != '\0')
		return csv_bad_number(t, row, col, cell, "is not an integer",
				      err, errlen);
	if (errno == ERANGE)
		return csv_bad_number(t, row, col, cell, "is out of range",
				      err, errlen);
	*out = v;
	return 0;
}
