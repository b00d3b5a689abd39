/* commbench.c - bin/harness commbench: the collectives of the distributed variants, timed alone */
#define _POSIX_C_SOURCE 200809L
#include "commbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../cli.h"
#include "../core/json_out.h"
#include "../core/results.h"
#include "instance.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"
#include "dist.h"
#include "dist_gpu.h"
#include "dist_instance.h"

/*
 * Under mpirun -np P, every rank runs each collective of enum dist_op on
 * every size from 1 KiB to --max-bytes (a factor of 4 apart), as
 * nccl-tests and the OSU micro-benchmarks do: a warm-up call, a barrier
 * before the clock, the slowest rank's time per call (timing_measure's
 * samples, so that every rank takes the same decisions). GPU ranks use
 * NCCL on device buffers, CPU ranks MPI on host buffers. Rank 0 writes one
 * row per (collective, size): the times and nccl-tests' bandwidths, which
 * `bin/harness model` fits.
 */

const char *const commbench_op_names[DIST_OP_COUNT] = {
	[DIST_OP_ALLGATHER] = "allgather",
	[DIST_OP_REDUCE_SCATTER] = "reduce_scatter",
	[DIST_OP_BROADCAST] = "broadcast",
	[DIST_OP_REDUCE] = "reduce",
	[DIST_OP_SENDRECV] = "sendrecv",
};

double commbench_bus_factor(enum dist_op op, int ranks)
{
	if (op == DIST_OP_ALLGATHER || op == DIST_OP_REDUCE_SCATTER)
		return ranks > 0 ? (double)(ranks - 1) / ranks : 0;
	return 1;
}

/* The smallest size, and the factor between sizes. */
#define COMMBENCH_MIN_BYTES ((size_t)1 << 10)
#define COMMBENCH_STEP 4
/* Untimed calls of each collective before its sizes are timed. */
#define COMMBENCH_WARMUP 3

struct commbench_row {
	enum dist_op op;
	size_t bytes;
	struct timing_result t;
};

/* One rank's buffers: the GPU's, or host ones for CPU ranks. */
struct commbench {
	bool gpu;
	struct dist_gpu_bench *gb;
	float *send, *recv;
	dist_group world;
	enum dist_op op;
	size_t bytes;
	char error[320];
};

/* One op of c->bytes on CPU ranks, through MPI. 0 or -1. */
static int commbench_cpu_op(struct commbench *c)
{
	int p = dist_size(), rank = dist_rank();
	size_t count = c->bytes / sizeof(float), part = count / (size_t)p;
	dist_request req[2];
	switch (c->op) {
	case DIST_OP_ALLGATHER:
		return dist_allgather(c->recv, part * sizeof(float));
	case DIST_OP_REDUCE_SCATTER:
		return dist_group_reduce_scatter(&c->world, c->send, c->recv, part);
	case DIST_OP_BROADCAST:
		return dist_bcast(c->send, c->bytes, 0);
	case DIST_OP_REDUCE:
		return dist_reduce_sum(c->send, c->recv, count, 0);
	case DIST_OP_SENDRECV:
		if (p == 1)
			return 0;
		if (dist_irecv(c->recv, c->bytes, (rank + p - 1) % p, &req[0]) != 0 ||
		    dist_isend(c->send, c->bytes, (rank + 1) % p, &req[1]) != 0)
			return -1;
		return dist_wait(req, 2);
	default:
		return -1;
	}
}

/* timing_fn: reps of the current op after a barrier; every rank gets the
 * slowest rank's time (and -1 if any failed). */
static int commbench_timed(void *ctx, int reps, double *seconds)
{
	struct commbench *c = ctx;
	if (dist_barrier() != 0)
		dist_fatal("MPI_Barrier failed");
	double t0 = timing_now();
	int rc = 0;
	if (c->gpu) {
		rc = dist_gpu_bench_run(c->gb, c->op, c->bytes, reps);
		if (rc)
			snprintf(c->error, sizeof c->error, "%s", dist_gpu_bench_error(c->gb));
	} else {
		for (int r = 0; r < reps && !rc; r++)
			rc = commbench_cpu_op(c);
		if (rc)
			snprintf(c->error, sizeof c->error, "an MPI collective failed");
	}
	double mx[2] = { timing_now() - t0, rc != 0 };
	if (dist_allreduce_max(mx, 2) != 0)
		dist_fatal("MPI_Allreduce failed");
	if (mx[1] != 0) {
		dist_agree(rc != 0, c->error, sizeof c->error);
		return -1;
	}
	*seconds = mx[0];
	return 0;
}

