/* scaling_model.c - bin/harness model: the distributed variants at P ranks, predicted from measured parts */
#define _POSIX_C_SOURCE 200809L
#include "scaling_model.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "../core/json_out.h"
#include "../core/results.h"
#include "../core/stats.h"
#include "commbench.h"
#include "dist_instance.h"

/* ---- the model ------------------------------------------------------------ */

/* A collective's ring steps and the bytes its slowest link carries (see
 * scaling_model.h). */
static void model_terms(enum dist_op op, int members, double bytes, double *steps, double *load)
{
	double n = members;
	switch (op) {
	case DIST_OP_ALLGATHER:
	case DIST_OP_REDUCE_SCATTER:
		*steps = n - 1;
		*load = (n - 1) / n * bytes;
		return;
	case DIST_OP_BROADCAST:
	case DIST_OP_REDUCE:
		*steps = n - 1;
		*load = bytes;
		return;
	default:
		*steps = 1;
		*load = bytes;
	}
}

double model_collective(const struct model_params *m, enum dist_op op, int members, double bytes,
			int spans)
{
	if (members <= 1 && op != DIST_OP_SENDRECV)
		return 0;
	const struct model_link *l = &m->intra[op];
	double steps, load;
	model_terms(op, members, bytes, &steps, &load);
	if (spans)
		return l->alpha0 + steps * m->inter.alpha + load / m->inter.bw;
	return l->alpha0 + (steps - 1) * l->alpha + load / l->bw;
}

/* A measured time and its regressors: t = alpha0 + alpha f[1] + f[2] / B
 * with f = (1, steps - 1, load), weighted by w / t^2 (relative error) with
 * w its robustness weight. */
struct model_point {
	int op;
	double f[3], t, w;
};

#define MODEL_TERMS 3

/* One weighted least-squares pass for op: the normal equations over the
 * terms that vary (a send/recv has one step: no per-step term), solved by
 * Gaussian elimination. Negative coefficients are held at zero. */
static void model_solve(struct model_params *m, const struct model_point *pt, size_t npt, int op)
{
	int use[MODEL_TERMS], k = 0;
	for (int j = 0; j < MODEL_TERMS; j++) {
		bool varies = false;
		for (size_t i = 0; i < npt && !varies; i++)
			varies = pt[i].op == op && pt[i].f[j] != 0;
		if (varies)
			use[k++] = j;
	}
	double a[MODEL_TERMS][MODEL_TERMS + 1] = { { 0 } }, c[MODEL_TERMS] = { 0 };
	for (size_t i = 0; i < npt; i++) {
		if (pt[i].op != op)
			continue;
		double w = pt[i].w / (pt[i].t * pt[i].t);
		for (int r = 0; r < k; r++) {
			for (int q = 0; q < k; q++)
				a[r][q] += w * pt[i].f[use[r]] * pt[i].f[use[q]];
			a[r][k] += w * pt[i].f[use[r]] * pt[i].t;
		}
	}
	for (int col = 0; col < k; col++) {
		int piv = col;
		for (int r = col + 1; r < k; r++)
			if (fabs(a[r][col]) > fabs(a[piv][col]))
				piv = r;
		if (!(fabs(a[piv][col]) > 0))
			return;
		for (int q = 0; q <= k; q++) {
			double x = a[col][q];
			a[col][q] = a[piv][q];
			a[piv][q] = x;
		}
		for (int r = 0; r < k; r++) {
			if (r == col)
				continue;
			double f = a[r][col] / a[col][col];
			for (int q = col; q <= k; q++)
				a[r][q] -= f * a[col][q];
		}
	}
	for (int r = 0; r < k; r++)
		c[use[r]] = fmax(a[r][k] / a[r][r], 0);
	m->intra[op].alpha0 = c[0];
	m->intra[op].alpha = c[1];
	m->intra[op].bw = c[2] > 0 ? 1 / c[2] : INFINITY;
}

static double model_point_time(const struct model_params *m, const struct model_point *p)
{
	const struct model_link *l = &m->intra[p->op];
	return l->alpha0 + p->f[1] * l->alpha + p->f[2] / l->bw;
}

/* The fit minimises the sum of |relative residuals| (iteratively
 * reweighted least squares), so that one size measured badly (a
 * collective's first call, say) moves it little; the median and the
 * largest residual are reported beside it. */
