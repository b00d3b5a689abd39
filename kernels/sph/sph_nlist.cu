/* sph_nlist.cu - STUB: sph-gpu-nlist and sph-gpu-verlet refuse to run in this tree */
/*
 * Variants (kernels/sph/sph_gpu.h): sph-gpu-nlist, sph-gpu-verlet. The
 * real file is being written in another tree; this stub only lets the
 * registry (variants/sph.def) link here. create() refuses with one line,
 * so every test of these two variants fails at create until the real
 * file replaces this one.
 */
#include "sph_gpu.h"

#include <cstdio>

/* create(): refused, no context. */
static int sph_nlist_stub_create(void **ctx, const struct sph_input *in,
				 const struct sph_params *p, char *err, size_t errlen)
{
	(void)in;
	(void)p;
	*ctx = NULL;
	snprintf(err, errlen, "sph-gpu-nlist, sph-gpu-verlet: not in this tree (a stub)");
	return -1;
}

extern "C" const struct sph_ops sph_gpu_nlist_ops = { sph_nlist_stub_create, NULL, NULL, NULL,
						      NULL, NULL, NULL };
extern "C" const struct sph_ops sph_gpu_verlet_ops = { sph_nlist_stub_create, NULL, NULL, NULL,
						       NULL, NULL, NULL };