static void commbench_help(void)
{
	printf("usage: mpirun -np P bin/harness commbench [options]\n"
	       "\n"
	       "Times the collectives the distributed variants are made of (all-gather,\n"
	       "reduce-scatter, broadcast, reduce to rank 0, and the ring's send/recv) alone,\n"
	       "on every size from 1 KiB to --max-bytes, a factor of 4 apart, with nccl-tests'\n"
	       "sizes and bandwidths; `bin/harness model` fits them.\n"
	       "\n"
	       "  --device gpu|cpu   GPU ranks (NCCL; the default where they can run) or CPU\n"
	       "                     ranks (MPI)\n"
	       "  --max-bytes B      largest size (256Mi; K, M, G, Ki, Mi, Gi suffixes)\n"
	       "  --min-time S       measure each size at least S seconds (0.05)\n"
	       "  --max-time S       and at most S seconds (1)\n"
	       "  --out FILE         the CSV (default results/local/commbench-p<P>.csv),\n"
	       "                     with its sidecar FILE.meta.json\n"
	       "  --quiet            no table on the screen\n");
}

/* "256Mi", "4K", "1048576": bytes, or 0 when s is no size. */
static size_t commbench_parse_bytes(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	double unit = 1;
	if (strcmp(end, "K") == 0)
		unit = 1e3;
	else if (strcmp(end, "M") == 0)
		unit = 1e6;
	else if (strcmp(end, "G") == 0)
		unit = 1e9;
	else if (strcmp(end, "Ki") == 0)
		unit = 1024.0;
	else if (strcmp(end, "Mi") == 0)
		unit = 1024.0 * 1024;
	else if (strcmp(end, "Gi") == 0)
		unit = 1024.0 * 1024 * 1024;
	else if (*end)
		return 0;
	v *= unit;
	return end != s && v >= 1 && v <= 64e9 ? (size_t)v : 0;
}

struct commbench_table {
	const struct commbench_row *rows;
	int ranks;
	const char *device;
	const char *device_name;
};

static const char *const commbench_columns[] = {
	"op", "device", "device_name", "ranks", "bytes", "samples", "time_min_s", "time_median_s",
	"time_max_s", "noise_pct", "algbw_gbps", "busbw_gbps",
};

static void commbench_format(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct commbench_table *t = ctx;
	const struct commbench_row *row = &t->rows[r];
	double med = row->t.s.median, algbw = (double)row->bytes / med * 1e-9;
	size_t i = 0;
	snprintf(c[i++], RESULTS_CELL, "%s", commbench_op_names[row->op]);
	snprintf(c[i++], RESULTS_CELL, "%s", t->device);
	snprintf(c[i++], RESULTS_CELL, "%s", t->device_name);
	snprintf(c[i++], RESULTS_CELL, "%d", t->ranks);
	snprintf(c[i++], RESULTS_CELL, "%zu", row->bytes);
	snprintf(c[i++], RESULTS_CELL, "%zu", row->t.count);
	snprintf(c[i++], RESULTS_CELL, "%.6g", row->t.s.min);
	snprintf(c[i++], RESULTS_CELL, "%.6g", med);
	snprintf(c[i++], RESULTS_CELL, "%.6g", row->t.s.max);
	snprintf(c[i++], RESULTS_CELL, "%.6g", 100.0 * row->t.s.rel_stddev);
	snprintf(c[i++], RESULTS_CELL, "%.6g", algbw);
	snprintf(c[i++], RESULTS_CELL, "%.6g", algbw * commbench_bus_factor(row->op, t->ranks));
}