#define MODEL_FIT_ROUNDS 30

int model_fit(struct model_params *m, const struct csv_table *tables, size_t ntables, char *err,
	      size_t errlen)
{
	size_t npt = 0, cap = 0;
	for (size_t k = 0; k < ntables; k++)
		cap += tables[k].nrows;
	struct model_point *pt = calloc(cap ? cap : 1, sizeof *pt);
	double *res = calloc(cap ? cap : 1, sizeof *res); /* one collective's residuals */
	if (!pt || !res) {
		free(pt);
		free(res);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < ntables; k++) {
		const struct csv_table *t = &tables[k];
		for (size_t r = 0; r < t->nrows; r++) {
			double ranks, bytes, time, steps, load;
			const char *name = csv_table_named(t, r, "op");
			int op = 0;
			while (op < DIST_OP_COUNT && strcmp(commbench_op_names[op], name) != 0)
				op++;
			if (op == DIST_OP_COUNT ||
			    csv_table_double(t, r, "ranks", &ranks, err, errlen) != 0 ||
			    csv_table_double(t, r, "bytes", &bytes, err, errlen) != 0 ||
			    csv_table_double(t, r, "time_median_s", &time, err, errlen) != 0) {
				if (op == DIST_OP_COUNT)
					snprintf(err, errlen, "%s: row %zu: unknown collective '%s'", t->path,
						 r + 1, name);
				free(pt);
				free(res);
				return -1;
			}
			if (ranks < 2 || !(time > 0))
				continue;
			model_terms((enum dist_op)op, (int)ranks, bytes, &steps, &load);
			pt[npt++] = (struct model_point){ op, { 1, steps - 1, load }, time, 1 };
			m->fit_points[op]++;
		}
	}
	for (int op = 0; op < DIST_OP_COUNT; op++) {
		if (m->fit_points[op] < 3) {
			if (op == DIST_OP_ALLGATHER || op == DIST_OP_REDUCE_SCATTER || op == DIST_OP_SENDRECV) {
				snprintf(err, errlen,
					 "commbench measured %s at fewer than three sizes on two ranks or more",
					 commbench_op_names[op]);
				free(pt);
				free(res);
				return -1;
			}
			continue;
		}
		for (int round = 0; round < MODEL_FIT_ROUNDS; round++) {
			model_solve(m, pt, npt, op);
			for (size_t i = 0; i < npt; i++)
				if (pt[i].op == op)
					pt[i].w = 1 / fmax(fabs(model_point_time(m, &pt[i]) - pt[i].t) / pt[i].t, 1e-6);
		}
		size_t k = 0;
		for (size_t i = 0; i < npt; i++)
			if (pt[i].op == op) {
				res[k] = fabs(model_point_time(m, &pt[i]) - pt[i].t) / pt[i].t;
				m->fit_err[op] = fmax(m->fit_err[op], res[k++]);
			}
		m->fit_median[op] = stats_median(res, k);
	}
	free(res);
	free(pt);
	return 0;
}

int model_add_rate(struct model_params *m, double n, double rate)
{
	size_t i = 0;
	while (i < m->nrates && m->rate_n[i] < n)
		i++;
	if (i < m->nrates && m->rate_n[i] == n) {
		m->rate[i] = fmax(m->rate[i], rate);
		return 0;
	}
	if (m->nrates == MODEL_MAX_RATES)
		return -1;
	memmove(m->rate_n + i + 1, m->rate_n + i, (m->nrates - i) * sizeof *m->rate_n);
	memmove(m->rate + i + 1, m->rate + i, (m->nrates - i) * sizeof *m->rate);
	m->rate_n[i] = n;
	m->rate[i] = rate;
	m->nrates++;
	return 0;
}

double model_rate(const struct model_params *m, double n)
{
	if (m->nrates == 0)
		return NAN;
	if (n <= m->rate_n[0])
		return m->rate[0];
	for (size_t i = 1; i < m->nrates; i++)
		if (n <= m->rate_n[i]) {
			double f = log(n / m->rate_n[i - 1]) / log(m->rate_n[i] / m->rate_n[i - 1]);
			return exp(log(m->rate[i - 1]) + f * log(m->rate[i] / m->rate[i - 1]));
		}
	return m->rate[m->nrates - 1];
}

