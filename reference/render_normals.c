/* render_normals.c - normals smooth at the particle spacing for the reference raycaster: the normals' stage */
#include "render_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *render_normals_name(int normals)
{
	switch (normals) {
	case RENDER_NORMALS_FIELD: return "field";
	case RENDER_NORMALS_KERNEL: return "kernel";
	default: return NULL;
	}
}

int render_normals_of(const char *name)
{
	for (int v = RENDER_NORMALS_FIELD; v <= RENDER_NORMALS_KERNEL; v++)
		if (strcmp(name, render_normals_name(v)) == 0)
			return v;
	return -1;
}

static size_t normals_voxels(const struct render_field *f)
{
	return (size_t)f->dim[0] * f->dim[1] * f->dim[2];
}

/* The stride of axis a in value's order. */
static size_t normals_stride(const int dim[3], int a)
{
	return a == 0 ? 1 : a == 1 ? (size_t)dim[0] : (size_t)dim[0] * dim[1];
}

/* The index of the first voxel of line (p, q) along axis a: p and q the
 * coordinates on the other two axes, in order. */
static size_t normals_line(const int dim[3], int a, int p, int q)
{
	const int o1 = a == 0 ? 1 : 0, o2 = a == 2 ? 1 : 2;

	return (size_t)p * normals_stride(dim, o1) + (size_t)q * normals_stride(dim, o2);
}

/* need[v] = 1 for every voxel within reach voxels (on each axis) of one
 * whose value is below the maximum: separable, axis by axis. */
static void normals_need(const struct render_field *f, int reach, unsigned char *need,
			 unsigned char *line)
{
	const size_t n = normals_voxels(f);

	for (size_t v = 0; v < n; v++)
		need[v] = f->value[v] < f->max;
	for (int axis = 0; axis < 3; axis++) {
		const size_t stride = normals_stride(f->dim, axis);
		const int len = f->dim[axis], o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;

		for (int q = 0; q < f->dim[o2]; q++)
			for (int p = 0; p < f->dim[o1]; p++) {
				const size_t base = normals_line(f->dim, axis, p, q);
				int last = -reach - 1;	/* the last set voxel seen */

				for (int i = 0; i < len; i++)
					line[i] = need[base + (size_t)i * stride];
				for (int i = 0; i < len; i++) {
					int set = 0;

					if (line[i])
						last = i;
					set = i - last <= reach;
					for (int t = 1; !set && t <= reach && i + t < len; t++)
						set = line[i + t];
					need[base + (size_t)i * stride] = (unsigned char)set;
				}
			}
	}
}

/* 945 / (32 pi R^9): -grad W_poly6(r, R) = this (R^2 - r^2)^2 r. */
static double normals_poly6_grad(double R)
{
	const double R2 = R * R;

	return 945.0 / (32.0 * SPH_REF_PI * R2 * R2 * R2 * R2 * R);
}

/*
 * KERNEL (see render_ref.h): per voxel c, the water's smoothed indicator
 * sum_j W_poly6(|c - x_j|^2, R) / sph_ref_lattice_sum(d, R) and minus its
 * gradient, over the fluid particles x_j, R = rp->smooth. Only where a
 * sample can read it: within a voxel of one below the maximum (a sample's
 * eight voxels); 0 elsewhere. Each particle adds to the voxels within R
 * of it, in the particles' order.
 */
static int normals_kernel(const struct render_params *rp, const struct sph_params *p,
			  const double *x, size_t n, struct render_field *f)
{
	const size_t nvox = normals_voxels(f);
	const double R = rp->smooth, R2 = R * R, rest = sph_ref_lattice_sum(p->spacing, R);
	const double gk = normals_poly6_grad(R);
	int longest = f->dim[0] > f->dim[1] ? f->dim[0] : f->dim[1];
	longest = longest > f->dim[2] ? longest : f->dim[2];
	unsigned char *need = malloc(nvox), *line = malloc(longest);
	int rc = -1;

	if (!need || !line)
		goto out;
	normals_need(f, 1, need, line);
	for (size_t q = 0; q < n; q++) {
		const double *xj = &x[3 * q];
		int a[3], b[3];

		if (!isfinite(xj[0]) || !isfinite(xj[1]) || !isfinite(xj[2]))
			goto out;
		for (int k = 0; k < 3; k++) {
			const double u = fmax(ceil((xj[k] - R - f->lo[k]) / f->voxel), 0.0);
			const double w = fmin(floor((xj[k] + R - f->lo[k]) / f->voxel), f->dim[k] - 1.0);

			if (u > w)
				goto next;
			a[k] = (int)u;
			b[k] = (int)w;
		}
		for (int k = a[2]; k <= b[2]; k++)
			for (int j = a[1]; j <= b[1]; j++)
				for (int i = a[0]; i <= b[0]; i++) {
					const size_t v = ((size_t)k * f->dim[1] + j) * f->dim[0] + i;
					const double r[3] = { f->lo[0] + i * f->voxel - xj[0],
							      f->lo[1] + j * f->voxel - xj[1],
							      f->lo[2] + k * f->voxel - xj[2] };
					const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
					double *out = &f->smooth[RENDER_NORMALS_PER_VOXEL * v];

					if (!need[v] || !(r2 < R2))
						continue;
					out[0] += sph_ref_poly6(r2, R);
					for (int c = 0; c < 3; c++)
						out[1 + c] += gk * (R2 - r2) * (R2 - r2) * r[c];
				}
next:;
	}
	for (size_t v = 0; v < RENDER_NORMALS_PER_VOXEL * nvox; v++)
		f->smooth[v] /= rest;
	rc = 0;
out:
	free(need);
	free(line);
	return rc;
}

int render_ref_normals(const struct render_params *rp, const struct sph_params *p,
		       const double *x, size_t n, struct render_field *f)
{
	int rc = -1;

	free(f->smooth);
	f->smooth = NULL;
	if (rp->normals == RENDER_NORMALS_FIELD)
		return 0;
	if (!render_normals_name(rp->normals) || !(rp->smooth > 0.0) || !isfinite(rp->smooth) ||
	    !f->value)
		return -1;
	f->smooth = calloc(RENDER_NORMALS_PER_VOXEL * normals_voxels(f), sizeof *f->smooth);
	if (!f->smooth)
		return -1;
	switch (rp->normals) {
	case RENDER_NORMALS_KERNEL: rc = normals_kernel(rp, p, x, n, f); break;
	}
	if (rc != 0) {
		free(f->smooth);
		f->smooth = NULL;
	}
	return rc;
}