static void commbench_json(struct json_out *j, const void *ctx)
{
	const struct commbench_table *t = ctx;
	json_kv_string(j, "command", "commbench");
	json_kv_int(j, "ranks", t->ranks);
	json_kv_string(j, "sizes", "nccl-tests: all-gather and reduce-scatter the whole buffer, "
				   "broadcast and reduce the buffer, sendrecv what a rank sends");
}

/* Parses the options into the arguments; CLI_OK or CLI_USAGE (said). */
static int commbench_options(int argc, char **argv, bool *gpu, size_t *max_bytes,
			     struct timing_opts *topt, const char **out, bool *quiet, bool *help)
{
	static const char *const valued[] = { "--device", "--max-bytes", "--min-time", "--max-time",
					       "--out" };
	const size_t nvalued = sizeof valued / sizeof *valued;
	char msg[256];
	*gpu = variant_available(variant_find("dist-allgather"), NULL);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			*help = true;
			continue;
		}
		if (strcmp(a, "--quiet") == 0) {
			*quiet = true;
			continue;
		}
		const int found = cli_take_one_of(argc, argv, &i, valued, nvalued, &val, "commbench");
		if (found < 0)
			return CLI_USAGE;
		const size_t k = (size_t)found;
		switch (k) {
		case 0:
			if (strcmp(val, "gpu") != 0 && strcmp(val, "cpu") != 0)
				return cli_usage_error("commbench", "--device takes gpu or cpu");
			*gpu = strcmp(val, "gpu") == 0;
			break;
		case 1:
			*max_bytes = commbench_parse_bytes(val);
			if (*max_bytes < COMMBENCH_MIN_BYTES)
				return cli_usage_error("commbench", "--max-bytes takes a size from 1Ki to 64G, such as 256Mi");
			break;
		case 2:
		case 3:
			if (cli_parse_double(valued[k], val, 0, 3600, k == 2 ? &topt->min_time : &topt->max_time,
					     msg, sizeof msg) != CLI_OK)
				return cli_usage_error("commbench", msg);
			break;
		default:
			*out = val;
		}
	}
	return CLI_OK;
}