/* Whether ranks first, first + stride, ... (members of them) sit on more
 * than one node of gpus_per_node consecutive ranks. */
static int model_spans(const struct model_params *m, int first, int stride, int members)
{
	int g = m->gpus_per_node > 0 ? m->gpus_per_node : 1;
	return members > 1 && first / g != (first + stride * (members - 1)) / g;
}

double model_time(const struct model_params *m, enum dist_scheme scheme, double n, int p,
		  double *compute)
{
	/* a rank's n_i x n_j interactions run at the one-device rate of the
	 * square problem of as many, r(sqrt(n_i n_j)): N / sqrt(P) for the
	 * all-gather and the grid, a block's N / P for each ring step */
	double share = ceil(n / p), block = 16 * share, r = model_rate(m, n / sqrt(p));
	double forces = n * n / p / r, t;
	switch (scheme) {
	case DIST_RING: {
		double tb = share * share / model_rate(m, share);
		double tx = model_collective(m, DIST_OP_SENDRECV, p, block, model_spans(m, 0, 1, p));
		t = p > 1 ? tb + (p - 1) * fmax(tb, tx) : forces;
		forces = p * tb;
		break;
	}
	case DIST_2D: {
		int rows, cols;
		dist_grid_make(p, &rows, &cols);
		/* row 0 and column 0 stand for every row and column */
		int row_spans = model_spans(m, 0, 1, cols), col_spans = model_spans(m, 0, cols, rows);
		t = model_collective(m, DIST_OP_ALLGATHER, cols, cols * block, row_spans) +
		    model_collective(m, DIST_OP_ALLGATHER, rows, rows * block, col_spans) + forces +
		    model_collective(m, DIST_OP_REDUCE_SCATTER, cols, cols * block, row_spans);
		break;
	}
	default:
		t = model_collective(m, DIST_OP_ALLGATHER, p, p * block, model_spans(m, 0, 1, p)) + forces;
	}
	if (compute)
		*compute = forces;
	return t;
}

double model_efficiency(const struct model_params *m, enum dist_scheme scheme, double n, int p)
{
	return n * n / (p * model_rate(m, n) * model_time(m, scheme, n, p, NULL));
}

/* ---- the command -------------------------------------------------------- */

static const struct {
	enum dist_scheme scheme;
	const char *gpu, *cpu;
} model_schemes[] = {
	{ DIST_ALLGATHER, "dist-allgather", "dist-allgather-cpu" },
	{ DIST_RING, "dist-ring", "dist-ring-cpu" },
	{ DIST_2D, "dist-2d", "dist-2d-cpu" },
};
#define MODEL_NSCHEMES (sizeof model_schemes / sizeof *model_schemes)

/* The model's N (2^20 .. 2^26) and P (1, 2, 4, .., max_p). */
#define MODEL_LOG2_N_MIN 20
#define MODEL_LOG2_N_MAX 26

struct model_row {
	int scheme; /* index into model_schemes */
	double n;
	int p;
	double time, compute, eff;
	double measured; /* s per evaluation where a row measured it, else NAN */
};

struct model_out {
	const struct model_params *m;
	const struct model_row *rows;
	bool gpu;
	const char *const *comm_files;
	size_t ncomm;
	const char *from;
	char subtitle[256];
};

static const char *const model_columns[] = {
	"variant", "n", "ranks", "grid", "time_s", "compute_s", "efficiency_pct",
	"interactions_per_s", "measured_time_s", "measured_efficiency_pct",
};

