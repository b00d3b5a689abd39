/* test_dist_mpirun.c - the distributed variants on 2 to 9 CPU ranks under mpirun, and their failures */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/core/csv_table.h"
#include "../../harness/core/json_in.h"
#include "../../harness/nbody/instance.h"
#include "../../kernels/nbody/nbody_cpu.h"
#include "../../variants/registry.h"
#include "mpi_run.h"

static void make_dir(char *templ)
{
	cr_assert_not_null(mkdtemp(templ), "mkdtemp: %s", strerror(errno));
}

/* Removes dir and the files in it (one level). */
static void remove_dir(const char *dir)
{
	char path[4096];
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* How many entries dir holds (no file may be left by a failed run). */
static int count_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* 2, 3 and 4 ranks (4: the 4-GPU run's decomposition, on CPU ranks):
 * N below, at and above P, uneven shares, ranks that own no body. */
Test(dist_mpirun, two_to_four_ranks_validate_uneven_n, .timeout = 180)
{
	char err[4096];
	need_mpirun();
	for (int ranks = 2; ranks <= 4; ranks++) {
		int rc = mpi_harness(ranks, NULL,
				     "check --variant 'dist-*-cpu' --n 1,2,3,1000,1024,4097 --quiet", err,
				     sizeof err);
		cr_expect_eq(rc, 0, "%d ranks: %s", ranks, err);
	}
}

/* A run on 3 ranks: one CSV and sidecar from rank 0 with the ranks'
 * columns, every rank in the sidecar. */
Test(dist_mpirun, run_writes_the_ranks_columns, .timeout = 120)
{
	char dir[] = "/tmp/test_dist_run.XXXXXX", args[1024], path[1200], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args,
		 "run --variant 'dist-*-cpu' --n 1000 --min-time 0 --max-time 0.05 --quiet --out %s/r.csv",
		 dir);
	cr_assert_eq(mpi_harness(3, NULL, args, err, sizeof err), 0, "%s", err);
	struct csv_table t;
	snprintf(path, sizeof path, "%s/r.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 3, "dist-allgather-cpu, dist-ring-cpu and dist-2d-cpu");
	for (size_t r = 0; r < t.nrows; r++) {
		double ranks, comm, single, bound, tmin, tmax;
		cr_assert_eq(csv_table_double(&t, r, "ranks", &ranks, err, sizeof err), 0, "%s", err);
		cr_assert_eq(csv_table_double(&t, r, "comm_time_s", &comm, err, sizeof err), 0);
		cr_assert_eq(csv_table_double(&t, r, "single_max_diff", &single, err, sizeof err), 0);
		cr_assert_eq(csv_table_double(&t, r, "single_diff_bound", &bound, err, sizeof err), 0);
		cr_assert_eq(csv_table_double(&t, r, "rank_time_min_s", &tmin, err, sizeof err), 0);
		cr_assert_eq(csv_table_double(&t, r, "rank_time_max_s", &tmax, err, sizeof err), 0);
		cr_expect_eq(ranks, 3);
		cr_expect_gt(comm, 0);
		cr_expect_leq(single, bound);
		cr_expect_leq(tmin, tmax);
		const char *devs = csv_table_cell(&t, r, (size_t)csv_table_col(&t, "rank_devices"));
		int bars = 0;
		for (const char *c = devs; *c; c++)
			bars += *c == '|';
		cr_expect_eq(bars, 2, "three devices: %s", devs);
	}
	csv_table_free(&t);
	snprintf(path, sizeof path, "grep -c '\"rank\":' %s/r.meta.json | grep -qx 3", dir);
	cr_expect_eq(system(path), 0, "the sidecar lists the 3 ranks");
	remove_dir(dir);
}

Test(dist_mpirun, steps_on_three_ranks, .timeout = 120)
{
	char err[4096];
	need_mpirun();
	cr_expect_eq(mpi_harness(3, NULL,
				 "run --steps --variant dist-ring-cpu,dist-allgather-cpu --n 1000 "
				 "--min-time 0 --max-time 0.05 --quiet --out /dev/null/x.csv",
				 err, sizeof err),
		     2, "an unwritable --out is refused before anything runs: %s", err);
	char dir[] = "/tmp/test_dist_steps.XXXXXX", args[1024];
	make_dir(dir);
	snprintf(args, sizeof args,
		 "run --steps --variant dist-ring-cpu,dist-allgather-cpu --n 1000 --min-time 0 "
		 "--max-time 0.05 --quiet --out %s/s.csv", dir);
	cr_expect_eq(mpi_harness(3, NULL, args, err, sizeof err), 0, "%s", err);
	remove_dir(dir);
}

/* A rank that fails (here its allocation, as when its GPU is full) ends
 * every rank with exit status 1 and one line naming it; nothing is written. */
Test(dist_mpirun, a_failing_rank_ends_every_rank, .timeout = 120)
{
	char dir[] = "/tmp/test_dist_fail.XXXXXX", args[1024], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args,
		 "run --variant dist-allgather-cpu --n 1000 --min-time 0 --max-time 0.05 --out %s/f.csv",
		 dir);
	cr_expect_eq(mpi_harness(3, "HARNESS_DIST_FAULT=1:alloc", args, err, sizeof err), 1);
	cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
	cr_expect(strstr(err, "rank 1 of 3") && strstr(err, "out of memory"), "%s", err);
	cr_expect_eq(count_entries(dir), 0, "a failed run leaves no file");
	remove_dir(dir);
}

/* The planted bug: one rank leaves out its last body. Validation catches
 * it (every body is checked at N = 1000) and nothing is written. */
Test(dist_mpirun, planted_skipped_body_is_caught, .timeout = 120)
{
	char dir[] = "/tmp/test_dist_skip.XXXXXX", args[1024], err[4096];
	need_mpirun();
	make_dir(dir);
	const char *variants[] = { "dist-allgather-cpu", "dist-ring-cpu", "dist-2d-cpu" };
	for (int k = 0; k < 3; k++) {
		snprintf(args, sizeof args,
			 "run --variant %s --n 1000 --min-time 0 --max-time 0.05 --out %s/f.csv",
			 variants[k], dir);
		/* rank 1 of 3 owns bodies 334..667 */
		cr_expect_eq(mpi_harness(3, "HARNESS_DIST_FAULT=1:skip-last", args, err, sizeof err), 1);
		cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
		cr_expect(strstr(err, "FAILED validation") && strstr(err, "at body 667"), "%s", err);
	}
	cr_expect_eq(count_entries(dir), 0, "a failed run leaves no file");
	remove_dir(dir);
}

/* dist-2d on the grids make test can reach with CPU ranks: 4 ranks are
 * 2 x 2, 9 are 3 x 3 (and 6 are 3 x 2), N below, at and above P. */
Test(dist_mpirun, grid_on_four_six_and_nine_ranks_validates, .timeout = 300)
{
	char err[4096];
	const int ranks[] = { 4, 6, 9 };
	need_mpirun();
	for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
		int rc = mpi_harness(ranks[k], NULL, "check --variant dist-2d-cpu --n 1,5,1000,4097 --quiet",
				     err, sizeof err);
		cr_expect_eq(rc, 0, "%d ranks: %s", ranks[k], err);
	}
}