int commbench_command(int argc, char **argv)
{
	bool gpu, quiet = false, help = false;
	size_t max_bytes = (size_t)256 << 20;
	const char *out = NULL;
	char err[512], path[256];
	struct timing_opts topt;
	timing_opts_default(&topt);
	topt.min_time = 0.05;
	topt.max_time = 1;
	topt.max_noise = 2;
	int st = commbench_options(argc, argv, &gpu, &max_bytes, &topt, &out, &quiet, &help);
	if (st != CLI_OK)
		return st;
	if (help) {
		commbench_help();
		return CLI_OK;
	}
	const char *why = dist_unavailable_reason();
	if (gpu)
		variant_available(variant_find("dist-allgather"), &why);
	if (why) {
		snprintf(err, sizeof err, "%s ranks cannot run here: %s", gpu ? "GPU" : "CPU", why);
		return cli_usage_error("commbench", err);
	}
	if (!out) {
		if (dist_rank() == 0)
			atomic_mkdir_p("results/local");
		snprintf(path, sizeof path, "results/local/commbench-p%d.csv", dist_size());
		out = path;
	}
	int unwritable = dist_rank() == 0 && atomic_path_writable(out, err, sizeof err) != 0;
	if (dist_agree(unwritable, err, sizeof err) >= 0)
		return cli_usage_error("commbench", err);

	/* sizes divisible by 4 bytes x P, from 1 KiB up */
	size_t unit = sizeof(float) * (size_t)dist_size(), nsizes = 0;
	for (size_t b = COMMBENCH_MIN_BYTES; b <= max_bytes; b *= COMMBENCH_STEP)
		nsizes++;
	struct commbench c = { .gpu = gpu };
	struct commbench_row *rows = calloc(nsizes * DIST_OP_COUNT, sizeof *rows);
	size_t nrows = 0, alloc = max_bytes / unit * unit + unit;
	int status = CLI_OK;
	if (!rows)
		dist_fatal("out of memory");
	if (gpu) {
		if (dist_gpu_bench_create(&c.gb, alloc, err, sizeof err) != 0) {
			fprintf(stderr, "harness: commbench: %s\n", err);
			free(rows);
			return CLI_FAILED;
		}
	} else {
		c.send = calloc(alloc / sizeof(float), sizeof(float));
		c.recv = calloc(alloc / sizeof(float), sizeof(float));
		int failed = !c.send || !c.recv;
		snprintf(err, sizeof err, "out of memory for two buffers of %zu bytes", alloc);
		if (dist_agree(failed, err, sizeof err) >= 0 ||
		    dist_group_split(0, dist_rank(), &c.world) != 0) {
			fprintf(stderr, "harness: commbench: %s\n", err);
			status = CLI_FAILED;
			goto out_free;
		}
	}
	for (int op = 0; op < DIST_OP_COUNT && status == CLI_OK; op++) {
		/* NCCL sets a collective's channels up lazily, on its first calls
		 * with each protocol: a few untimed calls at the smallest and the
		 * largest size keep that out of the first row's times */
		double ignored;
		c.op = (enum dist_op)op;
		for (int end = 0; end < 2 && status == CLI_OK; end++) {
			c.bytes = (end ? max_bytes : COMMBENCH_MIN_BYTES) / unit * unit;
			if (commbench_timed(&c, COMMBENCH_WARMUP, &ignored) != 0) {
				fprintf(stderr, "harness: commbench: %s of %zu bytes: %s\n",
					commbench_op_names[op], c.bytes, c.error);
				status = CLI_FAILED;
			}
		}
		for (size_t b = COMMBENCH_MIN_BYTES; b <= max_bytes && status == CLI_OK; b *= COMMBENCH_STEP) {
			struct commbench_row *row = &rows[nrows];
			c.op = (enum dist_op)op;
			c.bytes = row->bytes = b / unit * unit;
			row->op = c.op;
			if (timing_measure(commbench_timed, &c, &topt, &row->t) != 0) {
				fprintf(stderr, "harness: commbench: %s of %zu bytes: %s\n",
					commbench_op_names[op], c.bytes, c.error);
				status = CLI_FAILED;
				break;
			}
			nrows++;
			if (!quiet && dist_rank() == 0)
				printf("%-15s %11zu B  %10.3f us  busbw %8.2f GB/s\n", commbench_op_names[op],
				       row->bytes, row->t.s.median * 1e6,
				       (double)row->bytes / row->t.s.median * 1e-9 *
					       commbench_bus_factor(c.op, dist_size()));
		}
	}
	if (status == CLI_OK) {
		struct sysinfo_rank *facts = NULL;
		int nfacts = dist_rank_facts_gather(&facts);
		char name[128] = "";
		struct sysinfo_host h;
		if (gpu) {
			char bus[32];
			dist_gpu_device(name, sizeof name, bus, sizeof bus);
		} else {
			sysinfo_host_read(&h);
			snprintf(name, sizeof name, "%.127s", h.cpu_model);
		}
		struct commbench_table ct = { rows, dist_size(), gpu ? "gpu" : "cpu", name };
		struct results_table table = { "nbody-harness-commbench/1", commbench_columns,
					       sizeof commbench_columns / sizeof *commbench_columns,
					       nrows, rows, commbench_format, commbench_json, &ct };
		struct results_meta meta = { .argc = argc, .argv = argv, .timing = &topt, .ranks = facts,
					     .nranks = nfacts };
		int bad = dist_rank() == 0 && results_write_table(out, &table, &meta, err, sizeof err) != 0;
		if (dist_agree(bad, err, sizeof err) >= 0) {
			fprintf(stderr, "harness: commbench: %s\n", err);
			status = CLI_FAILED;
		} else if (!quiet && dist_rank() == 0) {
			printf("wrote %s\n", out);
		}
		free(facts);
	}
out_free:
	for (size_t r = 0; r < nrows; r++)
		timing_result_free(&rows[r].t);
	free(rows);
	dist_gpu_bench_destroy(c.gb);
	dist_group_free(&c.world);
	free(c.send);
	free(c.recv);
	return status;
}