static void model_format(const void *ctx, size_t i, char (*c)[RESULTS_CELL])
{
	const struct model_out *o = ctx;
	const struct model_row *r = &o->rows[i];
	int rows = 0, cols = 0;
	size_t k = 0;
	snprintf(c[k++], RESULTS_CELL, "%s", o->gpu ? model_schemes[r->scheme].gpu : model_schemes[r->scheme].cpu);
	snprintf(c[k++], RESULTS_CELL, "%.0f", r->n);
	snprintf(c[k++], RESULTS_CELL, "%d", r->p);
	if (model_schemes[r->scheme].scheme == DIST_2D)
		dist_grid_make(r->p, &rows, &cols);
	if (rows)
		snprintf(c[k++], RESULTS_CELL, "%dx%d", rows, cols);
	else
		c[k++][0] = '\0';
	snprintf(c[k++], RESULTS_CELL, "%.6g", r->time);
	snprintf(c[k++], RESULTS_CELL, "%.6g", r->compute);
	snprintf(c[k++], RESULTS_CELL, "%.6g", 100 * r->eff);
	snprintf(c[k++], RESULTS_CELL, "%.6g", r->n * r->n / r->time);
	if (isnan(r->measured)) {
		c[k++][0] = '\0';
		c[k++][0] = '\0';
	} else {
		snprintf(c[k++], RESULTS_CELL, "%.6g", r->measured);
		snprintf(c[k++], RESULTS_CELL, "%.6g",
			 100 * r->n * r->n / (r->p * model_rate(o->m, r->n) * r->measured));
	}
}

static void model_json(struct json_out *j, const void *ctx)
{
	const struct model_out *o = ctx;
	const struct model_params *m = o->m;
	json_kv_string(j, "command", "model");
	json_kv_string(j, "subtitle", o->subtitle);
	json_kv_string(j, "from", o->from);
	json_key(j, "commbench");
	json_begin_array(j);
	for (size_t i = 0; i < o->ncomm; i++)
		json_string(j, o->comm_files[i]);
	json_end_array(j);
	json_key(j, "intra_node");
	json_begin_object(j);
	for (int op = 0; op < DIST_OP_COUNT; op++) {
		if (!m->fit_points[op])
			continue;
		json_key(j, commbench_op_names[op]);
		json_begin_object(j);
		json_kv_double(j, "alpha0_s", m->intra[op].alpha0);
		json_kv_double(j, "alpha_s", m->intra[op].alpha);
		json_kv_double(j, "bw_bytes_per_s", m->intra[op].bw);
		json_kv_int(j, "points", m->fit_points[op]);
		json_kv_double(j, "median_rel_residual", m->fit_median[op]);
		json_kv_double(j, "max_rel_residual", m->fit_err[op]);
		json_end_object(j);
	}
	json_end_object(j);
	json_key(j, "inter_node");
	json_begin_object(j);
	json_kv_double(j, "alpha_s", m->inter.alpha);
	json_kv_double(j, "bw_bytes_per_s", m->inter.bw);
	json_kv_int(j, "gpus_per_node", m->gpus_per_node);
	json_end_object(j);
}

static void model_help(void)
{
	printf("usage: bin/harness model --comm FILE[,FILE...] --from DIR [options]\n"
	       "\n"
	       "Predicts dist-allgather, dist-ring and dist-2d at P = 1, 2, 4, .. --max-p ranks\n"
	       "and N = 2^20 .. 2^26 from what was measured: the collectives (commbench CSVs,\n"
	       "fitted inside a node), the one-device rate r(N) and the measured P >= 2 rows\n"
	       "(DIR/scaling-p*.csv and weak-scaling-p*.csv), which the prediction is checked\n"
	       "against. Between nodes the latency and bandwidth are stated, not measured.\n"
	       "\n"
	       "  --device gpu|cpu       which variants' rows (gpu)\n"
	       "  --rates FILE[,FILE]    more one-device rows of the rank kernel for r(N)\n"
	       "                         (a suite over many N, such as fig31-6.csv)\n"
	       "  --gpus-per-node G      ranks of a node (8)\n"
	       "  --inter-bw GB/s        bandwidth per rank between nodes (50: InfiniBand NDR,\n"
	       "                         400 Gb/s, one port per GPU)\n"
	       "  --inter-lat US         latency of a ring step between nodes (5)\n"
	       "  --max-p P              largest P (1024)\n"
	       "  --out FILE             the predictions CSV (and FILE.meta.json)\n");
}

/* Reads the comma-separated commbench files. 0 or -1 with err. */
static int model_read_comm(char *list, struct csv_table *t, const char **names, size_t *n,
			   size_t max, char *err, size_t errlen)
{
	for (char *save, *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (*n == max) {
			snprintf(err, errlen, "--comm takes at most %zu files", max);
			return -1;
		}
		if (csv_table_read(f, &t[*n], err, errlen) != 0)
			return -1;
		names[(*n)++] = f;
	}
	return *n ? 0 : (snprintf(err, errlen, "--comm names no file"), -1);
}

