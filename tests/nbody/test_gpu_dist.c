/* test_gpu_dist.c - dist-allgather and dist-ring on two GPUs under mpirun, and their failures */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../harness/nbody/dist_gpu.h"
#include "../../harness/gpu_device.h"
#include "mpi_run.h"

/* Skips unless two GPUs, NCCL and mpirun are here. */
static void need_two_gpus(void)
{
	const char *why = dist_gpu_unavailable_reason();
	if (!why)
		why = gpu_unavailable_reason();
	if (why)
		cr_skip_test("no GPU ranks here: %s", why);
	if (gpu_device_count() < 2)
		cr_skip_test("one GPU here: the two-rank GPU tests need two");
	need_mpirun();
}

/* Every size the one-GPU variants are tested at, uneven and prime ones
 * included, validated on rank 0 and equal to auto on one GPU. */
Test(gpu_dist, two_gpus_validate, .timeout = 300)
{
	char err[4096];
	need_two_gpus();
	cr_expect_eq(mpi_harness(2, NULL,
				 "check --variant dist-allgather,dist-ring --n 1,31,1000,1024,4097,65536,1000003 --quiet",
				 err, sizeof err),
		     0, "%s", err);
}

Test(gpu_dist, two_gpus_time_forces_and_steps, .timeout = 300)
{
	char err[4096];
	need_two_gpus();
	cr_expect_eq(mpi_harness(2, NULL,
				 "run --variant dist-allgather,dist-ring --n 4097,65536 --min-time 0 "
				 "--max-time 0.2 --quiet --out /tmp/test_gpu_dist_forces.csv",
				 err, sizeof err),
		     0, "%s", err);
	cr_expect_eq(mpi_harness(2, NULL,
				 "run --steps --variant dist-allgather,dist-ring --n 4097 --min-time 0 "
				 "--max-time 0.2 --quiet --out /tmp/test_gpu_dist_steps.csv",
				 err, sizeof err),
		     0, "%s", err);
	remove("/tmp/test_gpu_dist_forces.csv");
	remove("/tmp/test_gpu_dist_forces.meta.json");
	remove("/tmp/test_gpu_dist_steps.csv");
	remove("/tmp/test_gpu_dist_steps.meta.json");
}

/* Rank 1's cudaMalloc fails: every rank ends, one line, no file. */
Test(gpu_dist, failed_gpu_allocation_ends_every_rank, .timeout = 120)
{
	char err[4096];
	need_two_gpus();
	remove("/tmp/test_gpu_dist_fail.csv");
	cr_expect_eq(mpi_harness(2, "HARNESS_DIST_FAULT=1:alloc",
				 "run --variant dist-ring --n 4097 --out /tmp/test_gpu_dist_fail.csv", err,
				 sizeof err),
		     1);
	cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
	cr_expect(strstr(err, "rank 1 of 2") && strstr(err, "cudaMalloc"), "%s", err);
	FILE *fp = fopen("/tmp/test_gpu_dist_fail.csv", "r");
	cr_expect_null(fp, "a failed run leaves no results file");
	if (fp)
		fclose(fp);
}

Test(gpu_dist, planted_skipped_body_is_caught, .timeout = 120)
{
	char err[4096];
	need_two_gpus();
	const char *variants[] = { "dist-allgather", "dist-ring" };
	for (int k = 0; k < 2; k++) {
		char args[256];
		snprintf(args, sizeof args, "check --variant %s --n 4097", variants[k]);
		/* rank 0 of 2 owns bodies 0..2048 */
		cr_expect_eq(mpi_harness(2, "HARNESS_DIST_FAULT=0:skip-last", args, err, sizeof err), 1);
		cr_expect(strstr(err, "FAILED validation") && strstr(err, "at body 2048"), "%s", err);
	}
}
