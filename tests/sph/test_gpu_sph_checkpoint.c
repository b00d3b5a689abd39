/* test_gpu_sph_checkpoint.c - a GPU variant's sph physics restarted from a checkpoint ends bit for bit where an unbroken run does */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "../gpu_require.h"
#include "checkpoint_run.h"

/*
 * The GPU variants keep their particles in the order of their last sort
 * and the Verlet lists of their last rebuild; sph physics makes the
 * variant again from the particles at every look, so a restart from any
 * look's checkpoint goes on as the unbroken run did. Cut in the second
 * leak column, after the first is finished.
 */
Test(gpu_sph_checkpoint, sph_gpu_verlet_restarted_ends_where_an_unbroken_run_does, .timeout = 300)
{
	require_gpu();
	char dir[64];
	tmp_dir_make(dir, "gpu-ck");
	ck_restart_matches(dir, "-v sph-gpu-verlet --check leak --leak-columns 6x6x7@4,8x4x8@4 "
			   "--checkpoint-every 2000", 5);
	tmp_dir_remove(dir);
}

Test(gpu_sph_checkpoint, sph_gpu_zindex_blocks_restarted_in_water_at_rest_ends_as_unbroken,
     .timeout = 300)
{
	require_gpu();
	char dir[64];
	tmp_dir_make(dir, "gpu-ck-rest");
	ck_restart_matches(dir, "-v sph-gpu-zindex-blocks --check rest --rest-column 6x6x6@0 "
			   "--checkpoint-every 400", 2);
	tmp_dir_remove(dir);
}
