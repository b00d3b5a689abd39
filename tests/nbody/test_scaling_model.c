/* test_scaling_model.c - the scaling model: its fit, its formulas and the model command */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/core/csv_table.h"
#include "../../harness/nbody/commbench.h"
#include "../../harness/nbody/dist_instance.h"
#include "../../harness/nbody/scaling_model.h"
#include "../cli_run.h"

/* The planted links inside a node: a fixed cost with the first step
 * (alpha0), each further step (alpha; a send/recv has one step) and B. */
static const double planted_alpha0[DIST_OP_COUNT] = { 7e-6, 6e-6, 5e-6, 5.5e-6, 8e-6 };
static const double planted_alpha[DIST_OP_COUNT] = { 1e-6, 1.2e-6, 0.4e-6, 0.6e-6, 0 };
static const double planted_bw[DIST_OP_COUNT] = { 100e9, 80e9, 120e9, 110e9, 150e9 };

/* The time the model's form gives, written out here on its own. */
static double planted_time(int op, int ranks, double bytes)
{
	double n = ranks;
	if (op == DIST_OP_ALLGATHER || op == DIST_OP_REDUCE_SCATTER)
		return planted_alpha0[op] + (n - 2) * planted_alpha[op] + (n - 1) / n * bytes / planted_bw[op];
	if (op == DIST_OP_SENDRECV)
		return planted_alpha0[op] + bytes / planted_bw[op];
	return planted_alpha0[op] + (n - 2) * planted_alpha[op] + bytes / planted_bw[op];
}

/* A commbench CSV at `ranks` whose times follow the planted links
 * exactly (skip: an op left out), but for its first size, `cold` times
 * slower (a collective's first call, set-up included). */
static double cold = 1;

static void write_comm(const char *path, int ranks, int skip)
{
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "op,device,device_name,ranks,bytes,samples,time_min_s,time_median_s,time_max_s,"
		    "noise_pct,algbw_gbps,busbw_gbps\n");
	for (int op = 0; op < DIST_OP_COUNT; op++)
		for (double b = 1024; b <= 256.0 * 1024 * 1024 && op != skip; b *= 4) {
			double t = planted_time(op, ranks, b) * (b == 1024 ? cold : 1);
			fprintf(fp, "%s,gpu,X,%d,%.0f,5,%.17g,%.17g,%.17g,0,0,0\n", commbench_op_names[op],
				ranks, b, t, t, t);
		}
	fclose(fp);
}

/* Fits m to planted commbench files on 2 and 4 ranks (this process's own). */
static void fit_planted(struct model_params *m, int skip, int *rc, char *err, size_t errlen)
{
	struct csv_table t[2];
	char e[256], path[2][64];
	for (int k = 0; k < 2; k++) {
		snprintf(path[k], sizeof path[k], "/tmp/test_model_fit%d.%d.csv", 2 << k, (int)getpid());
		write_comm(path[k], 2 << k, skip);
		cr_assert_eq(csv_table_read(path[k], &t[k], e, sizeof e), 0, "%s", e);
		remove(path[k]);
	}
	*rc = model_fit(m, t, 2, err, errlen);
	csv_table_free(&t[0]);
	csv_table_free(&t[1]);
}

/* The fit finds the planted latency and bandwidth of every collective. */
Test(scaling_model, fit_recovers_planted_links)
{
	struct model_params m = { .gpus_per_node = 8 };
	char err[256];
	int rc;
	fit_planted(&m, -1, &rc, err, sizeof err);
	cr_assert_eq(rc, 0, "%s", err);
	for (int op = 0; op < DIST_OP_COUNT; op++) {
		cr_expect_float_eq(m.intra[op].alpha0, planted_alpha0[op], 1e-6 * planted_alpha0[op], "%s",
				   commbench_op_names[op]);
		cr_expect_float_eq(m.intra[op].alpha, planted_alpha[op], 1e-12, "%s", commbench_op_names[op]);
		cr_expect_float_eq(m.intra[op].bw, planted_bw[op], 1e-6 * planted_bw[op], "%s",
				   commbench_op_names[op]);
		cr_expect_eq(m.fit_points[op], 20, "%s: 10 sizes on 2 and 4 ranks", commbench_op_names[op]);
		cr_expect_lt(m.fit_err[op], 1e-9);
	}
}

/* One size measured cold (its first call's set-up in it, 100 x slower on
 * every collective and P) barely moves the fit, which minimises the
 * absolute relative error; its residual is reported. */
