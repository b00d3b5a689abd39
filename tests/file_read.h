/* file_read.h - a whole file into memory, for tests that compare files byte for byte */
#ifndef TESTS_FILE_READ_H
#define TESTS_FILE_READ_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole of path, NUL-terminated, into a new buffer; *len its size. */
static inline unsigned char *file_read_whole(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp, "cannot open %s", path);
	cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
	long size = ftell(fp);
	cr_assert_geq(size, 0);
	rewind(fp);
	unsigned char *b = malloc((size_t)size + 1);
	cr_assert_not_null(b);
	cr_assert_eq(fread(b, 1, (size_t)size, fp), (size_t)size, "%s: short read", path);
	fclose(fp);
	b[size] = '\0';
	*len = (size_t)size;
	return b;
}

#endif
