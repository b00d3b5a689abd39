/* nbody_tc.cu - the all-pairs force on the tensor cores: r^2 + eps^2 and the force sums as 3xTF32 matrix products
 *
 * Variants (variants/nbody.def, family tensor-core):
 *   tc-3x-p16   a warp per 16 Morton-sorted bodies (one m16n8k8 tile of rows)
 *   tc-3x-p32   a warp per 32 bodies: two tiles share the centre and the
 *               j side's fragments (half the j-side work per interaction)
 *   tc-3x-p64   a warp per 64 bodies, four tiles
 *   tc-1xd-p32, tc-1xw-p32, tc-1x-p32
 *               tc-3x-p32 with r^2 + eps^2, the weights or both as one
 *               plain TF32 product instead of the split: faster, and
 *               accurate to TF32's unit roundoff (2^-11) per term, not
 *               FP32's (precision tf32, validated against that bound)
 * (p: bodies per warp; k: accumulator rows a thread holds, 2 per tile.)
 *
 * Each evaluation first sorts the bodies along a Morton curve (bounding
 * box, 30-bit keys, CUB radix sort, gather) so that a warp's bodies are
 * close together, then computes, for a tile of 16 i-bodies against 8
 * j-bodies at a time, with x' = x - c (c the middle of the warp's
 * bodies, subtracted on both sides):
 *
 *   r^2 + eps^2 = |x'_i|^2 + (|x'_j|^2 + eps^2) - 2 x'_i . x'_j
 *
 * as a product over k = 16 (two mma.sync m16n8k8 TF32), each factor split
 * into a TF32 high part and a TF32 low part (hh + hl + lh: the 3xTF32
 * product, 22 bits and more); the weights D^(-3/2) on the accumulator
 * fragment (one rsqrt, two multiplies); and the sums
 * S_i = sum_j w_ij m_j (x'_j, 1) as two more products, W split the same
 * way and B2's low parts in its spare columns; a_i = S_xyz - x'_i S_m.
 *
 * The expansion cancels: its terms are of size |x'|^2 <= R^2 (R the
 * radius of the warp's bodies about c), so D carries an error of a few
 * u R^2 (u = 2^-24). A pair with D < R^2 / 16 (TC_NEAR) is therefore taken
 * out of the products and computed by the FP32 pair of the other variants
 * (pair_add), as is every self term; every remaining pair has a relative
 * error of D of at most a few times 16 u. Padding bodies (zero mass at the
 * origin, after the sorted ones) have B2 rows of zeros and finite
 * weights: they add exactly 0. eps^2 must be at least 1e-24, so that
 * D^(-3/2) stays finite. The kernel itself is in nbody_tc.cuh.
 */
#include "nbody_tc.cuh"

extern "C" size_t nbody_gpu_sort_scratch_bytes(int n_alloc)
{
	const size_t cub_bytes = tc_cub_bytes(n_alloc);
	struct tc_scratch s;
	return cub_bytes ? tc_scratch_carve(0, n_alloc, cub_bytes, &s) : 0;
}

extern "C" int nbody_tc_forces(const struct nbody_gpu_launch *l, int group, int split_d, int split_w)
{
	if (split_d && split_w) {
		switch (group) {
		case 16:
			return tc_launch<1, TC_SHIFT_BOTH>(l);
		case 32:
			return tc_launch<2, TC_SHIFT_BOTH>(l);
		case 64:
			return tc_launch<4, TC_SHIFT_BOTH>(l);
		}
	} else if (group == 32) {
		if (split_d)
			return tc_launch<2, TC_SHIFT_BOTH, TC_SPLIT_D>(l);
		if (split_w)
			return tc_launch<2, TC_SHIFT_BOTH, TC_SPLIT_W>(l);
		return tc_launch<2, TC_SHIFT_BOTH, TC_SPLIT_NONE>(l);
	}
	return (int)cudaErrorInvalidValue;
}
