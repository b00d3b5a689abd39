/* test_dist.c - the distributed variants in one process: decomposition, block kernel, bounds */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/cli.h"
#include "../../harness/core/gpu_device.h"
#include "../../harness/nbody/dist.h"
#include "../../harness/nbody/dist_gpu.h"
#include "../../harness/nbody/dist_instance.h"
#include "../../harness/nbody/instance.h"
#include "../../harness/nbody/validate.h"
#include "../../kernels/nbody/nbody_cpu.h"
#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"

/* Every body is owned by exactly one rank, blocks are share long, and no
 * body is dropped, for N that do not divide by P. */
Test(dist, layout_covers_every_body_once)
{
	const size_t ns[] = { 1, 2, 3, 5, 7, 1000, 1001, 4097 };
	for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
		for (int ranks = 1; ranks <= 8; ranks++) {
			size_t next = 0;
			for (int r = 0; r < ranks; r++) {
				struct dist_layout l;
				dist_layout_make(&l, ns[a], ranks, r);
				cr_assert_eq(l.share, (ns[a] + ranks - 1) / ranks);
				cr_assert_leq(l.own, l.share);
				if (l.own > 0)
					cr_assert_eq(l.first, next, "N=%zu P=%d rank %d", ns[a], ranks, r);
				next += l.own;
			}
			cr_assert_eq(next, ns[a], "N=%zu on %d ranks covers %zu bodies", ns[a], ranks, next);
		}
	struct dist_layout l;
	dist_layout_make(&l, 1000, 3, 2);
	cr_expect_eq(l.own, 332, "N = 1000 on 3 ranks: 334, 334, 332");
	dist_layout_make(&l, 5, 4, 3);
	cr_expect_eq(l.own, 0, "N = 5 on 4 ranks: the last rank owns none");
}

/* The block kernel on two halves of the i-bodies (the way a rank sees its
 * share, cut at a multiple of the 64-body block) gives the whole
 * problem's accelerations bit for bit, and
 * accumulating two j-halves gives them to float rounding. */
Test(dist, cpu_block_kernel_splits_the_problem)
{
	enum { N = 1003 };
	float pos4[4 * N], vel4[4 * N], whole[4 * N], part[4 * N];
	cr_assert_eq(ic_generate(IC_PLUMMER, N, 9, pos4, vel4), 0);
	nbody_cpu_simd(pos4, whole, N, 1e-4f);
	nbody_cpu_simd_block(pos4, 512, pos4, N, 0, part, 1e-4f, 0);
	nbody_cpu_simd_block(pos4 + 4 * 512, N - 512, pos4, N, 512, part + 4 * 512, 1e-4f, 0);
	cr_expect_eq(memcmp(whole, part, sizeof whole), 0, "i-halves differ from the whole");
	nbody_cpu_simd_block(pos4, N, pos4, 600, 0, part, 1e-4f, 0);
	nbody_cpu_simd_block(pos4, N, pos4 + 4 * 600, N - 600, NBODY_CPU_NO_SELF, part, 1e-4f, 1);
	double worst = 0, scale = 0;
	for (size_t i = 0; i < 4 * N; i++) {
		worst = fmax(worst, fabs(part[i] - whole[i]));
		scale = fmax(scale, fabs(whole[i]));
	}
	cr_expect_lt(worst / scale, 1e-5, "j-halves accumulated differ by %.3e of the largest",
		     worst / scale);
}

/* One rank, in this process (no launcher): the distributed CPU variants
 * are cpu-simd on the whole problem, within the one-device bound. */
Test(dist, one_rank_equals_the_rank_kernel)
{
	enum { N = 777 };
	const char *why;
	if (!variant_available(&nbody_variants[NBODY_V_dist_ring_cpu], &why))
		cr_skip_test("%s", why);
	float pos4[4 * N], vel4[4 * N];
	double one[3 * N], got[3 * N], fsum[N];
	size_t idx[N];
	cr_assert_eq(ic_generate(IC_PLUMMER, N, 4, pos4, vel4), 0);
	struct instance in;
	char err[256];
	cr_assert_eq(instance_create(&in, &nbody_variants[NBODY_V_cpu_simd], pos4, vel4, N, 0.01, err,
				     sizeof err), 0, "%s", err);
	cr_assert_eq(instance_accels(&in, one), 0);
	instance_destroy(&in);
	size_t m = validate_pick_bodies(N, 1, idx);
	double ref3[3 * N];
	ref_accel_bodies(pos4, N, 0.01, idx, m, ref3, fsum);
	const size_t ids[] = { NBODY_V_dist_allgather_cpu, NBODY_V_dist_ring_cpu,
			       NBODY_V_dist_2d_cpu };
	for (size_t k = 0; k < 3; k++) {
		cr_assert_eq(instance_create(&in, &nbody_variants[ids[k]], pos4, vel4, N, 0.01, err,
					     sizeof err), 0, "%s", err);
		cr_assert_eq(instance_accels(&in, got), 0);
		double diff = validate_single_diff(got, one, idx, m, fsum);
		cr_expect_leq(diff, validate_single_bound(VARIANT_FP32, N), "%s: %.3e",
			      nbody_variants[ids[k]].name, diff);
		cr_expect_str_eq(dist_instance_devices(in.dist), dist_instance_devices(in.dist));
		instance_destroy(&in);
	}
}