/* What each rank's exchanges moved per evaluation, against the formula in
 * literal numbers: N = 1000 on 9 ranks are blocks of 112 bodies (1,792
 * bytes); the all-gather and the ring move 8 of them, the 3 x 3 grid 6. */
Test(dist_mpirun, bytes_per_rank_follow_each_scheme, .timeout = 180)
{
	char dir[] = "/tmp/test_dist_bytes.XXXXXX", args[1024], path[1200], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args,
		 "run --variant 'dist-*-cpu' --n 1000 --min-time 0 --max-time 0.02 --quiet --out %s/b.csv",
		 dir);
	cr_assert_eq(mpi_harness(9, NULL, args, err, sizeof err), 0, "%s", err);
	struct csv_table t;
	snprintf(path, sizeof path, "%s/b.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 3);
	for (size_t r = 0; r < t.nrows; r++) {
		double sent, recv;
		const char *v = csv_table_cell(&t, r, (size_t)csv_table_col(&t, "variant"));
		const char *grid = csv_table_cell(&t, r, (size_t)csv_table_col(&t, "grid"));
		cr_assert_eq(csv_table_double(&t, r, "rank_sent_bytes", &sent, err, sizeof err), 0, "%s", err);
		cr_assert_eq(csv_table_double(&t, r, "rank_recv_bytes", &recv, err, sizeof err), 0, "%s", err);
		bool two_d = strcmp(v, "dist-2d-cpu") == 0;
		cr_expect_eq(sent, two_d ? 10752 : 14336, "%s sends %.0f", v, sent);
		cr_expect_eq(recv, sent, "%s", v);
		cr_expect_str_eq(grid, two_d ? "3x3" : "", "%s", v);
	}
	csv_table_free(&t);
	remove_dir(dir);
}

/* Faults of the exchange itself, on 3 and 4 ranks and every scheme: a
 * block altered in one byte in flight, or one that never arrived. The
 * checksums of what each owner sent catch both before validation runs
 * (the ring's blocks too, though it keeps only its last two buffers). */
