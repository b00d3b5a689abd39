/* test_gpu_dist.c - the GPU distributed variants on two and four GPUs under mpirun, and their failures */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../harness/nbody/dist_gpu.h"
#include "../../harness/core/gpu_device.h"
#include "../../harness/core/json_in.h"
#include "mpi_run.h"

/* Skips unless `count` GPUs, NCCL and mpirun are here. */
static void need_gpus(int count)
{
	const char *why = dist_gpu_unavailable_reason();
	if (!why)
		why = gpu_unavailable_reason();
	if (why)
		cr_skip_test("no GPU ranks here: %s", why);
	if (gpu_device_count() < count)
		cr_skip_test("%d GPU%s here: this test needs %d GPUs", gpu_device_count(),
			     gpu_device_count() > 1 ? "s" : "", count);
	need_mpirun();
}

static void need_two_gpus(void)
{
	need_gpus(2);
}

/* Every size the one-GPU variants are tested at, uneven and prime ones
 * included, validated on rank 0 and equal to auto on one GPU. */
Test(gpu_dist, two_gpus_validate, .timeout = 300)
{
	char err[4096];
	need_two_gpus();
	cr_expect_eq(mpi_harness(2, NULL,
				 "check --variant dist-allgather,dist-ring,dist-2d --n 1,31,1000,1024,4097,65536,1000003 --quiet",
				 err, sizeof err),
		     0, "%s", err);
}