/* The one-device rate points and the measured P >= 2 rows of DIR. */
struct model_run {
	int scheme; /* index into model_schemes */
	double n;
	int p;
	double time; /* s per evaluation, the median */
};

struct model_measured {
	size_t count;
	struct model_run row[256];
};

/* One results CSV: its valid one-rank rows of the rank kernel (auto, or
 * cpu-simd) as r(N) points, its distributed rows on two ranks or more as
 * measured runs (meas may be NULL). 0 or -1 with err. */
static int model_read_file(const char *path, bool gpu, struct model_params *m,
			   struct model_measured *meas, char *err, size_t errlen)
{
	const char *base = gpu ? "auto" : "cpu-simd";
	struct csv_table t;
	int rc = 0;
	if (csv_table_read(path, &t, err, errlen) != 0)
		return -1;
	for (size_t r = 0; r < t.nrows && rc == 0; r++) {
		const char *v = csv_table_named(&t, r, "variant"), *valid = csv_table_named(&t, r, "valid");
		double n, ranks, rate, time;
		if (strcmp(valid, "1") != 0 || strcmp(csv_table_named(&t, r, "mode"), "forces") != 0 ||
		    csv_table_double(&t, r, "n", &n, err, errlen) != 0 ||
		    csv_table_double(&t, r, "ranks", &ranks, err, errlen) != 0 ||
		    csv_table_double(&t, r, "interactions_per_s", &rate, err, errlen) != 0 ||
		    csv_table_double(&t, r, "time_median_s", &time, err, errlen) != 0)
			continue;
		if (strcmp(v, base) == 0 && ranks == 1) {
			rc = model_add_rate(m, n, rate);
			if (rc)
				snprintf(err, errlen, "more than %d one-device rates", MODEL_MAX_RATES);
			continue;
		}
		for (size_t s = 0; meas && s < MODEL_NSCHEMES; s++)
			if (strcmp(v, gpu ? model_schemes[s].gpu : model_schemes[s].cpu) == 0 && ranks >= 2 &&
			    meas->count < sizeof meas->row / sizeof *meas->row)
				meas->row[meas->count++] = (struct model_run){ (int)s, n, (int)ranks, time };
	}
	csv_table_free(&t);
	return rc;
}

/* Every scaling-p*.csv and weak-scaling-p*.csv of dir, and the files of
 * rates (comma-separated, may be NULL) for more r(N) points. */
static int model_read_runs(const char *dir, char *rates, bool gpu, struct model_params *m,
			   struct model_measured *meas, char *err, size_t errlen)
{
	char pattern[1024];
	glob_t g;
	int rc = 0;
	snprintf(pattern, sizeof pattern, "%s/*scaling-p*.csv", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		snprintf(err, errlen, "%s holds no scaling-p*.csv or weak-scaling-p*.csv", dir);
		return -1;
	}
	for (size_t f = 0; f < g.gl_pathc && rc == 0; f++)
		rc = model_read_file(g.gl_pathv[f], gpu, m, meas, err, errlen);
	globfree(&g);
	char *save;
	for (char *f = rates ? strtok_r(rates, ",", &save) : NULL; f && rc == 0; f = strtok_r(NULL, ",", &save))
		rc = model_read_file(f, gpu, m, NULL, err, errlen);
	if (rc == 0 && m->nrates == 0) {
		snprintf(err, errlen, "%s has no valid one-rank %s row to take r(N) from", dir,
			 gpu ? "auto" : "cpu-simd");
		rc = -1;
	}
	return rc;
}

/* Options of the command; CLI_OK or CLI_USAGE (said). */
struct model_opts {
	const char *comm, *rates; /* comma-separated file lists */
	const char *from, *out;
	bool gpu, help;
	int max_p;
};