Test(dist_mpirun, a_block_altered_or_lost_in_flight_is_caught, .timeout = 300)
{
	char dir[] = "/tmp/test_dist_flight.XXXXXX", args[1024], err[4096];
	const char *variants[] = { "dist-allgather-cpu", "dist-ring-cpu", "dist-2d-cpu" };
	const char *faults[] = { "HARNESS_DIST_FAULT=1:corrupt", "HARNESS_DIST_FAULT=1:lost" };
	need_mpirun();
	make_dir(dir);
	for (int ranks = 3; ranks <= 4; ranks++)
		for (size_t v = 0; v < 3; v++)
			for (size_t f = 0; f < 2; f++) {
				snprintf(args, sizeof args,
					 "run --variant %s --n 1000 --min-time 0 --max-time 0.02 --out %s/f.csv",
					 variants[v], dir);
				int rc = mpi_harness(ranks, faults[f], args, err, sizeof err);
				cr_expect_eq(rc, 1, "%s, %s on %d ranks: %s", variants[v], faults[f], ranks, err);
				cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
				cr_expect(strstr(err, "rank 1 of") && strstr(err, "the exchange delivered rank"),
					  "%s, %s on %d ranks: %s", variants[v], faults[f], ranks, err);
			}
	/* which block: on 3 ranks rank 1's first foreign block of the
	 * all-gather is rank 2's, of the ring rank 0's */
	snprintf(args, sizeof args, "check --variant dist-allgather-cpu --n 1000");
	cr_expect_eq(mpi_harness(3, faults[0], args, err, sizeof err), 1);
	cr_expect(strstr(err, "rank 2's block"), "%s", err);
	snprintf(args, sizeof args, "check --variant dist-ring-cpu --n 1000");
	cr_expect_eq(mpi_harness(4, faults[0], args, err, sizeof err), 1);
	cr_expect(strstr(err, "rank 0's block"), "%s", err);
	cr_expect_eq(count_entries(dir), 0, "a failed run leaves no file");
	remove_dir(dir);
}

/* commbench on CPU ranks: one row per collective and size (1, 4 and 16
 * KiB), nccl-tests' bandwidths, a sidecar; GPU ranks where none can run
 * are refused in one line. */
Test(dist_mpirun, commbench_times_each_collective, .timeout = 120)
{
	char dir[] = "/tmp/test_commbench.XXXXXX", args[1024], path[1200], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args,
		 "commbench --device cpu --max-bytes 16Ki --min-time 0 --max-time 0.01 --quiet --out %s/c.csv",
		 dir);
	cr_assert_eq(mpi_harness(2, NULL, args, err, sizeof err), 0, "%s", err);
	struct csv_table t;
	snprintf(path, sizeof path, "%s/c.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 5 * 3);
	for (size_t r = 0; r < t.nrows; r++) {
		double bytes, algbw, busbw, ranks;
		cr_assert_eq(csv_table_double(&t, r, "bytes", &bytes, err, sizeof err), 0, "%s", err);
		cr_assert_eq(csv_table_double(&t, r, "algbw_gbps", &algbw, err, sizeof err), 0, "%s", err);
		cr_assert_eq(csv_table_double(&t, r, "busbw_gbps", &busbw, err, sizeof err), 0, "%s", err);
		cr_assert_eq(csv_table_double(&t, r, "ranks", &ranks, err, sizeof err), 0, "%s", err);
		const char *op = csv_table_named(&t, r, "op");
		cr_expect_eq(ranks, 2);
		cr_expect_eq(bytes, 1024 << (2 * (r % 3)), "%s", op);
		/* nccl-tests: busbw = algbw (P - 1) / P for the all-gather and the reduce-scatter */
		bool halved = strcmp(op, "allgather") == 0 || strcmp(op, "reduce_scatter") == 0;
		cr_expect_float_eq(busbw, halved ? algbw / 2 : algbw, 1e-5 * algbw, "%s", op);
	}
	csv_table_free(&t);
	snprintf(path, sizeof path, "%s/c.meta.json", dir);
	cr_expect_eq(access(path, R_OK), 0, "the sidecar");
	if (!variant_available(variant_find("dist-allgather"), NULL)) {
		snprintf(args, sizeof args, "commbench --device gpu --out %s/g.csv", dir);
		cr_expect_eq(mpi_harness(2, NULL, args, err, sizeof err), 2);
		cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
		cr_expect(strstr(err, "GPU ranks cannot run here"), "%s", err);
	}
	remove_dir(dir);
}

/* Ranks on different kinds of device are refused: here one rank forced
 * onto cpu-simd's scalar path. */
