/* csv_column.h - a results CSV copied with one more column, the same value on every row */
#ifndef TESTS_CSV_COLUMN_H
#define TESTS_CSV_COLUMN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* src copied to dst with the column name appended, value on every row
 * (no sidecar: what reads dst reads it unchecked). */
static inline void csv_with_column(const char *src, const char *dst, const char *name,
				   const char *value)
{
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
	char line[1 << 14];
	cr_assert(in && out, "%s -> %s", src, dst);
	for (int first = 1; fgets(line, sizeof line, in); first = 0) {
		line[strcspn(line, "\r\n")] = '\0';
		fprintf(out, "%s,%s\n", line, first ? name : value);
	}
	fclose(in);
	fclose(out);
}

#endif