Test(gpu_dist, two_gpus_time_forces_and_steps, .timeout = 300)
{
	char err[4096];
	need_two_gpus();
	cr_expect_eq(mpi_harness(2, NULL,
				 "run --variant dist-allgather,dist-ring,dist-2d --n 4097,65536 --min-time 0 "
				 "--max-time 0.2 --quiet --out /tmp/test_gpu_dist_forces.csv",
				 err, sizeof err),
		     0, "%s", err);
	cr_expect_eq(mpi_harness(2, NULL,
				 "run --steps --variant dist-allgather,dist-ring,dist-2d --n 4097 --min-time 0 "
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
	const char *variants[] = { "dist-allgather", "dist-ring", "dist-2d" };
	for (int k = 0; k < 3; k++) {
		char args[256];
		snprintf(args, sizeof args, "check --variant %s --n 4097", variants[k]);
		/* rank 0 of 2 owns bodies 0..2048 */
		cr_expect_eq(mpi_harness(2, "HARNESS_DIST_FAULT=0:skip-last", args, err, sizeof err), 1);
		cr_expect(strstr(err, "FAILED validation") && strstr(err, "at body 2048"), "%s", err);
	}
}

/* Four GPUs: dist-2d as a 2 x 2 grid, the ring with three transfers, at
 * the sizes the one-GPU variants are tested at; then timed, forces and
 * steps. */
Test(gpu_dist, four_gpus_validate_and_time, .timeout = 600)
{
	char err[4096];
	need_gpus(4);
	cr_expect_eq(mpi_harness(4, NULL,
				 "check --variant dist-allgather,dist-ring,dist-2d --n 1,31,1000,4097,65536,1000003 --quiet",
				 err, sizeof err),
		     0, "%s", err);
	cr_expect_eq(mpi_harness(4, NULL,
				 "run --variant dist-allgather,dist-ring,dist-2d --n 65536 --min-time 0 "
				 "--max-time 0.2 --quiet --out /tmp/test_gpu_dist4.csv",
				 err, sizeof err),
		     0, "%s", err);
	cr_expect_eq(mpi_harness(4, NULL,
				 "run --steps --variant dist-2d --n 4097 --min-time 0 --max-time 0.2 --quiet "
				 "--out /tmp/test_gpu_dist4s.csv",
				 err, sizeof err),
		     0, "%s", err);
	remove("/tmp/test_gpu_dist4.csv");
	remove("/tmp/test_gpu_dist4.meta.json");
	remove("/tmp/test_gpu_dist4s.csv");
	remove("/tmp/test_gpu_dist4s.meta.json");
}

/* A block altered in one byte, or lost, by the exchange on the GPUs: the
 * owners' checksums catch it for every scheme (on four GPUs where there
 * are, so that the ring has more blocks than buffers). */
Test(gpu_dist, a_block_altered_or_lost_in_flight_is_caught, .timeout = 300)
{
	char err[4096];
	need_two_gpus();
	int ranks = gpu_device_count() >= 4 ? 4 : 2;
	const char *variants[] = { "dist-allgather", "dist-ring", "dist-2d" };
	const char *faults[] = { "HARNESS_DIST_FAULT=1:corrupt", "HARNESS_DIST_FAULT=1:lost" };
	for (size_t v = 0; v < 3; v++)
		for (size_t f = 0; f < 2; f++) {
			char args[256];
			snprintf(args, sizeof args, "check --variant %s --n 4097", variants[v]);
			cr_expect_eq(mpi_harness(ranks, faults[f], args, err, sizeof err), 1, "%s %s: %s",
				     variants[v], faults[f], err);
			cr_expect(strstr(err, "the exchange delivered rank"), "%s %s on %d GPUs: %s",
				  variants[v], faults[f], ranks, err);
		}
}

/* More ranks on a host than it has GPUs: refused before NCCL is asked,
 * in one line that says why and what to do. */
Test(gpu_dist, ranks_that_would_share_a_gpu_are_refused, .timeout = 120)
{
	char err[4096];
	const char *why = dist_gpu_unavailable_reason();
	if (!why)
		why = gpu_unavailable_reason();
	if (why)
		cr_skip_test("no GPU ranks here: %s", why);
	need_mpirun();
	int ranks = gpu_device_count() + 1;
	cr_expect_eq(mpi_harness(ranks, NULL, "check --variant dist-allgather --n 100", err, sizeof err), 2,
		     "%s", err);
	cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
	cr_expect(strstr(err, "would share") && strstr(err, "at most"), "%s", err);
}

/* --gpu on a host of several GPUs: the index is the CUDA runtime's, and the
 * sidecar names the GPU it chose by the UUID that CUDA_VISIBLE_DEVICES
 * takes, so that a run with that GPU alone visible records the same one
 * (the NVML clocks follow its PCI bus id). */
Test(gpu_dist, gpu_index_and_uuid_name_the_same_gpu, .timeout = 120)
{
	if (gpu_unavailable_reason())
		cr_skip_test("no GPU here: %s", gpu_unavailable_reason());
	if (gpu_device_count() < 2)
		cr_skip_test("1 GPU here: this test needs 2 GPUs");
	struct gpu_device_info g;
	cr_assert_eq(gpu_device_query(1, &g), 0);
	char cmd[1024], err[4096], side[64];
	struct json_in_value v;
	const char *env[2] = { "", NULL };
	char only[128];
	snprintf(only, sizeof only, "CUDA_VISIBLE_DEVICES=%s", g.uuid);
	env[1] = only;
	for (int k = 0; k < 2; k++) {
		snprintf(side, sizeof side, "/tmp/test_gpu_select_%d.csv", k);
		snprintf(cmd, sizeof cmd, "%s %s run %s --variant auto --n 1024 --min-time 0 "
			 "--max-time 0.05 --quiet --out %s", env[k], cli_harness_bin(),
			 k == 0 ? "--gpu 1" : "", side);
		cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s: %s", cmd, err);
		snprintf(side, sizeof side, "/tmp/test_gpu_select_%d.meta.json", k);
		cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
		const struct json_in_value *sel = json_in_member(&v, "gpu_selection");
		cr_expect_eq(json_in_member(sel, "index")->number, k == 0 ? 1 : 0);
		cr_expect_str_eq(json_in_member(sel, "uuid")->string, g.uuid);
		cr_expect_str_eq(json_in_member(sel, "pci_bus_id")->string, g.pci_bus_id);
		json_in_free(&v);
		remove(side);
		snprintf(side, sizeof side, "/tmp/test_gpu_select_%d.csv", k);
		remove(side);
	}
}
