/* csv_column.h - a results CSV copied with one column set: on every row,
 * or on the rows whose key columns hold given values */
#ifndef TESTS_CSV_COLUMN_H
#define TESTS_CSV_COLUMN_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define CSV_COLUMN_MAX 128

/* line split in place at its commas into cell[], at most CSV_COLUMN_MAX;
 * the cells' count. Results CSVs quote no cell (asserted). */
static inline size_t csv_column_split(char *line, char **cell)
{
	size_t n = 0;
	cr_assert_null(strchr(line, '"'), "a quoted cell: %s", line);
	for (char *s = line;; s++) {
		cr_assert_lt(n, CSV_COLUMN_MAX);
		cell[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s = '\0';
	}
}

/* src copied to dst with column name set to value on the rows where
 * column key[k] holds key_value[k] for each of the nkeys keys (0: every
 * row); a column src lacks is appended, empty on the other rows. No
 * sidecar: what reads dst reads it unchecked. */
static inline void csv_with_cell(const char *src, const char *dst, size_t nkeys,
				 const char *const *key, const char *const *key_value,
				 const char *name, const char *value)
{
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
	static char line[1 << 14];
	char *cell[CSV_COLUMN_MAX];
	long col = -1, kcol[4] = { -1, -1, -1, -1 };
	size_t ncols = 0;
	cr_assert(in && out, "%s -> %s", src, dst);
	cr_assert_leq(nkeys, 4);
	for (int first = 1; fgets(line, sizeof line, in); first = 0) {
		line[strcspn(line, "\r\n")] = '\0';
		size_t n = csv_column_split(line, cell);
		if (first) {
			ncols = n;
			for (size_t c = 0; c < n; c++) {
				if (strcmp(cell[c], name) == 0)
					col = (long)c;
				for (size_t k = 0; k < nkeys; k++)
					if (strcmp(cell[c], key[k]) == 0)
						kcol[k] = (long)c;
			}
			for (size_t k = 0; k < nkeys; k++)
				cr_assert_geq(kcol[k], 0, "%s has no column %s", src, key[k]);
		}
		cr_assert_eq(n, ncols, "%s: a row of %zu cells under %zu names", src, n, ncols);
		bool hit = !first;
		for (size_t k = 0; hit && k < nkeys; k++)
			hit = strcmp(cell[kcol[k]], key_value[k]) == 0;
		for (size_t c = 0; c < n; c++)
			fprintf(out, "%s%s", c ? "," : "",
				first || (long)c != col || !hit ? cell[c] : value);
		if (col < 0)
			fprintf(out, ",%s", first ? name : hit ? value : "");
		fputc('\n', out);
	}
	fclose(in);
	fclose(out);
}

/* src copied to dst with column name set to value on every row. */
static inline void csv_with_column(const char *src, const char *dst, const char *name,
				   const char *value)
{
	csv_with_cell(src, dst, 0, NULL, NULL, name, value);
}

#endif
