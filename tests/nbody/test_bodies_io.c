/* test_bodies_io.c - tests of the CSV and Tipsy body readers and the CSV writer */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, dirent */

#include <criterion/criterion.h>

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/nbody/bodies_io.h"

/* Each test runs in its own process with its own scratch directory. */
static char scratch_dir[64];

static void scratch_make(void)
{
	strcpy(scratch_dir, "/tmp/test_bodies_io.XXXXXX");
	if (!mkdtemp(scratch_dir))
		cr_assert_fail("mkdtemp failed");
}

/* Removes the scratch directory and the plain files the test left in it. */
static void scratch_remove(void)
{
	DIR *dir = opendir(scratch_dir);
	struct dirent *e;
	char path[512];

	if (!dir)
		return;
	while ((e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", scratch_dir, e->d_name);
		unlink(path);
	}
	closedir(dir);
	rmdir(scratch_dir);
}

TestSuite(bodies_io, .init = scratch_make, .fini = scratch_remove);

/* The path of name in the scratch directory (one of 4 rotating buffers). */
static const char *scratch_path(const char *name)
{
	static char paths[4][512];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", scratch_dir, name);
	return p;
}

/* Writes len bytes to name in the scratch directory; returns its path. */
static const char *write_bytes(const char *name, const void *data, size_t len)
{
	const char *path = scratch_path(name);
	FILE *fp = fopen(path, "wb");

	cr_assert_not_null(fp, "cannot create %s", path);
	cr_assert_eq(fwrite(data, 1, len, fp), len);
	cr_assert_eq(fclose(fp), 0);
	return path;
}

static const char *write_text(const char *name, const char *text)
{
	return write_bytes(name, text, strlen(text));
}

/* A struct bodies holding junk, to show that a failed read empties it. */
static struct bodies poisoned(void)
{
	static float junk[4];

	return (struct bodies){ .n = 77, .pos4 = junk, .vel4 = junk };
}

static void expect_empty(const struct bodies *b)
{
	cr_assert_eq(b->n, 0);
	cr_assert_null(b->pos4);
	cr_assert_null(b->vel4);
}

typedef int (*reader_fn)(const char *, struct bodies *, char *, size_t);

/*
 * Runs read on path and checks that it fails the way the API promises:
 * -1, *out empty, one line starting with want_prefix and mentioning what.
 */
static void expect_failure(reader_fn read, const char *path,
			   const char *want_prefix, const char *what)
{
	struct bodies b = poisoned();
	char err[512] = "";

	cr_assert_eq(read(path, &b, err, sizeof(err)), -1,
		     "%s should have been refused", path);
	expect_empty(&b);
	cr_assert_eq(strncmp(err, want_prefix, strlen(want_prefix)), 0,
		     "message \"%s\" should start \"%s\"", err, want_prefix);
	cr_assert_not_null(strstr(err, what),
			   "message \"%s\" should mention \"%s\"", err, what);
	cr_assert_null(strchr(err, '\n'), "message \"%s\" is not one line", err);
}

/* Writes text as a CSV file and expects bodies_read_csv to refuse it at line. */
static void expect_csv_error(const char *text, unsigned long line, const char *what)
{
	const char *path = write_text("bad.csv", text);
	char prefix[600];

	snprintf(prefix, sizeof(prefix), "%s:%lu: ", path, line);
	expect_failure(bodies_read_csv, path, prefix, what);
}

/* Writes text as a CSV file and reads it, which must succeed. */
static struct bodies read_csv_ok(const char *text)
{
	const char *path = write_text("good.csv", text);
	struct bodies b = poisoned();
	char err[512] = "";

	cr_assert_eq(bodies_read_csv(path, &b, err, sizeof(err)), 0,
		     "read failed: %s", err);
	return b;
}

/* Checks body i against the expected (x, y, z, mass) and (vx, vy, vz). */
static void expect_body(const struct bodies *b, size_t i,
			float x, float y, float z, float m,
			float vx, float vy, float vz)
{
	const float want[8] = { x, y, z, m, vx, vy, vz, 0.0f };
	const float got[8] = {
		b->pos4[4 * i], b->pos4[4 * i + 1], b->pos4[4 * i + 2], b->pos4[4 * i + 3],
		b->vel4[4 * i], b->vel4[4 * i + 1], b->vel4[4 * i + 2], b->vel4[4 * i + 3],
	};
	int k;

	cr_assert_lt(i, b->n);
	for (k = 0; k < 8; k++)
		cr_assert_eq(got[k], want[k], "body %zu value %d: got %g, want %g",
			     i, k, (double)got[k], (double)want[k]);
}

/* ------------------------------------------------------- CSV, valid */

Test(bodies_io, csv_with_velocities)
{
	struct bodies b = read_csv_ok("x,y,z,mass,vx,vy,vz\n"
				      "1,2,3,4,5,6,7\n"
				      "-0.5,1e3,2.25,0.125,-1,-2,-3\n");

	cr_assert_eq(b.n, 2);
	expect_body(&b, 0, 1, 2, 3, 4, 5, 6, 7);
	expect_body(&b, 1, -0.5f, 1000, 2.25f, 0.125f, -1, -2, -3);
	bodies_free(&b);
	expect_empty(&b);
}

Test(bodies_io, csv_without_velocities_zero_fills_vel4)
{
	struct bodies b = read_csv_ok("x,y,z,mass\n1,2,3,4\n5,6,7,8\n9,10,11,12\n");

	cr_assert_eq(b.n, 3);
	cr_assert_not_null(b.vel4);
	expect_body(&b, 2, 9, 10, 11, 12, 0, 0, 0);
	bodies_free(&b);
}

Test(bodies_io, csv_columns_reordered_extra_columns_ignored)
{
	struct bodies b = read_csv_ok("id,mass,vz,z,name,y,vy,x,vx\n"
				      "17,4,7,3,not a number,2,6,1,5\n"
				      "18,0.5,-7,-3,,-2,-6,-1,-5\n");

	cr_assert_eq(b.n, 2);
	expect_body(&b, 0, 1, 2, 3, 4, 5, 6, 7);
	expect_body(&b, 1, -1, -2, -3, 0.5f, -5, -6, -7);
	bodies_free(&b);
}

Test(bodies_io, csv_header_case_and_spaces)
{
	struct bodies b = read_csv_ok(" X ,y\t, Z,MaSs \n1,2,3,4\n");

	cr_assert_eq(b.n, 1);
	expect_body(&b, 0, 1, 2, 3, 4, 0, 0, 0);
	bodies_free(&b);
}

Test(bodies_io, csv_crlf_line_endings)
{
	struct bodies b = read_csv_ok("x,y,z,mass,vx,vy,vz\r\n1,2,3,4,5,6,7\r\n8,9,10,11,12,13,14\r\n");

	cr_assert_eq(b.n, 2);
	expect_body(&b, 1, 8, 9, 10, 11, 12, 13, 14);
	bodies_free(&b);
	/* A CRLF file's errors are on the right line too. */
	expect_csv_error("x,y,z,mass\r\n1,2,3,4\r\n\r\n1,2,3,4\r\n", 3, "blank line");
	expect_csv_error("x,y,z,mass\r\n1,2,3,4\r\n1,2,3\r\n", 3, "3 fields");
}

Test(bodies_io, csv_quoted_fields)
{
	struct bodies b = read_csv_ok("\"x\",\"y\",\"z\",\"mass\",\"note\"\n"
				      "\"1.5\",\" 2 \",3,\"4\",\"a, \"\"quoted\"\" note\"\n");

	cr_assert_eq(b.n, 1);
	expect_body(&b, 0, 1.5f, 2, 3, 4, 0, 0, 0);
	bodies_free(&b);
}

Test(bodies_io, csv_line_numbers_count_physical_lines)
{
	/* The quoted note spans lines 2-3, so the bad mass is on line 4. */
	expect_csv_error("x,y,z,mass,note\n"
			 "1,2,3,4,\"two\nlines\"\n"
			 "5,6,7,heavy,ok\n", 4, "'heavy'");
}

Test(bodies_io, csv_trailing_blank_lines_and_missing_final_newline)
{
	struct bodies b = read_csv_ok("x,y,z,mass\n1,2,3,4\n\n  \n\r\n");

	cr_assert_eq(b.n, 1);
	bodies_free(&b);
	b = read_csv_ok("x,y,z,mass\n1,2,3,4\n5,6,7,8");
	cr_assert_eq(b.n, 2);
	expect_body(&b, 1, 5, 6, 7, 8, 0, 0, 0);
	bodies_free(&b);
}

Test(bodies_io, csv_zero_and_negative_zero_mass_allowed)
{
	struct bodies b = read_csv_ok("x,y,z,mass\n1,2,3,0\n1,2,3,-0\n");

	cr_assert_eq(b.n, 2);
	cr_assert_eq(b.pos4[3], 0.0f);
	cr_assert_eq(b.pos4[7], 0.0f);
	bodies_free(&b);
}

Test(bodies_io, csv_byte_order_mark_skipped)
{
	struct bodies b = read_csv_ok("\xEF\xBB\xBFx,y,z,mass\n1,2,3,4\n");

	cr_assert_eq(b.n, 1);
	bodies_free(&b);
}

Test(bodies_io, csv_many_rows_grow_storage)
{
	/* More rows than the first allocation, and not a round number. */
	size_t n = 1001, i, len = 0;
	char *text = malloc(32 * (n + 1));
	struct bodies b;

	cr_assert_not_null(text);
	len += (size_t)sprintf(text, "x,y,z,mass\n");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%zu,%zu,-%zu,%zu\n", i, 2 * i, i, i % 7);
	b = read_csv_ok(text);
	free(text);
	cr_assert_eq(b.n, n);
	for (i = 0; i < n; i++)
		expect_body(&b, i, (float)i, (float)(2 * i), -(float)i, (float)(i % 7), 0, 0, 0);
	bodies_free(&b);
}

/* ------------------------------------------------------ CSV, refused */

Test(bodies_io, csv_short_and_long_rows)
{
	expect_csv_error("x,y,z,mass\n1,2,3,4\n1,2,3\n", 3, "3 fields but the header on line 1 has 4");
	expect_csv_error("x,y,z,mass\n1,2,3,4,5\n", 2, "5 fields");
}

Test(bodies_io, csv_non_numeric_and_trailing_junk)
{
	expect_csv_error("x,y,z,mass\n1,abc,3,4\n", 2, "column 'y': 'abc' is not a number");
	expect_csv_error("x,y,z,mass\n1,2,3,4\n1,2,3.5x,4\n", 3, "column 'z': '3.5x'");
	expect_csv_error("x,y,z,mass\n1,2,\"3\n4\",4\n", 3, "'3?4'");
}

Test(bodies_io, csv_non_finite_values)
{
	expect_csv_error("x,y,z,mass\nnan,2,3,4\n", 2, "column 'x': 'nan' is not a finite number");
	expect_csv_error("x,y,z,mass\n1,2,3,4\n1,-inf,3,4\n", 3, "'-inf' is not a finite");
	expect_csv_error("x,y,z,mass\n1,2,3,1e39\n", 2, "'1e39' is not a finite");
	expect_csv_error("x,y,z,mass,vx,vy,vz\n1,2,3,4,5,6,INFINITY\n", 2, "column 'vz'");
}

Test(bodies_io, csv_empty_field)
{
	expect_csv_error("x,y,z,mass\n1,,3,4\n", 2, "column 'y' is empty");
}

Test(bodies_io, csv_empty_and_blank_files)
{
	expect_csv_error("", 1, "no header row");
	expect_csv_error("\n\n  \n", 1, "no header row");
}

Test(bodies_io, csv_header_only)
{
	expect_csv_error("x,y,z,mass\n", 1, "header but no bodies");
	expect_csv_error("x,y,z,mass\n\n", 1, "header but no bodies");
}

Test(bodies_io, csv_missing_column)
{
	expect_csv_error("x,y,z,m\n1,2,3,4\n", 1, "header lacks column 'mass' (need x,y,z,mass)");
	expect_csv_error("mass,y,z\n1,2,3\n", 1, "header lacks column 'x'");
	expect_csv_error("x,y,z,mass,vx,vz\n1,2,3,4,5,6\n", 1, "header lacks column 'vy'");
}

Test(bodies_io, csv_duplicate_column)
{
	expect_csv_error("x,y,z,mass,X\n1,2,3,4,5\n", 1, "column 'x' twice (columns 1 and 5)");
}

Test(bodies_io, csv_negative_mass)
{
	expect_csv_error("x,y,z,mass\n1,2,3,4\n1,2,3,0\n1,2,3,-1e-3\n", 4,
			 "column 'mass': '-1e-3' is negative");
}

Test(bodies_io, csv_blank_line_inside_data)
{
	expect_csv_error("x,y,z,mass\n1,2,3,4\n\n5,6,7,8\n", 3, "more data on line 4");
	expect_csv_error("\nx,y,z,mass\n1,2,3,4\n", 1, "blank line");
}

Test(bodies_io, csv_quoting_errors_from_libcsv)
{
	const char *strict = "error parsing data";

	expect_csv_error("x,y,z,mass\n1,2,3,4\n\"1\"x,2,3,4\n", 3, strict);
	/* An unclosed quote is reported where its row begins. */
	expect_csv_error("x,y,z,mass\n1,2,3,4\n\"1,2,3,4\n5,6,7,8\n", 3, "never closed");
}

Test(bodies_io, csv_long_bad_text_is_cut_in_the_message)
{
	char text[400];

	snprintf(text, sizeof(text), "x,y,z,mass\n1,2,3,%0200d\n", 0);
	text[20] = 'q';
	expect_csv_error(text, 2, "...' is not a number");
}

Test(bodies_io, csv_nonexistent_file)
{
	const char *path = scratch_path("absent.csv");
	char prefix[600];

	snprintf(prefix, sizeof(prefix), "%s: cannot open: ", path);
	expect_failure(bodies_read_csv, path, prefix, "No such file");
}

Test(bodies_io, directory_instead_of_file)
{
	expect_failure(bodies_read_csv, scratch_dir, scratch_dir, ":");
	expect_failure(bodies_read_tipsy, scratch_dir, scratch_dir, ":");
	expect_failure(bodies_read_file, scratch_dir, scratch_dir, ":");
}

Test(bodies_io, error_buffer_may_be_small_or_absent)
{
	const char *path = write_text("bad.csv", "x,y,z\n1,2,3\n");
	struct bodies b = poisoned();
	char err[8];

	memset(err, 'z', sizeof(err));
	cr_assert_eq(bodies_read_csv(path, &b, err, sizeof(err)), -1);
	cr_assert_eq(strlen(err), sizeof(err) - 1);
	expect_empty(&b);
	b = poisoned();
	cr_assert_eq(bodies_read_csv(path, &b, NULL, 0), -1);
	expect_empty(&b);
}

/* -------------------------------------------------------------- Tipsy */

/* Byte offsets in the Tipsy fixtures, for nsph 2, ndark 3, nstar 4. */
#define FIX_NSPH 2
#define FIX_NDARK 3
#define FIX_NSTAR 4
#define FIX_N (FIX_NSPH + FIX_NDARK + FIX_NSTAR)
#define FIX_DARK_AT (32 + FIX_NSPH * 48)         /* 128 */
#define FIX_STAR_AT (FIX_DARK_AT + FIX_NDARK * 36) /* 236 */
#define FIX_SIZE (FIX_STAR_AT + FIX_NSTAR * 44)    /* 412 */

static void put_u32(unsigned char *p, uint32_t v, int big_endian)
{
	int i;

	for (i = 0; i < 4; i++)
		p[big_endian ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

static void put_f32(unsigned char *p, float f, int big_endian)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	put_u32(p, u, big_endian);
}

/* Body i of the Tipsy fixtures: small dyadic values, so exact in float. */
static void fixture_body(size_t i, float v[7])
{
	v[0] = 0.25f * (float)(i + 1);     /* mass */
	v[1] = 0.5f + (float)i;            /* pos */
	v[2] = -1.25f * (float)i;
	v[3] = 1024.0f + (float)i;
	v[4] = -0.5f * (float)i;           /* vel */
	v[5] = 2.0f + (float)i;
	v[6] = 3.0f * (float)i - 7.0f;
}

/*
 * Builds a Tipsy file image in either byte order: header (time 1.5,
 * nbodies = nsph + ndark + nstar, ndim 3, padding), then the records with
 * the fixture bodies. The fields the reader ignores hold what it must not
 * choke on: NaN in gas records, and in phi of dark and star records the
 * integer id -1 (0xffffffff, a NaN as a float) as the CUDA sample stores.
 * Returns a malloc'd image of *len bytes.
 */
static unsigned char *tipsy_image(int big_endian, int nsph, int ndark,
				  int nstar, size_t *len)
{
	const int floats[3] = { 12, 9, 11 }, counts[3] = { nsph, ndark, nstar };
	double time = 1.5;
	uint64_t tbits;
	unsigned char *img, *p;
	size_t body = 0;
	int kind, k, i;

	*len = 32 + 48 * (size_t)nsph + 36 * (size_t)ndark + 44 * (size_t)nstar;
	img = malloc(*len);
	cr_assert_not_null(img);
	memcpy(&tbits, &time, sizeof(tbits));
	put_u32(img + (big_endian ? 0 : 4), (uint32_t)(tbits >> 32), big_endian);
	put_u32(img + (big_endian ? 4 : 0), (uint32_t)tbits, big_endian);
	put_u32(img + 8, (uint32_t)(nsph + ndark + nstar), big_endian);
	put_u32(img + 12, 3, big_endian);
	put_u32(img + 16, (uint32_t)nsph, big_endian);
	put_u32(img + 20, (uint32_t)ndark, big_endian);
	put_u32(img + 24, (uint32_t)nstar, big_endian);
	memset(img + 28, big_endian ? 0 : 0xab, 4); /* struct padding: anything */
	p = img + 32;
	for (kind = 0; kind < 3; kind++) {
		for (k = 0; k < counts[kind]; k++, body++) {
			float v[7];

			fixture_body(body, v);
			for (i = 0; i < 7; i++)
				put_f32(p + 4 * i, v[i], big_endian);
			for (i = 7; i < floats[kind]; i++)
				put_f32(p + 4 * i, NAN, big_endian);
			if (kind != 0)
				put_u32(p + 4 * (floats[kind] - 1), 0xffffffffu, big_endian);
			p += 4 * floats[kind];
		}
	}
	return img;
}

/* Writes the standard fixture (2 gas, 3 dark, 4 star) to name; returns its path. */
static const char *write_fixture(const char *name, int big_endian)
{
	size_t len;
	unsigned char *img = tipsy_image(big_endian, FIX_NSPH, FIX_NDARK, FIX_NSTAR, &len);
	const char *path = write_bytes(name, img, len);

	cr_assert_eq(len, FIX_SIZE);
	free(img);
	return path;
}

static void expect_fixture_bodies(const struct bodies *b, size_t n)
{
	size_t i;
	float v[7];

	cr_assert_eq(b->n, n);
	for (i = 0; i < n; i++) {
		fixture_body(i, v);
		expect_body(b, i, v[1], v[2], v[3], v[0], v[4], v[5], v[6]);
	}
}

/* Writes img as a Tipsy file and expects the reader to refuse it naming byte `at`. */
static void expect_tipsy_error(const unsigned char *img, size_t len,
			       long at, const char *what)
{
	const char *path = write_bytes("bad.tipsy", img, len);
	char prefix[600];

	snprintf(prefix, sizeof(prefix), "%s: byte %ld: ", path, at);
	expect_failure(bodies_read_tipsy, path, prefix, what);
	/* bodies_read_file must pass the Tipsy message through, not try CSV. */
	if (len >= 32)
		expect_failure(bodies_read_file, path, prefix, what);
}

Test(bodies_io, tipsy_little_endian_gas_dark_star)
{
	const char *path = write_fixture("le.tipsy", 0);
	struct bodies b = poisoned();
	char err[512] = "";

	cr_assert_eq(bodies_read_tipsy(path, &b, err, sizeof(err)), 0, "%s", err);
	expect_fixture_bodies(&b, FIX_N);
	bodies_free(&b);
}

Test(bodies_io, tipsy_big_endian_gas_dark_star)
{
	const char *path = write_fixture("be.tipsy", 1);
	struct bodies b = poisoned();
	char err[512] = "";

	cr_assert_eq(bodies_read_tipsy(path, &b, err, sizeof(err)), 0, "%s", err);
	expect_fixture_bodies(&b, FIX_N);
	bodies_free(&b);
}

Test(bodies_io, tipsy_other_mixes_and_ndim_2)
{
	const int mixes[][3] = { { 0, 5, 3 }, { 4, 0, 0 }, { 0, 0, 1 }, { 1, 1, 0 } };
	size_t m, len;
	int big;

	for (m = 0; m < sizeof(mixes) / sizeof(mixes[0]); m++) {
		for (big = 0; big < 2; big++) {
			unsigned char *img = tipsy_image(big, mixes[m][0], mixes[m][1],
							 mixes[m][2], &len);
			struct bodies b = poisoned();
			char err[512] = "";
			const char *path;

			put_u32(img + 12, m % 2 ? 2 : 3, big);
			path = write_bytes("mix.tipsy", img, len);
			free(img);
			cr_assert_eq(bodies_read_tipsy(path, &b, err, sizeof(err)), 0, "%s", err);
			expect_fixture_bodies(&b, (size_t)(mixes[m][0] + mixes[m][1] + mixes[m][2]));
			bodies_free(&b);
		}
	}
}

Test(bodies_io, tipsy_truncated)
{
	size_t len;
	int big;

	for (big = 0; big < 2; big++) {
		unsigned char *img = tipsy_image(big, FIX_NSPH, FIX_NDARK, FIX_NSTAR, &len);

		/* 10 bytes into the second dark record, body 3. */
		expect_tipsy_error(img, FIX_DARK_AT + 36 + 10, FIX_DARK_AT + 36 + 10,
				   "10 bytes into record 3 (dark 1) of the 9");
		/* Exactly at the end of the dark records. */
		expect_tipsy_error(img, FIX_STAR_AT, FIX_STAR_AT,
				   "ends before record 5 (star 0)");
		expect_tipsy_error(img, len - 1, (long)len - 1, "record 8 (star 3)");
		expect_tipsy_error(img, 32, 32, "before record 0 (gas 0)");
		expect_tipsy_error(img, 20, 20, "inside the 32-byte Tipsy header");
		free(img);
	}
}

Test(bodies_io, tipsy_inconsistent_header)
{
	size_t len;
	int big;

	for (big = 0; big < 2; big++) {
		unsigned char *img = tipsy_image(big, FIX_NSPH, FIX_NDARK, FIX_NSTAR, &len);

		put_u32(img + 8, FIX_N + 1, big);
		expect_tipsy_error(img, len, 8, "nbodies is 10 but nsph + ndark + nstar = 2 + 3 + 4 = 9");
		put_u32(img + 8, FIX_N, big);

		put_u32(img + 12, 4, big);
		expect_tipsy_error(img, len, 12, "not a Tipsy file");
		put_u32(img + 12, 3, big);

		put_u32(img + 20, (uint32_t)-1, big);
		put_u32(img + 8, FIX_N - 4, big);
		expect_tipsy_error(img, len, 20, "ndark is -1");

		free(img);
	}
}

Test(bodies_io, tipsy_no_bodies)
{
	size_t len;
	unsigned char *img = tipsy_image(1, 0, 0, 0, &len);

	expect_tipsy_error(img, len, 8, "no bodies");
	free(img);
}

Test(bodies_io, tipsy_trailing_garbage)
{
	unsigned char img[FIX_SIZE + 5];
	unsigned char *good;
	size_t len;
	int big;

	for (big = 0; big < 2; big++) {
		good = tipsy_image(big, FIX_NSPH, FIX_NDARK, FIX_NSTAR, &len);
		memcpy(img, good, len);
		memset(img + len, 0, 5);
		free(good);
		expect_tipsy_error(img, sizeof(img), FIX_SIZE, "5 bytes of trailing data");
	}
}

Test(bodies_io, tipsy_non_finite_and_negative_mass)
{
	size_t len;
	int big;

	for (big = 0; big < 2; big++) {
		unsigned char *img = tipsy_image(big, FIX_NSPH, FIX_NDARK, FIX_NSTAR, &len);
		size_t star1 = FIX_STAR_AT + 44;

		put_f32(img + star1 + 8, NAN, big);
		expect_tipsy_error(img, len, (long)star1 + 8, "record 6 (star 1): pos[1] is not finite");
		put_f32(img + star1 + 8, 0.0f, big);

		put_f32(img + FIX_DARK_AT + 4 * 6, -INFINITY, big);
		expect_tipsy_error(img, len, FIX_DARK_AT + 24, "record 2 (dark 0): vel[2]");
		put_f32(img + FIX_DARK_AT + 4 * 6, 1.0f, big);

		put_f32(img + 32 + 48, -2.0f, big);
		expect_tipsy_error(img, len, 32 + 48, "record 1 (gas 1): mass is -2");
		free(img);
	}
}

Test(bodies_io, tipsy_nonexistent_file)
{
	const char *path = scratch_path("absent.tipsy");
	char prefix[600];

	snprintf(prefix, sizeof(prefix), "%s: cannot open: ", path);
	expect_failure(bodies_read_tipsy, path, prefix, "No such file");
	expect_failure(bodies_read_file, path, prefix, "No such file");
}

/* ------------------------------------------------ format detection */

Test(bodies_io, read_file_detects_format)
{
	const char *files[3];
	struct bodies b = poisoned();
	char err[512] = "";
	int f;

	files[0] = write_fixture("le.tipsy", 0);
	files[1] = write_fixture("be.tipsy", 1);
	for (f = 0; f < 2; f++) {
		cr_assert_eq(bodies_read_file(files[f], &b, err, sizeof(err)), 0, "%s", err);
		expect_fixture_bodies(&b, FIX_N);
		bodies_free(&b);
	}
	/* A CSV file shorter than a Tipsy header, and a longer one. */
	files[2] = write_text("short.csv", "x,y,z,mass\n1,2,3,4\n");
	cr_assert_eq(bodies_read_file(files[2], &b, err, sizeof(err)), 0, "%s", err);
	expect_body(&b, 0, 1, 2, 3, 4, 0, 0, 0);
	bodies_free(&b);
	files[2] = write_text("long.csv", "x,y,z,mass,vx,vy,vz\n1,2,3,4,5,6,7\n8,9,10,11,12,13,14\n");
	cr_assert_eq(bodies_read_file(files[2], &b, err, sizeof(err)), 0, "%s", err);
	expect_body(&b, 1, 8, 9, 10, 11, 12, 13, 14);
	bodies_free(&b);
}

Test(bodies_io, read_file_gives_csv_errors_for_text)
{
	const char *path = write_text("bad.csv", "x,y,z,mass\n1,2,3,4\n1,2,3\n");
	char prefix[600];

	snprintf(prefix, sizeof(prefix), "%s:3: ", path);
	expect_failure(bodies_read_file, path, prefix, "3 fields");
}

/* ------------------------------------------------------ CSV writer */

/* A float from random bits, remade until finite. */
static float random_finite(uint64_t *state)
{
	for (;;) {
		uint32_t u;
		float f;

		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		u = (uint32_t)(*state >> 16);
		memcpy(&f, &u, sizeof(f));
		if (isfinite(f))
			return f;
	}
}

Test(bodies_io, write_read_round_trip_is_bit_exact)
{
	const float special[] = { -0.0f, 0.0f, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN,
				  FLT_MAX, -FLT_MAX, 1.0f / 3.0f, 0.1f, 16777217.0f };
	const size_t n = 1003, nspecial = sizeof(special) / sizeof(special[0]);
	struct bodies in = { .n = n }, back = poisoned();
	const char *path = scratch_path("round.csv");
	uint64_t state = 0x9e3779b97f4a7c15u;
	char err[512] = "";
	size_t i;

	in.pos4 = malloc(4 * n * sizeof(float));
	in.vel4 = malloc(4 * n * sizeof(float));
	cr_assert(in.pos4 && in.vel4);
	for (i = 0; i < 4 * n; i++) {
		in.pos4[i] = i < nspecial ? special[i] : random_finite(&state);
		in.vel4[i] = i % 4 == 3 ? 0.0f : random_finite(&state);
		if (i % 4 == 3)
			in.pos4[i] = fabsf(in.pos4[i]);
	}
	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(bodies_read_csv(path, &back, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back.n, n);
	for (i = 0; i < 4 * n; i++) {
		cr_assert_eq(memcmp(&back.pos4[i], &in.pos4[i], sizeof(float)), 0,
			     "pos4[%zu]: wrote %.9g, read %.9g", i,
			     (double)in.pos4[i], (double)back.pos4[i]);
		cr_assert_eq(memcmp(&back.vel4[i], &in.vel4[i], sizeof(float)), 0,
			     "vel4[%zu]: wrote %.9g, read %.9g", i,
			     (double)in.vel4[i], (double)back.vel4[i]);
	}
	bodies_free(&in);
	bodies_free(&back);
}

Test(bodies_io, write_without_velocities_writes_zeros)
{
	float pos[8] = { 1, 2, 3, 4, 5, 6, 7, 0 };
	struct bodies in = { .n = 2, .pos4 = pos, .vel4 = NULL }, back = poisoned();
	const char *path = scratch_path("novel.csv");
	char err[512] = "";

	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(bodies_read_csv(path, &back, err, sizeof(err)), 0, "%s", err);
	expect_body(&back, 1, 5, 6, 7, 0, 0, 0, 0);
	bodies_free(&back);
}

Test(bodies_io, write_refuses_what_the_reader_would)
{
	float pos[8] = { 1, 2, 3, 4, 5, NAN, 7, 8 }, vel[8] = { 0 };
	struct bodies in = { .n = 2, .pos4 = pos, .vel4 = vel }, none = { 0 };
	const char *path = scratch_path("refused.csv");
	char err[512] = "";

	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "body 1: y is not finite"), "%s", err);
	cr_assert_eq(access(path, F_OK), -1, "a refused write must not create the file");
	pos[5] = 6;
	vel[6] = INFINITY;
	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "body 1: vz is not finite"), "%s", err);
	vel[6] = 0;
	pos[3] = -1;
	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "body 0: mass is -1"), "%s", err);
	cr_assert_eq(bodies_write_csv(path, &none, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "no bodies"), "%s", err);
	cr_assert_eq(access(path, F_OK), -1);
}

Test(bodies_io, write_to_missing_directory)
{
	float pos[4] = { 1, 2, 3, 4 };
	struct bodies in = { .n = 1, .pos4 = pos };
	const char *path = scratch_path("no/such/dir.csv");
	char err[512] = "";

	cr_assert_eq(bodies_write_csv(path, &in, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "cannot create"), "%s", err);
	cr_assert_not_null(strstr(err, path), "%s", err);
}