Test(dist_mpirun, ranks_of_different_kinds_are_refused, .timeout = 120)
{
	char cmd[2048], err[4096];
	need_mpirun();
	if (strcmp(nbody_cpu_simd_isa(), "scalar") == 0)
		cr_skip_test("this CPU has no SIMD path to differ from the scalar one");
	snprintf(cmd, sizeof cmd,
		 "mpirun -q --oversubscribe -np 1 -x NBODY_CPU_SIMD_ISA=scalar %s check --variant dist-ring-cpu "
		 "--n 100 : -np 1 %s check --variant dist-ring-cpu --n 100",
		 cli_harness_bin(), cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 1);
	cr_expect_eq(count_lines(err), 1, "one line, not: %s", err);
	cr_expect(strstr(err, "different CPUs"), "%s", err);
}

Test(dist_mpirun, one_device_variants_do_not_run_on_several_ranks, .timeout = 60)
{
	char err[4096];
	need_mpirun();
	cr_expect_eq(mpi_harness(2, NULL, "check --variant cpu-simd --n 10", err, sizeof err), 2);
	cr_expect(strstr(err, "runs on one device"), "%s", err);
	cr_expect_eq(mpi_harness(2, NULL, "compare a.csv b.csv", err, sizeof err), 2);
	cr_expect_eq(count_lines(err), 1, "one line from rank 0 only: %s", err);
}

/* The scaling suite once per P: one CSV per number of ranks, which the
 * plot merges into one figure. */
Test(dist_mpirun, scaling_suite_writes_one_file_per_p, .timeout = 300)
{
	char dir[] = "/tmp/test_dist_suite.XXXXXX", args[1024], cmd[2048], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args,
		 "run --suite weak-scaling --out-dir %s --min-time 0 --max-time 0.02 --quiet", dir);
	snprintf(cmd, sizeof cmd, "%s %s", cli_harness_bin(), args);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "P = 1: %s", err);
	cr_assert_eq(mpi_harness(2, NULL, args, err, sizeof err), 0, "P = 2: %s", err);
	cr_assert_eq(mpi_harness(4, NULL, args, err, sizeof err), 0, "P = 4: %s", err);
	struct csv_table t;
	char path[1200];
	for (int p = 1; p <= 4; p *= 2) {
		snprintf(path, sizeof path, "%s/weak-scaling-p%d.csv", dir, p);
		cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
		cr_expect_gt(t.nrows, 0, "%s has rows", path);
		for (size_t r = 0; r < t.nrows; r++) {
			double ranks;
			cr_assert_eq(csv_table_double(&t, r, "ranks", &ranks, err, sizeof err), 0);
			const char *v = csv_table_cell(&t, r, (size_t)csv_table_col(&t, "variant"));
			cr_expect(ranks == p || (p == 1 && strncmp(v, "dist-", 5) != 0), "%s: %s", path, v);
		}
		csv_table_free(&t);
	}
	if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof cmd, "%s plot --suite weak-scaling --from %s --out %s", cli_harness_bin(),
			 dir, dir);
		cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
		snprintf(path, sizeof path, "%s/weak-scaling.png", dir);
		cr_expect_eq(access(path, R_OK), 0, "the figure was drawn");
	}
	remove_dir(dir);
}

/* --gpu chooses the GPU of a run on one process: with several ranks, each
 * takes the GPU of its rank on its host, and --gpu is refused in one line. */
Test(dist_mpirun, gpu_index_is_refused_on_several_ranks, .timeout = 60)
{
	char err[4096];
	need_mpirun();
	cr_expect_eq(mpi_harness(2, NULL, "check --gpu 0 --variant dist-ring-cpu --n 10", err,
				 sizeof err), 2);
	cr_expect_eq(count_lines(err), 1, "one line from rank 0 only: %s", err);
	cr_expect(strstr(err, "--gpu 0") && strstr(err, "2 ranks"), "%s", err);
}

/* --repetitions on ranks: every rank measures each repetition together,
 * and the sidecar keeps them all. */
Test(dist_mpirun, repetitions_on_two_ranks, .timeout = 120)
{
	char dir[] = "/tmp/test_dist_reps.XXXXXX", args[1024], path[1200], err[4096];
	need_mpirun();
	make_dir(dir);
	snprintf(args, sizeof args, "run --variant dist-ring-cpu --n 200 --repetitions 2 --min-time 0 "
		 "--max-time 0.02 --quiet --out %s/r.csv", dir);
	cr_assert_eq(mpi_harness(2, NULL, args, err, sizeof err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/r.meta.json", dir);
	struct json_in_value side;
	cr_assert_eq(json_in_read_file(path, &side, err, sizeof err), 0, "%s", err);
	const struct json_in_value *reps =
		json_in_member(&json_in_member(&side, "samples")->items[0], "repetitions");
	cr_expect(reps && reps->type == JSON_IN_ARRAY && reps->count == 2, "two repetitions");
	json_in_free(&side);
	remove_dir(dir);
}
