/* png_out.c - images as 8-bit RGB PNG files through libpng's png_image API, written atomically */
#include "png_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef HARNESS_HAVE_PNG
#include <png.h>

#include "../core/atomic_file.h"

/* One channel in [0, 1] as 0 .. 255, rounded to nearest. */
static unsigned char png_out_byte(double x)
{
	return (unsigned char)lround(fmin(fmax(x, 0.0), 1.0) * 255.0);
}

/*
 * The image as 8-bit rows (malloc'd, into *bytes). Returns 0, or -1 with
 * the message for a NaN channel or no memory.
 */
static int png_out_convert(const char *path, const double *rgb, int width, int height,
			   unsigned char **bytes, char *err, size_t errlen)
{
	const size_t n = (size_t)3 * width * height;
	unsigned char *b = malloc(n);

	if (!b) {
		snprintf(err, errlen, "%s: out of memory for a %dx%d image", path, width, height);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (isnan(rgb[i])) {
			snprintf(err, errlen, "%s: pixel (%zu, %zu) channel %zu is not a number",
				 path, i / 3 % (size_t)width, i / 3 / (size_t)width, i % 3);
			free(b);
			return -1;
		}
		b[i] = png_out_byte(rgb[i]);
	}
	*bytes = b;
	return 0;
}

int png_out_write(const char *path, const double *rgb, int width, int height,
		  char *err, size_t errlen)
{
	struct atomic_file af;
	png_image image = { .version = PNG_IMAGE_VERSION, .opaque = NULL };
	unsigned char *bytes;

	if (width <= 0 || height <= 0 || width > PNG_OUT_MAX_SIDE || height > PNG_OUT_MAX_SIDE) {
		snprintf(err, errlen, "%s: image of %dx%d pixels: each side must be 1 .. %d",
			 path, width, height, PNG_OUT_MAX_SIDE);
		return -1;
	}
	if (png_out_convert(path, rgb, width, height, &bytes, err, errlen) != 0)
		return -1;
	if (atomic_file_open(&af, path, err, errlen) != 0)
		goto out_free_bytes;
	image.width = (png_uint_32)width;
	image.height = (png_uint_32)height;
	image.format = PNG_FORMAT_RGB;
	if (!png_image_write_to_stdio(&image, af.fp, 0, bytes, 0, NULL)) {
		snprintf(err, errlen, "%s: libpng: %s", path, image.message);
		png_image_free(&image);
		goto out_abort;
	}
	if (atomic_file_commit(&af, err, errlen) != 0)
		goto out_free_bytes;
	free(bytes);
	return 0;

out_abort:
	atomic_file_abort(&af);
out_free_bytes:
	free(bytes);
	return -1;
}

#else /* !HARNESS_HAVE_PNG */

int png_out_write(const char *path, const double *rgb, int width, int height,
		  char *err, size_t errlen)
{
	(void)rgb;
	(void)width;
	(void)height;
	snprintf(err, errlen, "%s: built without libpng (install libpng-dev and rebuild)", path);
	return -1;
}

#endif /* HARNESS_HAVE_PNG */

int png_out_available(void)
{
#ifdef HARNESS_HAVE_PNG
	return 1;
#else
	return 0;
#endif
}