static int model_options(int argc, char **argv, struct model_opts *o, struct model_params *m)
{
	static const char *const valued[] = { "--comm", "--rates", "--from", "--out", "--device",
					       "--gpus-per-node", "--inter-bw", "--inter-lat", "--max-p" };
	const size_t nvalued = sizeof valued / sizeof *valued;
	char msg[256];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		double x = 0;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			o->help = true;
			continue;
		}
		const int found = cli_take_one_of(argc, argv, &i, valued, nvalued, &val, "model");
		if (found < 0)
			return CLI_USAGE;
		const size_t k = (size_t)found;
		/* the numbers: ranks a node, GB/s, microseconds, the largest P */
		static const double lo[] = { 1, 1e-3, 0, 2 }, hi[] = { 1024, 1e6, 1e6, 65536 };
		if (k >= 5 && cli_parse_double(valued[k], val, lo[k - 5], hi[k - 5], &x, msg, sizeof msg) != CLI_OK)
			return cli_usage_error("model", msg);
		if ((k == 5 || k == 8) && x != floor(x)) {
			snprintf(msg, sizeof msg, "%s takes a whole number, not %s", valued[k], val);
			return cli_usage_error("model", msg);
		}
		switch (k) {
		case 0:
			o->comm = val;
			break;
		case 1:
			o->rates = val;
			break;
		case 2:
			o->from = val;
			break;
		case 3:
			o->out = val;
			break;
		case 4:
			if (strcmp(val, "gpu") != 0 && strcmp(val, "cpu") != 0)
				return cli_usage_error("model", "--device takes gpu or cpu");
			o->gpu = strcmp(val, "gpu") == 0;
			break;
		case 5:
			m->gpus_per_node = (int)x;
			break;
		case 6:
			m->inter.bw = x * 1e9;
			break;
		case 7:
			m->inter.alpha = x * 1e-6;
			break;
		default:
			o->max_p = (int)x;
		}
	}
	if (o->help)
		return CLI_OK;
	if (!o->comm || !o->from)
		return cli_usage_error("model", "--comm FILE[,FILE...] and --from DIR are needed (see --help)");
	return CLI_OK;
}

/* The largest P (1, 2, 4, ..) before the efficiency first falls below
 * eff: where the variant stops scaling. */
int model_last_p(const struct model_params *m, enum dist_scheme s, double n, int max_p, double eff)
{
	int last = 0;
	for (int p = 1; p <= max_p && model_efficiency(m, s, n, p) >= eff; p *= 2)
		last = p;
	return last;
}

static void model_print(const struct model_params *m, const struct model_opts *o,
			const struct model_measured *meas)
{
	printf("inside a node, fitted to commbench: t = alpha0 + alpha (steps - 1) + bytes / B\n");
	printf("  %-15s %10s %10s %10s %7s %16s %14s\n", "collective", "alpha0_us", "alpha_us", "B_GB/s",
	       "points", "median_residual", "max_residual");
	for (int op = 0; op < DIST_OP_COUNT; op++)
		if (m->fit_points[op])
			printf("  %-15s %10.2f %10.2f %10.1f %7d %15.1f%% %13.1f%%\n", commbench_op_names[op],
			       m->intra[op].alpha0 * 1e6, m->intra[op].alpha * 1e6, m->intra[op].bw * 1e-9,
			       m->fit_points[op], 100 * m->fit_median[op], 100 * m->fit_err[op]);
	printf("between nodes, stated: every step %.2f us, B %.1f GB/s per rank; %d ranks a node\n",
	       m->inter.alpha * 1e6, m->inter.bw * 1e-9, m->gpus_per_node);
	printf("\nagainst the measured rows (%s):\n", o->from);
	printf("  %-20s %10s %4s %12s %12s %8s\n", "variant", "N", "P", "measured_s", "model_s", "error");
	for (size_t i = 0; i < meas->count; i++) {
		double pred = model_time(m, model_schemes[meas->row[i].scheme].scheme, meas->row[i].n,
					 meas->row[i].p, NULL);
		printf("  %-20s %10.0f %4d %12.4g %12.4g %+7.1f%%\n",
		       o->gpu ? model_schemes[meas->row[i].scheme].gpu : model_schemes[meas->row[i].scheme].cpu,
		       meas->row[i].n, meas->row[i].p, meas->row[i].time, pred,
		       100 * (pred - meas->row[i].time) / meas->row[i].time);
	}
	printf("\nwhere each stops scaling: the largest P with efficiency >= 90 %% / >= 50 %%\n");
	printf("  %10s", "N");
	for (size_t s = 0; s < MODEL_NSCHEMES; s++)
		printf(" %20s", o->gpu ? model_schemes[s].gpu : model_schemes[s].cpu);
	printf("\n");
	for (int e = MODEL_LOG2_N_MIN; e <= MODEL_LOG2_N_MAX; e++) {
		double n = ldexp(1, e);
		printf("  %10.0f", n);
		for (size_t s = 0; s < MODEL_NSCHEMES; s++) {
			char cell[32];
			snprintf(cell, sizeof cell, "%d / %d", model_last_p(m, model_schemes[s].scheme, n, o->max_p, 0.9),
				 model_last_p(m, model_schemes[s].scheme, n, o->max_p, 0.5));
			printf(" %20s", cell);
		}
		printf("\n");
	}
}

