/* test_gpu_sph_checkpoint.c - a GPU variant's sph physics restarted from a checkpoint ends bit for bit where an unbroken run does */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "../gpu_require.h"
#include "checkpoint_run.h"
#include "../file_read.h"

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

/* sph render on the GPU cut after its second frame and restarted: the
 * frames after it are the unbroken run's, byte for byte. */
Test(gpu_sph_checkpoint, a_gpu_render_restarted_draws_the_unbroken_runs_frames, .timeout = 300)
{
	require_gpu();
	char dir[64], line[1024], e[8192];
	tmp_dir_make(dir, "gpu-ck-render");
#define GPU_RENDER "sph render -v sph-gpu-verlet --column 6x6x7@4 --at 0,60,120 --width 96 " \
		   "--height 54 -q"
	snprintf(line, sizeof line, "%s " GPU_RENDER " --out %s/a --checkpoint %s/a.ck",
		 cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	snprintf(line, sizeof line, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=1:TERM %s "
		 GPU_RENDER " --out %s/b --checkpoint %s/b.ck", cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 128 + SIGTERM, "%s", e);
	snprintf(line, sizeof line, "%s " GPU_RENDER " --out %s/b --restart %s/b.ck",
		 cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	static const char *const steps[] = { "0", "60", "120" };
	ck_frames_match(dir, "sph-gpu-verlet", "6x6x7@4", steps, 3);
	tmp_dir_remove(dir);
}