Test(scaling_model, fit_shrugs_off_a_cold_first_size)
{
	struct model_params m = { .gpus_per_node = 8 };
	char err[256];
	int rc;
	cold = 100;
	fit_planted(&m, -1, &rc, err, sizeof err);
	cold = 1;
	cr_assert_eq(rc, 0, "%s", err);
	for (int op = 0; op < DIST_OP_COUNT; op++) {
		cr_expect_float_eq(m.intra[op].alpha0, planted_alpha0[op], 1e-3 * planted_alpha0[op], "%s: %g",
				   commbench_op_names[op], m.intra[op].alpha0);
		cr_expect_float_eq(m.intra[op].alpha, planted_alpha[op], 1e-9, "%s: %g",
				   commbench_op_names[op], m.intra[op].alpha);
		cr_expect_float_eq(m.intra[op].bw, planted_bw[op], 1e-3 * planted_bw[op], "%s",
				   commbench_op_names[op]);
		cr_expect_gt(m.fit_err[op], 0.9, "the cold size's residual (99 %%) is shown");
	}
}

/* A collective the schemes use that was not measured is refused. */
Test(scaling_model, fit_needs_the_collectives_the_schemes_use)
{
	struct model_params m = { .gpus_per_node = 8 };
	char err[256] = "";
	int rc;
	fit_planted(&m, DIST_OP_SENDRECV, &rc, err, sizeof err);
	cr_expect_eq(rc, -1);
	cr_expect(strstr(err, "sendrecv"), "%s", err);
}

/* A rank's interactions run at the rate of the square problem of as many:
 * the all-gather's N/4 x N on 4 ranks at r(N/2), a ring block's N/4 x N/4
 * at r(N/4). */
Test(scaling_model, ranks_compute_at_their_own_size)
{
	struct model_params m = { .gpus_per_node = 8, .inter = { .alpha = 5e-6, .bw = 50e9 } };
	char err[256];
	int rc;
	fit_planted(&m, -1, &rc, err, sizeof err);
	cr_assert_eq(rc, 0, "%s", err);
	double n = 1 << 20;
	cr_assert_eq(model_add_rate(&m, n / 4, 1.0e12), 0);
	cr_assert_eq(model_add_rate(&m, n / 2, 1.5e12), 0);
	cr_assert_eq(model_add_rate(&m, n, 2.0e12), 0);
	double compute;
	model_time(&m, DIST_ALLGATHER, n, 4, &compute);
	cr_expect_float_eq(compute, n * n / 4 / 1.5e12, 1e-12);
	model_time(&m, DIST_2D, n, 4, &compute);
	cr_expect_float_eq(compute, n * n / 4 / 1.5e12, 1e-12);
	model_time(&m, DIST_RING, n, 4, &compute);
	cr_expect_float_eq(compute, 4 * (n / 4) * (n / 4) / 1.0e12, 1e-12);
}

/* r(N) between measured points follows a power law, and is held beyond. */
Test(scaling_model, rate_interpolates_in_log_n)
{
	struct model_params m = { 0 };
	cr_assert_eq(model_add_rate(&m, 1 << 20, 2.1e12), 0);
	cr_assert_eq(model_add_rate(&m, 1 << 16, 2.0e12), 0);
	cr_assert_eq(model_add_rate(&m, 1 << 16, 1.5e12), 0, "the faster of two at one N stays");
	cr_expect_eq(m.nrates, 2);
	cr_expect_float_eq(model_rate(&m, 1 << 18), sqrt(2.0e12 * 2.1e12), 1e3);
	cr_expect_eq(model_rate(&m, 1 << 10), 2.0e12);
	cr_expect_eq(model_rate(&m, 1 << 26), 2.1e12);
}

/* The planted links inside a node, 5 us and 50 GB/s between nodes of 8,
 * and one device's rate of 2e12 interactions/s at every N. */
