/* scaling_model.h - the distributed variants' time per evaluation, predicted from measured parts */
#ifndef HARNESS_SCALING_MODEL_H
#define HARNESS_SCALING_MODEL_H

#include <stddef.h>

#include "../core/csv_table.h"
#include "dist_gpu.h"

/*
 * A latency-bandwidth (alpha-beta) model of the three schemes on P ranks,
 * from what was measured:
 *
 *   compute   a rank's n_i x n_j interactions at r(sqrt(n_i n_j)), the rank
 *             kernel's rate on one device for the square problem of as
 *             many (the one-device rows, interpolated in log N and held at
 *             the ends): r(N / sqrt(P)) for the all-gather and the grid,
 *             r(N / P) for each of the ring's blocks;
 *   exchange  NCCL's ring algorithms, a collective of `steps` ring steps
 *             whose slowest link carries `load` bytes taking
 *                 alpha0 + alpha (steps - 1) + load / B
 *             (alpha0: the fixed cost and first step, alpha: each further
 *             step, B: the bandwidth), with
 *               all-gather, reduce-scatter of S bytes on n ranks:
 *                 n - 1 steps, load (n - 1) / n S
 *               broadcast, reduce of S bytes: n - 1 steps, load S
 *               send/recv of S bytes: 1 step, load S;
 *             alpha0, alpha and B of each collective inside a node fitted
 *             to commbench's times (the least absolute relative error over
 *             every size and P, by iteratively reweighted least squares);
 *             a collective whose ranks sit on several nodes takes
 *             alpha0 + alpha_inter steps + load / B_inter, with the
 *             inter-node figures stated (inter).
 *
 *   dist-allgather  AG(P, 16 N) + N^2 / (P r(N / sqrt(P)))
 *   dist-ring       t_b + (P - 1) max(t_b, SR(16 N / P)),  t_b = (N / P)^2 / r(N / P)
 *   dist-2d         AG_row(cols, 16 N / rows) + AG_col(rows, 16 N / cols)
 *                   + N^2 / (P r(N / sqrt(P))) + RS_row(cols, 16 N / rows)
 *
 * A communicator whose ranks sit on more than one node (gpus_per_node
 * consecutive ranks a node) runs at the inter-node alpha and B.
 * Efficiency is N^2 / (P r T), the rate over P times one device's.
 */

struct model_link {
	double alpha0; /* s: a collective's fixed cost and first step (fitted only) */
	double alpha;  /* s per further ring step (between nodes: per step) */
	double bw;     /* bytes/s */
};

#define MODEL_MAX_RATES 64

struct model_params {
	struct model_link intra[DIST_OP_COUNT]; /* fitted */
	double fit_err[DIST_OP_COUNT];         /* largest |relative residual| of the fit */
	double fit_median[DIST_OP_COUNT];      /* and the median one */
	int fit_points[DIST_OP_COUNT];         /* points it was fitted to (0: not measured) */
	struct model_link inter;               /* stated */
	int gpus_per_node;
	size_t nrates;                         /* r(N): N ascending */
	double rate_n[MODEL_MAX_RATES], rate[MODEL_MAX_RATES];
};

/* Fits m->intra to the rows of the commbench tables (ranks >= 2). 0, or
 * -1 with err when a collective the schemes use has fewer than three
 * points, or a table lacks a column. */
int model_fit(struct model_params *m, const struct csv_table *tables, size_t ntables, char *err,
	      size_t errlen);

/* Adds a one-device rate r(N) point (interactions/s); keeps N ascending,
 * the faster of two at the same N. 0, or -1 when full. */
int model_add_rate(struct model_params *m, double n, double rate);

/* r(N): log-log interpolation between the points, held at the ends. */
double model_rate(const struct model_params *m, double n);

/* A collective's time on `members` ranks; spans: they sit on several
 * nodes. */
double model_collective(const struct model_params *m, enum dist_op op, int members, double bytes,
			int spans);

/* Predicted seconds per evaluation of scheme at (n, p); *compute (may be
 * NULL) gets the part that is the forces. */
double model_time(const struct model_params *m, enum dist_scheme scheme, double n, int p,
		  double *compute);

/* N^2 / (P r(N) T). */
double model_efficiency(const struct model_params *m, enum dist_scheme scheme, double n, int p);

/* The largest P of 1, 2, 4, .. max_p before the efficiency first falls
 * below eff (0 when it starts below). */
int model_last_p(const struct model_params *m, enum dist_scheme s, double n, int max_p, double eff);

/* `bin/harness model ...` (argv[0] is "model"). Returns the exit status. */
int model_command(int argc, char **argv);

#endif
