/* png_out.h - images as 8-bit RGB PNG files, written whole or not at all */
#ifndef PNG_OUT_H
#define PNG_OUT_H

#include <stddef.h>

/* The largest width or height png_out_write accepts. */
#define PNG_OUT_MAX_SIDE 16384

/*
 * Writes rgb[3 width height] (row 0 the top, channels in [0, 1]) to path
 * as an 8-bit RGB PNG: each channel clamped to [0, 1], times 255, rounded
 * to nearest. The file is written through atomic_file (a temporary file
 * renamed into place), so path holds the old file or the whole new one.
 * Returns 0, or -1 with one line in err, and no file left behind, for a
 * width or height <= 0 or > PNG_OUT_MAX_SIDE, a NaN channel, a path that
 * cannot be written, libpng's failure, or a harness built without libpng
 * (HARNESS_HAVE_PNG unset: the message says "built without libpng").
 */
int png_out_write(const char *path, const double *rgb, int width, int height,
		  char *err, size_t errlen);

/* Whether this build writes PNG files (HARNESS_HAVE_PNG). */
int png_out_available(void);

#endif /* PNG_OUT_H */
