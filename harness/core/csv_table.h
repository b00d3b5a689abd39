/* csv_table.h - CSV files through libcsv: writing rows, reading whole tables */
#ifndef CSV_TABLE_H
#define CSV_TABLE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes one row of string fields and a '\n'. A field is written bare when
 * it reads back unchanged, and quoted by libcsv's csv_fwrite otherwise:
 * when it is empty-looking to a reader (leading or trailing space or tab)
 * or holds a comma, a double quote, CR or LF. So plain numbers and names
 * stay readable by gnuplot and by eye, and any byte string survives a
 * round trip through csv_table_read. A NULL field is written empty.
 * Returns 0, or -1 on an I/O error (ferror on fp is then set too).
 */
int csv_write_row(FILE *fp, const char *const *fields, size_t nfields);

/*
 * A whole CSV file in memory. The first row is the header; every other row
 * has exactly as many fields. path and the line numbers are kept so that
 * messages about a cell can say where it came from.
 */
struct csv_table {
	size_t ncols, nrows;
	char **header;      /* ncols column names, all different */
	char **cells;       /* row-major, nrows * ncols */
	char *path;         /* the file it was read from */
	size_t header_line; /* line (from 1) the header starts on */
	size_t *row_line;   /* line (from 1) each data row starts on */
};

/*
 * Reads the CSV file at path into t, strictly (libcsv's CSV_STRICT and
 * CSV_STRICT_FINI). Blank lines are ignored; CRLF line ends are accepted.
 * As libcsv does, spaces and tabs around an unquoted field are dropped;
 * inside quotes everything is kept. Returns 0, or -1 with one line
 * "path:LINE: what" (or "path: what" when no line applies) in err for: an
 * unreadable file, an empty one, a row whose field count differs from the
 * header's, a malformed quoted field, and a repeated header name. On -1, t
 * is left empty, so csv_table_free on it is harmless.
 */
int csv_table_read(const char *path, struct csv_table *t,
		   char *err, size_t errlen);

/* Frees everything t holds and leaves it empty; harmless to repeat. */
void csv_table_free(struct csv_table *t);

/* Returns the index of the column named name, or -1 when there is none. */
int csv_table_col(const struct csv_table *t, const char *name);

/* Returns the cell at (row, col); both must be in range (asserted). */
const char *csv_table_cell(const struct csv_table *t, size_t row, size_t col);

/* Returns the cell of row (in range) in the column named col, or "" when
 * the table has no such column or col is NULL (an optional column reads
 * as empty). */
const char *csv_table_named(const struct csv_table *t, size_t row, const char *col);

/*
 * Typed access to the cell of data row row (from 0, in range) in the
 * column named col. The whole cell must be the number: no leading or
 * trailing spaces (they are rejected, not trimmed, since a cell read back
 * from quotes holds what was written), no trailing text, not empty.
 * csv_table_double takes what strtod takes, "nan" and "inf" included, and
 * rejects values too large for a double; csv_table_long takes a decimal
 * integer that fits in a long long. Return 0 and store *out, or -1 with
 * "path:LINE: column 'x': 'abc' is not a number" (or "... no column 'x'",
 * "... is out of range") in err, leaving *out alone.
 */
int csv_table_double(const struct csv_table *t, size_t row, const char *col,
		     double *out, char *err, size_t errlen);
int csv_table_long(const struct csv_table *t, size_t row, const char *col,
		   long long *out, char *err, size_t errlen);

#endif /* CSV_TABLE_H */
