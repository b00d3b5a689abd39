/* render_gpu_stub.c - the GPU rendering stages in a build without nvcc: nothing is created, every call fails */
#include <stdio.h>
#include <string.h>

#include "../../kernels/render/render_gpu.h"

static const char render_gpu_stub_reason[] = "built without CUDA (no nvcc at build time)";

int render_gpu_create(struct render_gpu **r, const struct render_params *rp, const double lo[3],
		      const double hi[3], const struct render_camera *c, size_t max_surface,
		      char *err, size_t errlen)
{
	(void)rp, (void)lo, (void)hi, (void)c, (void)max_surface;
	*r = NULL;
	snprintf(err, errlen, "%s", render_gpu_stub_reason);
	return -1;
}

void *render_gpu_surface_buffer(struct render_gpu *r)
{
	(void)r;
	return NULL;
}

int render_gpu_upload_surface(struct render_gpu *r, const float *pos4, size_t m)
{
	(void)r, (void)pos4, (void)m;
	return -1;
}

int render_gpu_field(struct render_gpu *r, size_t m)
{
	(void)r, (void)m;
	return -1;
}

int render_gpu_raycast(struct render_gpu *r)
{
	(void)r;
	return -1;
}

int render_gpu_read_field(struct render_gpu *r, float *values)
{
	(void)r, (void)values;
	return -1;
}

int render_gpu_read_image(struct render_gpu *r, float *rgb)
{
	(void)r, (void)rgb;
	return -1;
}

int render_gpu_read_opacity(struct render_gpu *r, float *opacity)
{
	(void)r, (void)opacity;
	return -1;
}

size_t render_gpu_voxels(const struct render_gpu *r)
{
	(void)r;
	return 0;
}

int render_gpu_voxels_set(struct render_gpu *r, size_t *count)
{
	(void)r, (void)count;
	return -1;
}

void render_gpu_times(const struct render_gpu *r, struct render_gpu_times *t)
{
	(void)r;
	memset(t, 0, sizeof *t);
}

size_t render_gpu_bytes(const struct render_gpu *r)
{
	(void)r;
	return 0;
}

const char *render_gpu_error(const struct render_gpu *r)
{
	(void)r;
	return render_gpu_stub_reason;
}

void render_gpu_destroy(struct render_gpu *r)
{
	(void)r;
}

void render_gpu_test_mode(struct render_gpu *r, enum render_gpu_test mode)
{
	(void)r, (void)mode;
}
