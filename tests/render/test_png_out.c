/* test_png_out.c - tests of png_out: a round trip through libpng's reader, refusals that leave no file */
#define _XOPEN_SOURCE 700 /* mkdtemp */

#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HARNESS_HAVE_PNG
#include <png.h>
#endif

#include "../../harness/render/png_out.h"
#include "../tmp_dir.h"

static char dir[64];

static void make_dir(void)
{
	tmp_dir_make(dir, "png_out");
}

static void remove_dir(void)
{
	chmod(dir, 0700);
	tmp_dir_remove(dir);
}

TestSuite(png_out, .init = make_dir, .fini = remove_dir);

/* The number of entries in d other than "." and "..". */
static int count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(dp);
	while ((e = readdir(dp)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(dp);
	return n;
}

/* A message is one line: not empty, no newline. */
static void expect_one_line(const char *err)
{
	cr_expect_gt(strlen(err), 0);
	cr_expect_null(strchr(err, '\n'), "message of several lines: %s", err);
}

#ifdef HARNESS_HAVE_PNG

/* Writes a w x h image of values off the 1/255 grid and out of [0, 1],
 * reads it back with png_image and expects round(clamp(x) 255). */
static void round_trip(int w, int h)
{
	const size_t n = (size_t)3 * w * h;
	double *rgb = malloc(n * sizeof *rgb);
	unsigned char *back = malloc(n);
	png_image image = { .version = PNG_IMAGE_VERSION, .opaque = NULL };
	char path[128], err[256] = "";

	cr_assert(rgb && back);
	for (size_t i = 0; i < n; i++)
		rgb[i] = -0.1 + 1.2 * (double)((i * 7919) % 1001) / 1000.0;
	rgb[0] = 0.5 / 255.0;	/* halfway: rounds up */
	rgb[1] = 1.0 + 1e-9;
	rgb[2] = -INFINITY;
	snprintf(path, sizeof path, "%s/img.png", dir);
	cr_assert_eq(png_out_write(path, rgb, w, h, err, sizeof err), 0, "%s", err);

	cr_assert(png_image_begin_read_from_file(&image, path), "%s", image.message);
	cr_assert_eq(image.width, (png_uint_32)w);
	cr_assert_eq(image.height, (png_uint_32)h);
	image.format = PNG_FORMAT_RGB;
	cr_assert(png_image_finish_read(&image, NULL, back, 0, NULL), "%s", image.message);
	for (size_t i = 0; i < n; i++) {
		const long want = lround(fmin(fmax(rgb[i], 0.0), 1.0) * 255.0);

		cr_assert_eq(back[i], want, "byte %zu (pixel (%zu, %zu)): %d, wrote %.9g", i,
			     i / 3 % (size_t)w, i / 3 / (size_t)w, back[i], rgb[i]);
	}
	cr_expect_eq(back[0], 1);
	cr_expect_eq(back[1], 255);
	cr_expect_eq(back[2], 0);
	cr_expect_eq(count_entries(dir), 1, "temporary files left behind");
	free(rgb);
	free(back);
}

/* Sizes that are not multiples of anything, a single pixel, a tall strip. */
Test(png_out, round_trip_equals_rounded_input)
{
	round_trip(37, 23);
	round_trip(1, 1);
	round_trip(3, 200);
}

/* Writing over an existing file replaces it whole. */
Test(png_out, overwrite_replaces)
{
	double small[3] = { 1, 0, 0 }, big[3 * 4 * 2];
	png_image image = { .version = PNG_IMAGE_VERSION, .opaque = NULL };
	char path[128], err[256] = "";

	for (int i = 0; i < 3 * 4 * 2; i++)
		big[i] = 0.25;
	snprintf(path, sizeof path, "%s/img.png", dir);
	cr_assert_eq(png_out_write(path, small, 1, 1, err, sizeof err), 0, "%s", err);
	cr_assert_eq(png_out_write(path, big, 4, 2, err, sizeof err), 0, "%s", err);
	cr_assert(png_image_begin_read_from_file(&image, path), "%s", image.message);
	cr_expect_eq(image.width, 4);
	cr_expect_eq(image.height, 2);
	png_image_free(&image);
	cr_expect_eq(count_entries(dir), 1);
}

/* Bad sizes, NaN pixels and unwritable paths: -1, one line, no file. */
Test(png_out, refusals_leave_no_file)
{
	double rgb[3 * 4] = { 0 };
	const int sizes[][2] = { { 0, 1 }, { 1, 0 }, { -2, 2 }, { 2, -1 }, { 16385, 1 },
				 { 1, 16385 } };
	char path[128], err[256];

	snprintf(path, sizeof path, "%s/img.png", dir);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		err[0] = '\0';
		cr_expect_eq(png_out_write(path, rgb, sizes[s][0], sizes[s][1], err, sizeof err),
			     -1, "%dx%d accepted", sizes[s][0], sizes[s][1]);
		expect_one_line(err);
		cr_expect(strstr(err, "16384") != NULL, "%s", err);
	}
	rgb[5] = NAN;
	err[0] = '\0';
	cr_expect_eq(png_out_write(path, rgb, 2, 2, err, sizeof err), -1);
	expect_one_line(err);
	cr_expect_eq(count_entries(dir), 0, "a refused image left a file");

	/* a missing directory, the directory itself, a read-only directory */
	char missing[160];

	snprintf(missing, sizeof missing, "%s/no/such/dir/img.png", dir);
	err[0] = '\0';
	cr_expect_eq(png_out_write(missing, rgb, 1, 1, err, sizeof err), -1);
	expect_one_line(err);
	err[0] = '\0';
	cr_expect_eq(png_out_write(dir, rgb, 1, 1, err, sizeof err), -1);
	expect_one_line(err);
	cr_expect_eq(count_entries(dir), 0);
}

/* A read-only directory: -1, one line, nothing left in it. */
Test(png_out, read_only_directory_refused)
{
	double rgb[3] = { 0.5, 0.5, 0.5 };
	char ro[160], in_ro[200], err[256];

	snprintf(ro, sizeof ro, "%s/ro", dir);
	cr_assert_eq(mkdir(ro, 0500), 0);
	snprintf(in_ro, sizeof in_ro, "%s/img.png", ro);
	if (access(ro, W_OK) == 0)
		cr_skip_test("running as root, which writes to read-only directories");
	err[0] = '\0';
	cr_expect_eq(png_out_write(in_ro, rgb, 1, 1, err, sizeof err), -1);
	expect_one_line(err);
	cr_expect_eq(count_entries(ro), 0);
	chmod(ro, 0700);
}

#else /* !HARNESS_HAVE_PNG */

Test(png_out, round_trip_equals_rounded_input)
{
	cr_skip_test("built without libpng (HARNESS_HAVE_PNG unset)");
}

#endif /* HARNESS_HAVE_PNG */

/* Built with or without libpng, a refusal says why in one line. */
Test(png_out, stub_or_refusal_is_one_line)
{
	double rgb[3] = { 0.5, 0.5, 0.5 };
	char path[128], err[256] = "";
	int rc;

	snprintf(path, sizeof path, "%s/img.png", dir);
	rc = png_out_write(path, rgb, 0, 1, err, sizeof err);
	cr_expect_eq(rc, -1);
	expect_one_line(err);
#ifndef HARNESS_HAVE_PNG
	cr_expect(strstr(err, "built without libpng") != NULL, "%s", err);
#endif
	cr_expect_eq(count_entries(dir), 0);
}
