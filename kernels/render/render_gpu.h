/* render_gpu.h - the SPH paper's distance field and raycasting on the GPU behind a plain C API */
#ifndef KERNELS_RENDER_GPU_H
#define KERNELS_RENDER_GPU_H

#include <stddef.h>

#include "../../reference/render_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The two GPU stages of Goswami et al.'s rendering (reference/render_ref.h,
 * sections 2 and 3), validated against the double reference by
 * harness/render/render_validate.h:
 *
 *   field    the surface particles rasterised into the squared-distance
 *            field, bit for bit the reference's values rounded to float
 *            (every operation of render_ref.c in double, in its order and
 *            rounding, then one rounding to float); then what the
 *            raycaster reads: per voxel (gx, gy, gz, sqrt(value)) with the
 *            gradient of render_ref_gradient (in float), and the 8^3-brick
 *            occupancy of render_raycast.c;
 *   raycast  one ray per pixel in float: render_ref_raycast's camera,
 *            samples, trilinear interpolation, transfer function, Phong,
 *            front-to-back compositing, early termination and brick
 *            skipping; the image within RENDER_VALIDATE_PSNR_DB of the
 *            reference's.
 *
 * A context holds the field of one box at one resolution, the buffer of
 * surface positions it is rasterised from, and the image of one camera,
 * all on the device. Each stage call queues its kernels on the context's
 * own stream between two CUDA events and waits for them: render_gpu_times
 * gives the GPU time of the last call of each.
 *
 * Errors: -1 with one line from render_gpu_error. A refused argument
 * changes nothing; a failed CUDA call loses the context's state, and
 * every later call returns -1.
 */
struct render_gpu;

struct render_gpu_times {
	double field_s, raycast_s;	/* the last render_gpu_field, render_gpu_raycast */
};

/*
 * Allocates the field over lo .. hi at rp->res (shaped as render_ref_field
 * shapes it), room for max_surface surface positions, and the image of
 * camera c (NULL: a field only, and render_gpu_raycast refuses). rp and c
 * are copied. Returns 0 and *r, or -1 with one line in err and *r NULL,
 * nothing left allocated: for what render_ref_field refuses (res outside
 * 2 .. 4096, an empty or non-finite box), with a camera for what
 * render_ref_raycast refuses (no pixels or more than 16384 on a side, a
 * degenerate view, an axis of fewer than 2 voxels, samples_per_unit or
 * band not positive), for max_surface above INT_MAX or a rasterised box
 * (radius rp->r) of more than INT_MAX voxels, and for CUDA failures
 * (no device, no memory).
 */
/* Device bytes a voxel of the field takes: its value (a float) and the
 * raycaster's (gradient, distance) (a float4). */
#define RENDER_GPU_BYTES_PER_VOXEL 20

int render_gpu_create(struct render_gpu **r, const struct render_params *rp, const double lo[3],
		      const double hi[3], const struct render_camera *c, size_t max_surface,
		      char *err, size_t errlen);

/* The device buffer of max_surface float4 (x, y, z, unused) that a
 * producer fills with surface positions for render_gpu_field; its writes
 * must be finished (its stream synchronised) before that call, which
 * runs on the context's own stream. */
void *render_gpu_surface_buffer(struct render_gpu *r);

/* Copies m host positions pos4[4m] (x, y, z, unused) into that buffer.
 * 0, or -1 (m above max_surface, a CUDA failure). */
int render_gpu_upload_surface(struct render_gpu *r, const float *pos4, size_t m);

/*
 * The distance-field stage, timed as one: resets the field to the maximum,
 * rasterises the first m positions of the surface buffer, then computes
 * the per-voxel data and brick occupancy the raycaster reads. Returns 0,
 * or -1: m above max_surface, a CUDA failure, or a position that is not
 * finite (render_ref_field refuses those; here the field is then made of
 * the others, and the error names the first).
 */
int render_gpu_field(struct render_gpu *r, size_t m);

/* The rendering stage (the field not included): one ray per pixel through
 * the last field into the device image. 0, or -1 (no camera, a CUDA
 * failure). */
int render_gpu_raycast(struct render_gpu *r);

/* The field's values[render_gpu_voxels], render_field's order. 0 or -1. */
int render_gpu_read_field(struct render_gpu *r, float *values);

/* The image rgb[3 width height], row 0 the top, each channel in [0, 1], as
 * render_ref_raycast writes it. 0 or -1 (no camera, a CUDA failure). */
int render_gpu_read_image(struct render_gpu *r, float *rgb);

/* Each pixel's opacity[width height] in the last image (the alpha its
 * ray accumulated, as render_ref_raycast_ex's opacity), row 0 the top.
 * 0 or -1 (no camera, a CUDA failure). */
int render_gpu_read_opacity(struct render_gpu *r, float *opacity);

/* Voxels of the field. */
size_t render_gpu_voxels(const struct render_gpu *r);

/* Voxels below the maximum after the last field, counted by an untimed
 * kernel. 0 or -1. */
int render_gpu_voxels_set(struct render_gpu *r, size_t *count);

void render_gpu_times(const struct render_gpu *r, struct render_gpu_times *t);

/* Device bytes the context holds. */
size_t render_gpu_bytes(const struct render_gpu *r);

/* The last error's line ("" when there was none). */
const char *render_gpu_error(const struct render_gpu *r);

/* Frees everything (r may be NULL). */
void render_gpu_destroy(struct render_gpu *r);

/* Tests only (tests/render/test_gpu_render.c): what every later field does
 * differently. */
enum render_gpu_test {
	RENDER_GPU_TEST_OFF,
	RENDER_GPU_TEST_SHORT_BOX,	/* a planted bug: each box one voxel short at +x */
	RENDER_GPU_TEST_NO_SKIP,	/* every brick occupied: the image must not change */
};
void render_gpu_test_mode(struct render_gpu *r, enum render_gpu_test mode);

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_RENDER_GPU_H */