int model_command(int argc, char **argv)
{
	struct model_params m = { .inter = { .alpha = 5e-6, .bw = 50e9 }, .gpus_per_node = 8 };
	struct model_opts o = { .gpu = true, .max_p = 1024 };
	struct csv_table comm[8];
	const char *names[8];
	size_t ncomm = 0;
	char err[1024];
	int st = model_options(argc, argv, &o, &m);
	if (st != CLI_OK || o.help) {
		if (o.help)
			model_help();
		return st;
	}
	static struct model_measured meas;
	meas.count = 0;
	/* the lists are cut up in place: copies of them (names[] points in) */
	char *comm_list = strdup(o.comm), *rate_list = o.rates ? strdup(o.rates) : NULL;
	int status = CLI_OK;
	if (!comm_list || (o.rates && !rate_list)) {
		status = cli_usage_error("model", "out of memory");
		goto out_free;
	}
	if (model_read_comm(comm_list, comm, names, &ncomm, 8, err, sizeof err) != 0 ||
	    model_fit(&m, comm, ncomm, err, sizeof err) != 0 ||
	    model_read_runs(o.from, rate_list, o.gpu, &m, &meas, err, sizeof err) != 0) {
		status = cli_usage_error("model", err);
		goto out_free;
	}
	model_print(&m, &o, &meas);
	if (o.out) {
		size_t cap = MODEL_NSCHEMES * (MODEL_LOG2_N_MAX - MODEL_LOG2_N_MIN + 1) * 20, nrows = 0;
		struct model_row *rows = calloc(cap, sizeof *rows);
		if (!rows) {
			status = cli_usage_error("model", "out of memory");
			goto out_free;
		}
		for (size_t s = 0; s < MODEL_NSCHEMES; s++)
			for (int e = MODEL_LOG2_N_MIN; e <= MODEL_LOG2_N_MAX; e++)
				for (int p = 1; p <= o.max_p && nrows < cap; p *= 2) {
					struct model_row *r = &rows[nrows++];
					*r = (struct model_row){ (int)s, ldexp(1, e), p, 0, 0, 0, NAN };
					r->time = model_time(&m, model_schemes[s].scheme, r->n, p, &r->compute);
					r->eff = model_efficiency(&m, model_schemes[s].scheme, r->n, p);
					for (size_t i = 0; i < meas.count; i++)
						if (meas.row[i].scheme == (int)s && meas.row[i].n == r->n &&
						    meas.row[i].p == p)
							r->measured = meas.row[i].time;
				}
		struct model_out mo = { &m, rows, o.gpu, names, ncomm, o.from, "" };
		snprintf(mo.subtitle, sizeof mo.subtitle,
			 "fitted to %.100s inside a node; between nodes %.3g us and %.3g GB/s a rank, %d ranks a node",
			 comm[0].nrows ? csv_table_named(&comm[0], 0, "device_name") : "?", m.inter.alpha * 1e6,
			 m.inter.bw * 1e-9, m.gpus_per_node);
		struct results_table table = { "nbody-harness-model/1", model_columns,
					       sizeof model_columns / sizeof *model_columns, nrows, rows,
					       model_format, model_json, &mo };
		struct results_meta meta = { .argc = argc, .argv = argv };
		if (results_write_table(o.out, &table, &meta, err, sizeof err) != 0) {
			fprintf(stderr, "harness: model: %s\n", err);
			status = CLI_FAILED;
		} else {
			printf("wrote %s\n", o.out);
		}
		free(rows);
	}
out_free:
	for (size_t i = 0; i < ncomm; i++)
		csv_table_free(&comm[i]);
	free(comm_list);
	free(rate_list);
	return status;
}