/* Distributed leapfrog steps follow the one-device CPU instance's. */
Test(dist, steps_follow_the_one_device_steps)
{
	enum { N = 300, STEPS = 20 };
	const char *why;
	if (!variant_available(&nbody_variants[NBODY_V_dist_allgather_cpu], &why))
		cr_skip_test("%s", why);
	float pos4[4 * N], vel4[4 * N], dpos[4 * N], dvel[4 * N];
	cr_assert_eq(ic_generate(IC_PLUMMER, N, 6, pos4, vel4), 0);
	struct instance one, dist;
	char err[256];
	double t;
	cr_assert_eq(instance_create(&one, &nbody_variants[NBODY_V_cpu_simd], pos4, vel4, N, 0.05, err,
				     sizeof err), 0);
	cr_assert_eq(instance_create(&dist, &nbody_variants[NBODY_V_dist_allgather_cpu], pos4, vel4, N,
				     0.05, err, sizeof err), 0, "%s", err);
	cr_assert_eq(instance_steps(&one, STEPS, 1e-3, &t), 0);
	cr_assert_eq(instance_steps(&dist, STEPS, 1e-3, &t), 0);
	cr_assert_eq(dist_instance_state(dist.dist, dpos, dvel), 0);
	double worst = 0;
	for (size_t i = 0; i < 4 * N; i++)
		worst = fmax(worst, fabs(dpos[i] - one.pos4[i]) + fabs(dvel[i] - one.vel4[i]));
	cr_expect_lt(worst, 1e-5, "distributed and one-device steps differ by %.3e", worst);
	instance_destroy(&one);
	instance_destroy(&dist);
}

/* dist-2d's grid: the most nearly square rows x cols with rows >= cols,
 * a prime number of ranks a column (the all-gather's exchange). */
Test(dist, grid_of_the_ranks)
{
	const int p[] = { 1, 2, 3, 4, 6, 7, 8, 9, 12, 16, 18, 1024 };
	const int rows[] = { 1, 2, 3, 2, 3, 7, 4, 3, 4, 4, 6, 32 };
	for (size_t k = 0; k < sizeof p / sizeof *p; k++) {
		int r, c;
		dist_grid_make(p[k], &r, &c);
		cr_expect_eq(r, rows[k], "P = %d: %d x %d", p[k], r, c);
		cr_expect_eq(r * c, p[k], "P = %d: %d x %d", p[k], r, c);
	}
	/* rank = row x cols + col: on 6 ranks (3 x 2) rank 5 is row 2, col 1 */
	struct dist_layout l;
	dist_layout_make(&l, 1000, 6, 5);
	cr_expect_eq(l.rows, 3);
	cr_expect_eq(l.cols, 2);
	cr_expect_eq(l.row, 2);
	cr_expect_eq(l.col, 1);
}

/* Bytes a rank sends per evaluation, in literal numbers: 1000 bodies on
 * 9 ranks are blocks of 112 (1,792 bytes); the all-gather and the ring
 * move 8 blocks, the 3 x 3 grid 2 x 2 + 2 = 6; on 4 ranks (250 bodies,
 * 4,000 bytes) both move 3. */
Test(dist, traffic_formula)
{
	struct dist_layout l;
	dist_layout_make(&l, 1000, 9, 4);
	cr_expect_eq(dist_traffic_formula(DIST_ALLGATHER, &l), 14336);
	cr_expect_eq(dist_traffic_formula(DIST_RING, &l), 14336);
	cr_expect_eq(dist_traffic_formula(DIST_2D, &l), 10752);
	dist_layout_make(&l, 1000, 4, 0);
	cr_expect_eq(dist_traffic_formula(DIST_2D, &l), 12000);
	cr_expect_eq(dist_traffic_formula(DIST_ALLGATHER, &l), 12000);
	dist_layout_make(&l, 1000, 1, 0);
	cr_expect_eq(dist_traffic_formula(DIST_2D, &l), 0);
}

