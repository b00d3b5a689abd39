/* csv_column.h - a results CSV copied with one column set: on every row,
 * or on the rows whose key columns hold given values */
#ifndef TESTS_CSV_COLUMN_H
#define TESTS_CSV_COLUMN_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "../harness/core/csv_table.h"

#define CSV_COLUMN_MAX 128

/* src copied to dst with column name set to value on the rows where
 * column key[k] holds key_value[k] for each of the nkeys keys (0: every
 * row); a column src lacks is appended, empty on the other rows. No
 * sidecar: what reads dst reads it unchecked (compare: --unchecked). */
static inline void csv_with_cell(const char *src, const char *dst, size_t nkeys,
				 const char *const *key, const char *const *key_value,
				 const char *name, const char *value)
{
	struct csv_table t;
	char err[1024];
	const char *fields[CSV_COLUMN_MAX];
	int kcol[4];
	cr_assert_eq(csv_table_read(src, &t, err, sizeof err), 0, "%s", err);
	cr_assert_leq(nkeys, 4);
	cr_assert_lt(t.ncols, CSV_COLUMN_MAX);
	for (size_t k = 0; k < nkeys; k++) {
		kcol[k] = csv_table_col(&t, key[k]);
		cr_assert_geq(kcol[k], 0, "%s has no column %s", src, key[k]);
	}
	const int col = csv_table_col(&t, name);
	const size_t n = t.ncols + (col < 0);
	FILE *out = fopen(dst, "w");
	cr_assert_not_null(out, "%s", dst);
	for (size_t c = 0; c < t.ncols; c++)
		fields[c] = t.header[c];
	fields[t.ncols] = name;
	cr_assert_eq(csv_write_row(out, fields, n), 0);
	for (size_t r = 0; r < t.nrows; r++) {
		bool hit = true;
		for (size_t k = 0; hit && k < nkeys; k++)
			hit = strcmp(csv_table_cell(&t, r, (size_t)kcol[k]), key_value[k]) == 0;
		for (size_t c = 0; c < t.ncols; c++)
			fields[c] = hit && (int)c == col ? value : csv_table_cell(&t, r, c);
		fields[t.ncols] = hit ? value : "";
		cr_assert_eq(csv_write_row(out, fields, n), 0);
	}
	cr_assert_eq(fclose(out), 0);
	csv_table_free(&t);
}

/* src copied to dst with column name set to value on every row. */
static inline void csv_with_column(const char *src, const char *dst, const char *name,
				   const char *value)
{
	csv_with_cell(src, dst, 0, NULL, NULL, name, value);
}

#endif