static void planted_model(struct model_params *m)
{
	char err[256];
	int rc;
	*m = (struct model_params){ .gpus_per_node = 8, .inter = { .alpha = 5e-6, .bw = 50e9 } };
	fit_planted(m, -1, &rc, err, sizeof err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(model_add_rate(m, 1 << 20, 2e12), 0);
}

/* Each scheme's time written out by hand at N = 2^20, on 4 ranks (one
 * node) and on 16 (two nodes of 8: the all-gather and dist-2d's columns
 * cross nodes, where every step costs the stated 5 us over the fixed cost,
 * dist-2d's rows of 4 do not). */
Test(scaling_model, scheme_times_follow_their_formulas)
{
	struct model_params m;
	planted_model(&m);
	const int AG = DIST_OP_ALLGATHER, RS = DIST_OP_REDUCE_SCATTER, SR = DIST_OP_SENDRECV;
	double n = 1 << 20, r = 2e12;
	double b = 16 * n / 4, forces = n * n / 4 / r, compute;
	/* P = 4: all-gather of 4 blocks (3 steps); ring of 3 steps; 2 x 2 grid */
	double ag4 = planted_alpha0[AG] + 2 * planted_alpha[AG] + 0.75 * 4 * b / planted_bw[AG];
	cr_expect_float_eq(model_time(&m, DIST_ALLGATHER, n, 4, &compute), ag4 + forces, 1e-12);
	cr_expect_float_eq(compute, forces, 1e-15);
	double tb = (n / 4) * (n / 4) / r, tx = planted_alpha0[SR] + b / planted_bw[SR];
	cr_expect_float_eq(model_time(&m, DIST_RING, n, 4, NULL), tb + 3 * fmax(tb, tx), 1e-12);
	double ag2 = planted_alpha0[AG] + 0.5 * 2 * b / planted_bw[AG];
	double rs2 = planted_alpha0[RS] + 0.5 * 2 * b / planted_bw[RS];
	cr_expect_float_eq(model_time(&m, DIST_2D, n, 4, NULL), 2 * ag2 + forces + rs2, 1e-12);
	/* P = 16 on nodes of 8 */
	b = 16 * n / 16;
	forces = n * n / 16 / r;
	cr_expect_float_eq(model_time(&m, DIST_ALLGATHER, n, 16, NULL),
			   planted_alpha0[AG] + 15 * 5e-6 + 15.0 / 16 * 16 * b / 50e9 + forces, 1e-12);
	double row = planted_alpha0[AG] + 2 * planted_alpha[AG] + 0.75 * 4 * b / planted_bw[AG];
	double col = planted_alpha0[AG] + 3 * 5e-6 + 0.75 * 4 * b / 50e9;
	double fold = planted_alpha0[RS] + 2 * planted_alpha[RS] + 0.75 * 4 * b / planted_bw[RS];
	cr_expect_float_eq(model_time(&m, DIST_2D, n, 16, NULL), row + col + forces + fold, 1e-12);
	/* efficiency: the rate over P times one device's */
	cr_expect_float_eq(model_efficiency(&m, DIST_2D, n, 16),
			   n * n / (16 * r * model_time(&m, DIST_2D, n, 16, NULL)), 1e-12);
}

/* A collective's ranks on one node take the links inside it; one rank
 * more than a node holds takes the links between nodes. At the edge: 8
 * ranks on nodes of 8 stay inside, 9 do not (all-gather and ring); the
 * 4 x 4 grid on nodes of 4 has rows that fill a node exactly (inside)
 * and columns that span four. */
Test(scaling_model, a_node_filled_exactly_stays_inside)
{
	struct model_params m;
	planted_model(&m);
	const int AG = DIST_OP_ALLGATHER, RS = DIST_OP_REDUCE_SCATTER, SR = DIST_OP_SENDRECV;
	const double n = 1 << 20, r = 2e12;
	for (int p = 8; p <= 9; p++) {
		double share = ceil(n / p), b = 16 * share, forces = n * n / p / r;
		double inside = planted_alpha0[AG] + (p - 2) * planted_alpha[AG] +
				(p - 1.0) / p * p * b / planted_bw[AG];
		double across = planted_alpha0[AG] + (p - 1) * 5e-6 + (p - 1.0) / p * p * b / 50e9;
		cr_expect_float_eq(model_time(&m, DIST_ALLGATHER, n, p, NULL),
				   (p == 8 ? inside : across) + forces, 1e-12, "all-gather on %d ranks", p);
		double tb = share * share / r;
		double tx = p == 8 ? planted_alpha0[SR] + b / planted_bw[SR]
				   : planted_alpha0[SR] + 5e-6 + b / 50e9;
		cr_expect_float_eq(model_time(&m, DIST_RING, n, p, NULL), tb + (p - 1) * fmax(tb, tx),
				   1e-12, "ring on %d ranks", p);
	}
	m.gpus_per_node = 4;
	double b = 16 * n / 16, forces = n * n / 16 / r;
	double row = planted_alpha0[AG] + 2 * planted_alpha[AG] + 0.75 * 4 * b / planted_bw[AG];
	double col = planted_alpha0[AG] + 3 * 5e-6 + 0.75 * 4 * b / 50e9;
	double fold = planted_alpha0[RS] + 2 * planted_alpha[RS] + 0.75 * 4 * b / planted_bw[RS];
	cr_expect_float_eq(model_time(&m, DIST_2D, n, 16, NULL), row + col + forces + fold, 1e-12);
	/* nodes of one GPU: every collective of two or more spans nodes */
	m.gpus_per_node = 1;
	b = 16 * n / 2;
	cr_expect_float_eq(model_time(&m, DIST_ALLGATHER, n, 2, NULL),
			   planted_alpha0[AG] + 5e-6 + 0.5 * 2 * b / 50e9 + n * n / 2 / r, 1e-12);
}

/* Where a scheme stops scaling: the last P before its efficiency first
 * falls below the mark; the ring at 2^20 is bound by a step's latency
 * once a block's forces take less than it. */
Test(scaling_model, where_scaling_stops)
{
	struct model_params m;
	planted_model(&m);
	double n = 1 << 20;
	int p = model_last_p(&m, DIST_RING, n, 1024, 0.5);
	cr_expect_geq(model_efficiency(&m, DIST_RING, n, p), 0.5);
	cr_expect_lt(model_efficiency(&m, DIST_RING, n, 2 * p), 0.5, "P = %d", p);
	/* a block of N / P bodies computes in (N/P)^2 / r; at P = 512 that is
	 * 2 us, below a step between nodes (8 + 5 us + 32 KiB / 50 GB/s) */
	cr_expect_eq(p, 256);
	cr_expect_gt(model_last_p(&m, DIST_2D, n, 1024, 0.5), model_last_p(&m, DIST_ALLGATHER, n, 1024, 0.5),
		     "the grid scales further than the all-gather");
}

/* The command: tables and a predictions CSV from files; wrong input gets
 * one line and status 2. */
Test(scaling_model, command_reads_writes_and_refuses)
{
	char cmd[2048], err[4096], path[1100];
	char dir[] = "/tmp/test_model_runs.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/c2.csv", dir);
	write_comm(path, 2, -1);
	snprintf(path, sizeof path, "%s/c4.csv", dir);
	write_comm(path, 4, -1);
	snprintf(path, sizeof path, "%s/scaling-p1.csv", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "variant,n,ranks,valid,mode,interactions_per_s,time_median_s\n"
		    "auto,1048576,1,1,forces,2.1e12,0.5236\nauto,65536,1,1,forces,2.0e12,0.0021\n");
	fclose(fp);
	snprintf(path, sizeof path, "%s/scaling-p4.csv", dir);
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "variant,n,ranks,valid,mode,interactions_per_s,time_median_s\n"
		    "dist-2d,1048576,4,1,forces,8.2e12,0.1341\n");
	fclose(fp);
	snprintf(cmd, sizeof cmd,
		 "%s model --comm %s/c2.csv,%s/c4.csv --from %s --out %s/m.csv", cli_harness_bin(), dir,
		 dir, dir, dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	struct csv_table t;
	snprintf(path, sizeof path, "%s/m.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 3 * 7 * 11, "3 schemes, N = 2^20..2^26, P = 1..1024");
	int measured = 0;
	for (size_t r = 0; r < t.nrows; r++)
		measured += csv_table_named(&t, r, "measured_time_s")[0] != '\0';
	cr_expect_eq(measured, 1, "the measured dist-2d row at P = 4 sits beside its prediction");
	csv_table_free(&t);
	/* the fit's table: a line per collective, between its heading and the
	 * stated links between nodes */
	static char text[1 << 16];
	snprintf(cmd, sizeof cmd, "%s model --comm %s/c2.csv,%s/c4.csv --from %s", cli_harness_bin(),
		 dir, dir, dir);
	cr_assert_eq(cli_run_stdout(cmd, text, sizeof text), 0, "%s", text);
	const char *fit = strstr(text, "inside a node"), *end = fit ? strstr(fit, "between nodes") : NULL;
	cr_assert(fit && end, "%s", text);
	for (int op = 0; op < DIST_OP_COUNT; op++) {
		char line[64];
		snprintf(line, sizeof line, "\n  %s ", commbench_op_names[op]);
		const char *at = strstr(fit, line);
		cr_expect(at && at < end, "no fitted line for %s:\n%s", commbench_op_names[op], text);
	}
	snprintf(cmd, sizeof cmd, "%s model --from %s", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2);
	cr_expect(strstr(err, "--comm"), "%s", err);
	snprintf(cmd, sizeof cmd, "%s model --comm %s/c2.csv --from /nonexistent", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2);
	cr_expect(strstr(err, "/nonexistent"), "%s", err);
	snprintf(cmd, sizeof cmd, "%s model --comm %s/c2.csv --from %s --inter-bw -1", cli_harness_bin(),
		 dir, dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}