/* The counters follow nccl-tests' accounting: an all-gather of b bytes
 * per member over n members moves (n - 1) b each way. */
Test(dist, traffic_counters)
{
	dist_traffic_reset();
	dist_traffic_collective(4, 100);
	dist_traffic_p2p(7, 0);
	dist_traffic_p2p(0, 5);
	struct dist_traffic t = dist_traffic_get();
	cr_expect_eq(t.sent, 307);
	cr_expect_eq(t.recv, 305);
	dist_traffic_collective(1, 100);
	cr_expect_eq(dist_traffic_get().sent, 307, "a group of one moves nothing");
	dist_traffic_reset();
	cr_expect_eq(dist_traffic_get().recv, 0);
}

Test(dist, eps_zero_is_refused)
{
	const char *why;
	if (!variant_available(&nbody_variants[NBODY_V_dist_ring_cpu], &why))
		cr_skip_test("%s", why);
	float pos4[8] = { 0, 0, 0, 1, 1, 0, 0, 1 };
	struct instance in;
	char err[256] = "";
	cr_expect_neq(instance_create(&in, &nbody_variants[NBODY_V_dist_ring_cpu], pos4, NULL, 2, 0.0,
				      err, sizeof err), 0);
	cr_expect(strstr(err, "--eps > 0"), "%s", err);
}

/* The one-device bound sits far below a left-out body's error and grows
 * like sqrt(N). */
Test(dist, single_bound)
{
	cr_expect_float_eq(validate_single_bound(VARIANT_FP32, 4096), 512 * ldexp(1, -24), 1e-15);
	cr_expect_lt(validate_single_bound(VARIANT_FP32, 1 << 22), 1e-3);
	double a[6] = { 1, 0, 0, 0, 1, 0 }, b[6] = { 1, 0, 0, 0, 1.5, 0 }, fsum[2] = { 1, 2 };
	size_t idx[2] = { 0, 1 };
	cr_expect_float_eq(validate_single_diff(a, b, idx, 2, fsum), 0.25, 1e-15);
	b[0] = NAN;
	cr_expect(isnan(validate_single_diff(a, b, idx, 2, fsum)));
}

Test(dist, suite_n_per_rank)
{
	size_t *n = NULL, count = 0;
	char err[256];
	cr_assert_eq(cli_parse_suite_n("262144 per rank", 4, &n, &count, err, sizeof err), CLI_OK);
	cr_expect_eq(count, 1);
	cr_expect_eq(n[0], 4 * 262144);
	free(n);
	cr_assert_eq(cli_parse_suite_n("1024,2048", 4, &n, &count, err, sizeof err), CLI_OK);
	cr_expect_eq(n[1], 2048, "no suffix: N as written");
	free(n);
	cr_expect_eq(cli_parse_suite_n("2^30 per rank", 2, &n, &count, err, sizeof err), CLI_USAGE);
}

/* With one rank (no launcher) the collectives are local. */
Test(dist, one_rank_world)
{
	cr_expect_eq(dist_rank(), 0);
	cr_expect_eq(dist_size(), 1);
	char msg[64] = "x";
	cr_expect_eq(dist_agree(0, msg, sizeof msg), -1);
	cr_expect_eq(dist_agree(1, msg, sizeof msg), 0);
	cr_expect_str_eq(msg, "x", "one rank: the message stays as it is");
	double v[2] = { 1, 2 };
	cr_expect_eq(dist_allreduce_max(v, 2), 0);
	cr_expect_eq(v[1], 2);
	cr_expect_not(dist_fault("alloc"));
}

/* In a build without CUDA the GPU ranks are unavailable for that reason,
 * the one every GPU variant gives, not for a missing NCCL, which no
 * such build could use either. */
Test(dist, gpu_ranks_of_a_build_without_cuda_say_so)
{
	if (gpu_built())
		cr_skip_test("a build with CUDA, whose GPU ranks give the GPU's or NCCL's reason");
	cr_assert_not_null(dist_gpu_unavailable_reason());
	cr_expect_str_eq(dist_gpu_unavailable_reason(), gpu_unavailable_reason());
}
