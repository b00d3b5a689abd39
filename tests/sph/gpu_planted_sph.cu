/* gpu_planted_sph.cu - the GPU SPH methods with planted bugs the tests must catch */
/*
 * The method files are included with SPH_GPU_PLANTED defined, which
 * leaves their own ops out; their planted instantiations are made here,
 * in the GPU test program only, so the harness's objects hold none of
 * them. What each plant is, is defined beside the method it breaks:
 *
 *   sph_planted_grid_radix_ops           the cell at +x left out of the 27
 *   sph_planted_grid_count_ops           the cell at +y left out
 *   sph_planted_zindex_cells_ops         the cell at -z left out
 *   sph_planted_zindex_blocks_skip_ops   the neighbouring block at -x left out
 *   sph_planted_zindex_blocks_race_ops   no barrier between the shared-memory
 *                                        copy of a tile and its reads
 *   sph_planted_grid_buckets_ops         the cell at +z left out
 *   sph_planted_brute_ops                the first tile of 256 left out
 *   sph_planted_nlist_ops                the cell at +x left out of the list pass
 *   sph_planted_verlet_ops               the cell at +x left out of the list rebuild
 *   sph_planted_verlet_fine_ops          each row of the pruned walk one cell short at +x
 */
#define SPH_GPU_PLANTED 1
#include "../../kernels/sph/sph_grid.cu"
#include "../../kernels/sph/sph_blocks.cu"
#include "../../kernels/sph/sph_nlist.cu"

extern "C" const struct sph_ops sph_planted_grid_radix_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_RADIX, true>));
extern "C" const struct sph_ops sph_planted_grid_count_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_COUNT, true>));
extern "C" const struct sph_ops sph_planted_zindex_cells_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_ZINDEX, true>));
extern "C" const struct sph_ops sph_planted_zindex_blocks_skip_ops =
	SPH_GPU_OPS(sph_zblocks_create<SPH_BLOCKS_PLANT_SKIP>);
extern "C" const struct sph_ops sph_planted_zindex_blocks_race_ops =
	SPH_GPU_OPS(sph_zblocks_create<SPH_BLOCKS_PLANT_RACE>);
extern "C" const struct sph_ops sph_planted_grid_buckets_ops =
	SPH_GPU_OPS(sph_buckets_create<SPH_BLOCKS_PLANT_SKIP>);
extern "C" const struct sph_ops sph_planted_brute_ops =
	SPH_GPU_OPS(sph_brute_create<SPH_BLOCKS_PLANT_SKIP>);

SPH_NLIST_METHOD(sph_planted_nlist, "sph-gpu-nlist (planted: cell +x left out)", SPH_NLIST_LISTS)
SPH_NLIST_METHOD(sph_planted_verlet, "sph-gpu-verlet (planted: cell +x left out)", SPH_NLIST_VERLET)
SPH_NLIST_METHOD(sph_planted_verlet_fine, "sph-gpu-verlet-fine (planted: rows one cell short at +x)",
		 SPH_NLIST_VERLET_FINE)
extern "C" const struct sph_ops sph_planted_nlist_ops = SPH_GPU_OPS(sph_planted_nlist_create);
extern "C" const struct sph_ops sph_planted_verlet_ops = SPH_GPU_OPS(sph_planted_verlet_create);
extern "C" const struct sph_ops sph_planted_verlet_fine_ops =
	SPH_GPU_OPS(sph_planted_verlet_fine_create);
