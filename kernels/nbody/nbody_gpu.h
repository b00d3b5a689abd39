/* nbody_gpu.h - the GPU N-body force kernels behind a plain C API */
#ifndef NBODY_GPU_H
#define NBODY_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device arrays hold n bodies followed by zero-mass padding up to a
 * multiple of NBODY_GPU_PAD, so any tile of any variant (up to 1024
 * threads x 8 bodies) stays inside the allocation. Padding bodies sit at
 * the origin with mass 0: with eps^2 > 0 they contribute exactly 0. */
#define NBODY_GPU_PAD 8192

/* What a launcher needs. pos and acc point to float4 (fp32 variants) or
 * double4 (fp64 variants) arrays of n_alloc elements on the device. */
struct nbody_gpu_launch {
	const void *pos;     /* (x, y, z, m): the bodies that pull (j) */
	void *acc;           /* (ax, ay, az, 0) written for the first n bodies (and maybe padding) */
	void *partial;       /* scratch for j-split variants: max_split x n_alloc elements */
	int max_split;       /* j-slices partial has room for, 1..NBODY_GPU_MAX_SPLIT */
	unsigned *counters;  /* scratch for j-split variants: n_alloc / 32 zeroed counters */
	void *sort_scratch;  /* scratch for the variants that sort the bodies first (tc-*):
			      * nbody_gpu_sort_scratch_bytes(n_alloc) bytes, or NULL */
	int n;               /* real bodies, >= 1 */
	int n_alloc;         /* allocated elements, a multiple of NBODY_GPU_PAD */
	double eps2;         /* softening squared, > 0 */
	int sm_count;        /* multiprocessors of the device */
	void *stream;        /* cudaStream_t to launch on */
	/* Part of the problem (the ranks of the distributed variants): with
	 * pos_i set, the accelerations of the n_i bodies at pos_i (n_i may be
	 * 0) under the pull of the n bodies at pos, into acc (n_alloc, which
	 * also sizes partial); pos_i must be readable up to the next multiple
	 * of NBODY_GPU_PAD. accumulate adds them to acc instead. Only auto
	 * and the kbody family (kbody-*, jsplit-*, fp64-*) read these; NULL,
	 * 0, 0 is the whole problem. The tc family refuses pos_i (it sorts all
	 * the bodies it works on); auto never hands it a part. */
	const void *pos_i;
	int n_i;
	int accumulate;
};

/* Most j-slices a j-split launch uses. */
#define NBODY_GPU_MAX_SPLIT 64

/* Computes all accelerations once. Returns 0, or a cudaError_t value when
 * the launch failed. */
typedef int (*nbody_gpu_fn)(const struct nbody_gpu_launch *l);

/* The launcher of registry entry index (enum nbody_variant_id), or NULL
 * when that entry is not a GPU variant. */
nbody_gpu_fn nbody_gpu_launcher(int index);

/* Bytes of sort_scratch the tc variants need for n_alloc bodies (the
 * Morton keys, the order, the sorted copy and the radix sort's own
 * scratch); 0 when the query fails. Needs a CUDA device. */
size_t nbody_gpu_sort_scratch_bytes(int n_alloc);

/* The tensor-core force evaluation (kernels/nbody/nbody_tc.cu) on warps
 * of group bodies (16, 32 or 64) sharing one centre, split_d and split_w
 * saying whether r^2 + eps^2 and the weights are split into TF32 high and
 * low parts (both: 16, 32 or 64; otherwise 32 only): what the tc-*
 * launchers call. Returns 0 or a cudaError_t value (cudaErrorInvalidValue
 * for pos_i set, no sort_scratch, another group or eps^2 < 1e-24). */
int nbody_tc_forces(const struct nbody_gpu_launch *l, int group, int split_d, int split_w);

/* Leapfrog halves on the device, for n bodies of the given precision
 * (double_prec: double4 arrays, else float4): v += a dt/2 then x += v dt,
 * and v += a dt/2. Return 0 or a cudaError_t value. */
int nbody_gpu_kick_drift(void *pos, void *vel, const void *acc, int n, double dt,
			 int double_prec, void *stream);
int nbody_gpu_kick(void *vel, const void *acc, int n, double dt, int double_prec, void *stream);

#ifdef __cplusplus
}
#endif

#endif
