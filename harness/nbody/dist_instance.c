/* dist_instance.c - a distributed variant on the ranks of a run: decomposition, exchange, timing */
#define _POSIX_C_SOURCE 200809L
#include "dist_instance.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/nbody/nbody_cpu.h"
#include "dist.h"
#include "leapfrog.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"

/*
 * The decomposition. Rank r owns the block of share = ceil(N / P) bodies
 * starting at r x share; the last blocks are completed with zero-mass
 * bodies at the origin (never dropped bodies: N = 1000 on 3 ranks is 334,
 * 334 and 332 real bodies). Every rank computes the forces on its real
 * bodies from all P x share, padding included: with eps > 0 a zero mass
 * adds exactly zero.
 *
 * dist-allgather: every evaluation all-gathers the blocks (in place), then
 * runs the rank kernel on the rank's bodies against all of them.
 * dist-ring: block k of the ring (the one from rank r - k) is the source of
 * step k; while the rank computes with it, it sends it on to rank r + 1
 * and receives block k + 1 from rank r - 1 (P - 1 transfers, each under
 * one step's forces; Dorband, Hemsendorf and Merritt 2003). Two receive
 * buffers alternate.
 * dist-2d: the ranks form a rows x cols grid (dist_layout_make). Row i
 * all-gathers its members' blocks (the i-block, N / rows bodies), column j
 * its members' (the j-block, N / cols bodies); the rank computes the
 * partial forces on the i-block from the j-block, and a reduce-scatter
 * along the row sums the partials and leaves each rank the forces on its
 * own block, which it integrates. Per rank and evaluation that moves
 * (2 (cols - 1) + rows - 1) blocks instead of the all-gather's P - 1:
 * O(N / sqrt(P)) (Makino 2002; the "expand and fold" of Plimpton's force
 * decomposition, J. Comput. Phys. 117, 1995).
 *
 * This file holds the CPU ranks (MPI) and what both kinds share; the GPU
 * ranks' buffers, streams and NCCL calls are in dist_gpu.cu.
 */

#define DIST_NAME_LEN 128
#define DIST_DEVICES_LEN 200 /* fits a CSV cell */

struct dist_instance {
	const struct variant *v;
	enum dist_scheme scheme;
	struct dist_layout lay;
	float eps2;
	/* CPU: all-gather: the ranks' blocks; ring: own block, two buffers;
	 * 2d: the i-block (cols blocks), then the j-block (rows blocks) */
	float *blocks4;
	float *vel4, *acc4;   /* CPU: this rank's block */
	float *iacc4;         /* CPU, 2d: partial forces on the i-block */
	float *record4;       /* CPU ring: every block of the recording pass, by origin */
	int recorded;         /* the last pass recorded them */
	dist_group row, col;  /* CPU, 2d: the rank's row and column */
	int skip_last;        /* the planted bug (HARNESS_DIST_FAULT) */
	int fault;            /* planted exchange fault: 0, 'c'orrupt or 'l'ost */
	struct dist_gpu *gpu; /* GPU ranks */
	int have_acc;
	int counted;          /* traffic holds the first evaluation's counts */
	struct dist_traffic traffic_most, traffic_least;
	struct dist_spread *spread;
	size_t nspread, spread_cap;
	char devices[DIST_DEVICES_LEN];
	char error[256];
};

void dist_layout_make(struct dist_layout *l, size_t n, int ranks, int rank)
{
	l->n = n;
	l->ranks = ranks;
	l->rank = rank;
	l->share = (n + (size_t)ranks - 1) / (size_t)ranks;
	l->first = (size_t)rank * l->share;
	l->own = l->first >= n ? 0 : n - l->first < l->share ? n - l->first : l->share;
	dist_grid_make(ranks, &l->rows, &l->cols);
	l->row = rank / l->cols;
	l->col = rank % l->cols;
}

void dist_grid_make(int ranks, int *rows, int *cols)
{
	int c = 1;
	for (int d = 1; (long)d * d <= ranks; d++)
		if (ranks % d == 0)
			c = d;
	*cols = c;
	*rows = ranks / c;
}

double dist_traffic_formula(enum dist_scheme scheme, const struct dist_layout *l)
{
	double block = (double)l->share * 4 * sizeof(float);
	if (scheme == DIST_2D)
		return (2.0 * (l->cols - 1) + (l->rows - 1)) * block;
	return (double)(l->ranks - 1) * block;
}

/* ---- CPU ranks ---------------------------------------------------------- */

static float *dist_own4(const struct dist_instance *d)
{
	switch (d->scheme) {
	case DIST_ALLGATHER:
		return d->blocks4 + 4 * d->lay.first;
	case DIST_2D:
		return d->blocks4 + 4 * d->lay.share * (size_t)d->lay.col;
	default:
		return d->blocks4;
	}
}

/* dist-2d's j-block, after the cols blocks of the i-block. */
static float *dist_jblock4(const struct dist_instance *d)
{
	return d->blocks4 + 4 * d->lay.share * (size_t)d->lay.cols;
}

/* The planted exchange faults (HARNESS_DIST_FAULT): the first block this
 * rank received from another, altered in one byte or lost (zeros). */
static void dist_cpu_fault(const struct dist_instance *d, float *block4)
{
	if (d->fault == 'l')
		memset(block4, 0, 4 * d->lay.share * sizeof(float));
	else if (d->fault == 'c')
		*(unsigned char *)block4 ^= 0x01;
}

/* The ring's receive buffer for block k (k >= 1): two alternate. */
static float *dist_ring_buf(const struct dist_instance *d, int k)
{
	return d->blocks4 + 4 * d->lay.share * (size_t)(1 + k % 2);
}

/* Rank r's ring neighbour at distance k (negative: upstream). */
static int dist_peer(const struct dist_layout *l, int k)
{
	return ((l->rank + k) % l->ranks + l->ranks) % l->ranks;
}

/* Allocates the CPU buffers and puts this rank's block in place. */
static int dist_cpu_setup(struct dist_instance *d, const float *own4, const float *vel4)
{
	const struct dist_layout *l = &d->lay;
	size_t share = l->share, blocks = 3;
	if (d->scheme == DIST_ALLGATHER)
		blocks = (size_t)l->ranks;
	else if (d->scheme == DIST_2D)
		blocks = (size_t)l->rows + (size_t)l->cols;
	size_t bytes = blocks * share * 4 * sizeof(float);
	if (dist_fault("alloc"))
		bytes = SIZE_MAX / 2;
	d->blocks4 = malloc(bytes);
	d->vel4 = malloc(4 * share * sizeof(float));
	d->acc4 = calloc(4 * share, sizeof(float));
	if (d->scheme == DIST_2D)
		d->iacc4 = calloc(4 * share * (size_t)l->cols, sizeof(float));
	if (!d->blocks4 || !d->vel4 || !d->acc4 || (d->scheme == DIST_2D && !d->iacc4)) {
		snprintf(d->error, sizeof d->error, "out of memory for the %zu-body blocks (%.3g GiB)",
			 share, (double)bytes / (1 << 30));
		return -1;
	}
	memset(d->blocks4, 0, bytes);
	memcpy(dist_own4(d), own4, 4 * share * sizeof(float));
	memcpy(d->vel4, vel4, 4 * share * sizeof(float));
	struct sysinfo_host h;
	sysinfo_host_read(&h);
	int threads = h.logical_cpus / dist_local_size();
	if (dist_local_size() > 1)
		nbody_cpu_simd_set_threads(threads > 1 ? threads : 1);
	return 0;
}

/* Forces on this rank's bodies from the n_j bodies at pos_j, in chunks of
 * bodies so that pending messages (npending of req) progress between them:
 * MPI moves a large message only inside MPI calls. */
static void dist_cpu_block(struct dist_instance *d, const float *pos_j, size_t n_j, size_t self,
			   int accumulate, dist_request *req, int npending)
{
	size_t own = d->lay.own, chunk = own;
	if (npending) {
		chunk = (own / 8 + 63) / 64 * 64;
		chunk = chunk < 256 ? 256 : chunk;
	}
	const float *own4 = dist_own4(d);
	for (size_t i0 = 0; i0 < own; i0 += chunk) {
		size_t i1 = own - i0 < chunk ? own : i0 + chunk;
		d->v->cpu_block(own4 + 4 * i0, i1 - i0, pos_j, n_j,
				self == NBODY_CPU_NO_SELF ? self : self + i0, d->acc4 + 4 * i0, d->eps2,
				accumulate);
		int done;
		if (npending)
			dist_test(req, npending, &done);
	}
}

/* One pass of the ring; with compute unset, the transfers alone. With
 * record set, every block that arrives is also kept in record4. */
static int dist_cpu_ring(struct dist_instance *d, bool compute, bool record)
{
	const struct dist_layout *l = &d->lay;
	size_t bytes = 4 * l->share * sizeof(float);
	const float *cur = dist_own4(d);
	dist_request req[2];
	for (int k = 0; k < l->ranks; k++) {
		int pending = 0;
		if (k > 0) {
			if (dist_wait(req, 2) != 0)
				return -1;
			cur = dist_ring_buf(d, k);
			if (k == 1)
				dist_cpu_fault(d, dist_ring_buf(d, k));
			if (record)
				memcpy(d->record4 + 4 * l->share * (size_t)dist_peer(l, -k), cur, bytes);
		}
		if (k + 1 < l->ranks) {
			if (dist_irecv(dist_ring_buf(d, k + 1), bytes, dist_peer(l, -1), &req[0]) != 0 ||
			    dist_isend(cur, bytes, dist_peer(l, 1), &req[1]) != 0)
				return -1;
			pending = 2;
		}
		if (compute)
			dist_cpu_block(d, cur, l->share, k == 0 ? 0 : NBODY_CPU_NO_SELF, k > 0, req,
				       pending);
	}
	return 0;
}

/* The all-gather's exchange: every rank's block, in place. */
static int dist_cpu_allgather(struct dist_instance *d)
{
	const struct dist_layout *l = &d->lay;
	if (dist_allgather(d->blocks4, 4 * l->share * sizeof(float)) != 0)
		return -1;
	if (l->ranks > 1)
		dist_cpu_fault(d, d->blocks4 + 4 * l->share * (size_t)((l->rank + 1) % l->ranks));
	return 0;
}

/* dist-2d's exchange of positions: the row's blocks into the i-block, the
 * column's into the j-block (this rank's copied into its slot first). */
static int dist_cpu_2d_gather(struct dist_instance *d)
{
	const struct dist_layout *l = &d->lay;
	size_t bytes = 4 * l->share * sizeof(float);
	float *j4 = dist_jblock4(d);
	memcpy(j4 + 4 * l->share * (size_t)l->row, dist_own4(d), bytes);
	if (dist_group_allgather(&d->row, d->blocks4, bytes) != 0 ||
	    dist_group_allgather(&d->col, j4, bytes) != 0)
		return -1;
	if (l->rows > 1)
		dist_cpu_fault(d, j4 + 4 * l->share * (size_t)((l->row + 1) % l->rows));
	else if (l->cols > 1)
		dist_cpu_fault(d, d->blocks4 + 4 * l->share * (size_t)((l->col + 1) % l->cols));
	return 0;
}

/* dist-2d's reduction: the row's partial forces on its i-block summed,
 * each rank receiving those on its own block. */
static int dist_cpu_2d_reduce(struct dist_instance *d)
{
	return dist_group_reduce_scatter(&d->row, d->iacc4, d->acc4, 4 * d->lay.share);
}

static int dist_cpu_forces(struct dist_instance *d, bool record)
{
	const struct dist_layout *l = &d->lay;
	if (d->scheme == DIST_RING) {
		if (dist_cpu_ring(d, true, record) != 0)
			return -1;
	} else if (d->scheme == DIST_2D) {
		if (dist_cpu_2d_gather(d) != 0)
			return -1;
		d->v->cpu_block(d->blocks4, (size_t)l->cols * l->share, dist_jblock4(d),
				(size_t)l->rows * l->share, NBODY_CPU_NO_SELF, d->iacc4, d->eps2, 0);
		if (dist_cpu_2d_reduce(d) != 0)
			return -1;
	} else {
		if (dist_cpu_allgather(d) != 0)
			return -1;
		dist_cpu_block(d, d->blocks4, (size_t)l->ranks * l->share, l->first, 0, NULL, 0);
	}
	if (d->skip_last && l->own > 0)
		memset(d->acc4 + 4 * (l->own - 1), 0, 4 * sizeof(float));
	return 0;
}

static int dist_cpu_run(struct dist_instance *d, enum dist_work work, double dt)
{
	float half = (float)(0.5 * dt);
	switch (work) {
	case DIST_FORCES:
		return dist_cpu_forces(d, false);
	case DIST_RECORD:
		return dist_cpu_forces(d, d->scheme == DIST_RING);
	case DIST_STEPS:
		leapfrog_kick4(d->vel4, d->acc4, d->lay.own, half);
		leapfrog_drift4(dist_own4(d), d->vel4, d->lay.own, (float)dt);
		if (dist_cpu_forces(d, false) != 0)
			return -1;
		leapfrog_kick4(d->vel4, d->acc4, d->lay.own, half);
		return 0;
	case DIST_COMM:
		if (d->scheme == DIST_RING)
			return dist_cpu_ring(d, false, false);
		if (d->scheme == DIST_2D)
			return dist_cpu_2d_gather(d) != 0 || dist_cpu_2d_reduce(d) != 0 ? -1 : 0;
		return dist_cpu_allgather(d);
	}
	return -1;
}

/* ---- both kinds ------------------------------------------------------------ */

/* reps repetitions of work on this rank. A GPU rank that fails inside an
 * exchange leaves its peers blocked in it, so with several ranks that
 * ends the job. 0 or -1. */
static int dist_work(struct dist_instance *d, enum dist_work work, int reps, double dt)
{
	if (d->gpu) {
		if (dist_gpu_run(d->gpu, work, reps, dt) != 0) {
			snprintf(d->error, sizeof d->error, "%s", dist_gpu_error(d->gpu));
			if (d->lay.ranks > 1) {
				char msg[320];
				snprintf(msg, sizeof msg, "%s N=%zu: rank %d of %d failed in an exchange: %s",
					 d->v->name, d->lay.n, d->lay.rank, d->lay.ranks, d->error);
				dist_fatal(msg);
			}
			return -1;
		}
	} else {
		bool record = work == DIST_RECORD && d->scheme == DIST_RING;
		if (record && !d->record4 &&
		    !(d->record4 = calloc((size_t)d->lay.ranks * d->lay.share, 4 * sizeof(float)))) {
			snprintf(d->error, sizeof d->error, "out of memory recording the exchange");
			return -1;
		}
		d->recorded = 0;
		for (int r = 0; r < reps; r++)
			if (dist_cpu_run(d, work, dt) != 0) {
				snprintf(d->error, sizeof d->error, "an MPI exchange failed");
				return -1;
			}
		d->recorded = record;
	}
	if (work != DIST_COMM)
		d->have_acc = 1;
	return 0;
}

static void dist_record(struct dist_instance *d, struct dist_spread s)
{
	if (d->nspread == d->spread_cap) {
		size_t cap = d->spread_cap ? 2 * d->spread_cap : 64;
		struct dist_spread *p = realloc(d->spread, cap * sizeof *p);
		if (!p)
			return;
		d->spread = p;
		d->spread_cap = cap;
	}
	d->spread[d->nspread++] = s;
}

/* The timed call: barrier, reps of work, then every rank learns the
 * slowest rank's time (and whether any failed). */
static int dist_timed(struct dist_instance *d, enum dist_work work, int reps, double dt,
		      double *seconds, bool record)
{
	if (dist_barrier() != 0)
		dist_fatal("MPI_Barrier failed");
	double t0 = timing_now();
	int rc = dist_work(d, work, reps, dt);
	double t = timing_now() - t0;
	double mx[3] = { t, -t, rc != 0 }, sum = t;
	if (dist_allreduce_max(mx, 3) != 0 || dist_allreduce_sum(&sum, 1) != 0)
		dist_fatal("MPI_Allreduce failed");
	if (mx[2] != 0) {
		dist_agree(rc != 0, d->error, sizeof d->error);
		return -1;
	}
	if (record)
		dist_record(d, (struct dist_spread){ -mx[1] / reps, sum / d->lay.ranks / reps,
						     mx[0] / reps });
	*seconds = mx[0];
	return 0;
}

int dist_instance_forces(void *ctx, int reps, double *seconds)
{
	return dist_timed(ctx, DIST_FORCES, reps, 0.0, seconds, true);
}

int dist_instance_comm(void *ctx, int reps, double *seconds)
{
	return dist_timed(ctx, DIST_COMM, reps, 0.0, seconds, true);
}

int dist_instance_steps(struct dist_instance *d, int reps, double dt, double *seconds)
{
	double ignored;
	if (!d->have_acc && dist_timed(d, DIST_FORCES, 1, 0.0, &ignored, false) != 0)
		return -1;
	return dist_timed(d, DIST_STEPS, reps, dt, seconds, true);
}

/* The rank's block (share bodies) of acc, pos or vel into out4. */
static int dist_own(struct dist_instance *d, float *acc4, float *pos4, float *vel4)
{
	size_t bytes = 4 * d->lay.share * sizeof(float);
	if (d->gpu) {
		if (dist_gpu_own(d->gpu, acc4, pos4, vel4) == 0)
			return 0;
		snprintf(d->error, sizeof d->error, "%s", dist_gpu_error(d->gpu));
		return -1;
	}
	if (acc4)
		memcpy(acc4, d->acc4, bytes);
	if (pos4)
		memcpy(pos4, dist_own4(d), bytes);
	if (vel4)
		memcpy(vel4, d->vel4, bytes);
	return 0;
}

/* Gathers what (0 acc, 1 pos, 2 vel) of every rank's block to rank 0,
 * which keeps the first n bodies as 4 floats each in out4 (or, with acc3,
 * the accelerations as 3 doubles). Collective; 0 or -1. */
static int dist_collect(struct dist_instance *d, int what, float *out4, double *acc3)
{
	const struct dist_layout *l = &d->lay;
	size_t bytes = 4 * l->share * sizeof(float);
	float *mine = malloc(bytes), *all = l->rank == 0 ? malloc(bytes * (size_t)l->ranks) : NULL;
	int failed = !mine || (l->rank == 0 && !all);
	if (failed)
		snprintf(d->error, sizeof d->error, "out of memory gathering %zu bodies", l->n);
	else
		failed = dist_own(d, what == 0 ? mine : NULL, what == 1 ? mine : NULL,
				  what == 2 ? mine : NULL) != 0;
	int rc = -1;
	if (dist_agree(failed, d->error, sizeof d->error) >= 0)
		goto out_free;
	if (dist_gather(mine, bytes, all, 0) != 0)
		dist_fatal("MPI_Gather failed");
	for (size_t i = 0; all && i < l->n; i++)
		for (int c = 0; c < 4; c++) {
			if (acc3 && c < 3)
				acc3[3 * i + c] = all[4 * i + c];
			else if (out4)
				out4[4 * i + c] = all[4 * i + c];
		}
	rc = 0;
out_free:
	free(mine);
	free(all);
	return rc;
}

/* One untimed evaluation whose exchanges are counted (dist.h's traffic
 * counters), the most and the least of any rank kept. */
static int dist_counted_forces(struct dist_instance *d)
{
	double ignored;
	dist_traffic_reset();
	if (dist_timed(d, DIST_FORCES, 1, 0.0, &ignored, false) != 0)
		return -1;
	struct dist_traffic t = dist_traffic_get();
	double mx[4] = { t.sent, t.recv, -t.sent, -t.recv };
	if (dist_allreduce_max(mx, 4) != 0)
		dist_fatal("MPI_Allreduce failed");
	d->traffic_most = (struct dist_traffic){ mx[0], mx[1] };
	d->traffic_least = (struct dist_traffic){ -mx[2], -mx[3] };
	d->counted = 1;
	return 0;
}

int dist_instance_accels(struct dist_instance *d, double *acc3)
{
	if (!d->have_acc && dist_counted_forces(d) != 0)
		return -1;
	return dist_collect(d, 0, NULL, acc3);
}

int dist_instance_state(struct dist_instance *d, float *pos4, float *vel4)
{
	if (dist_collect(d, 1, pos4, NULL) != 0)
		return -1;
	return vel4 ? dist_collect(d, 2, vel4, NULL) : 0;
}

/* FNV-1a over the bytes of a block. */
static uint64_t dist_checksum(const float *b4, size_t share)
{
	const unsigned char *p = (const unsigned char *)b4;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < 4 * share * sizeof(float); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* The blocks the last exchange left on this rank (CPU), with their
 * origins; returns how many. */
static int dist_cpu_received(const struct dist_instance *d, const float **blocks, int *origin)
{
	const struct dist_layout *l = &d->lay;
	size_t block = 4 * l->share;
	int nb = 0;
	if (d->scheme == DIST_ALLGATHER) {
		for (int r = 0; r < l->ranks; r++, nb++) {
			blocks[nb] = d->blocks4 + block * (size_t)r;
			origin[nb] = r;
		}
		return nb;
	}
	if (d->scheme == DIST_2D) {
		for (int c = 0; c < l->cols; c++)
			if (c != l->col) {
				blocks[nb] = d->blocks4 + block * (size_t)c;
				origin[nb++] = l->row * l->cols + c;
			}
		for (int r = 0; r < l->rows; r++)
			if (r != l->row) {
				blocks[nb] = dist_jblock4(d) + block * (size_t)r;
				origin[nb++] = r * l->cols + l->col;
			}
		return nb;
	}
	if (d->recorded) {
		for (int k = 1; k < l->ranks; k++, nb++) {
			origin[nb] = dist_peer(l, -k);
			blocks[nb] = d->record4 + block * (size_t)origin[nb];
		}
		return nb;
	}
	for (int k = l->ranks - 1; k >= 1 && k >= l->ranks - 2; k--, nb++) {
		blocks[nb] = dist_ring_buf(d, k);
		origin[nb] = dist_peer(l, -k);
	}
	return nb;
}

/* Compares the nb blocks against the owners' checksums; 0, or -1 with
 * d->error naming the first bad block. */
static int dist_check_blocks(struct dist_instance *d, const float *const *blocks, const int *origin,
			     int nb, const uint64_t *sums)
{
	for (int b = 0; b < nb; b++) {
		uint64_t got = dist_checksum(blocks[b], d->lay.share);
		if (got == sums[origin[b]])
			continue;
		snprintf(d->error, sizeof d->error,
			 "the exchange delivered rank %d's block with checksum %016llx, rank %d sent %016llx",
			 origin[b], (unsigned long long)got, origin[b],
			 (unsigned long long)sums[origin[b]]);
		return -1;
	}
	return 0;
}

int dist_instance_verify(struct dist_instance *d, char *err, size_t errlen)
{
	const struct dist_layout *l = &d->lay;
	size_t bytes = 4 * l->share * sizeof(float);
	/* The ring keeps only the last two blocks: from four ranks on, one
	 * more evaluation keeps every block as it arrives. */
	double ignored;
	if (d->scheme == DIST_RING && l->ranks >= 4 &&
	    dist_timed(d, DIST_RECORD, 1, 0.0, &ignored, false) != 0) {
		snprintf(err, errlen, "%s", d->error);
		return -1;
	}
	uint64_t *sums = calloc((size_t)l->ranks, sizeof *sums);
	float *own = malloc(bytes), *got = d->gpu ? malloc(bytes * (size_t)l->ranks) : NULL;
	const float **blocks = calloc((size_t)l->ranks, sizeof *blocks);
	int *origin = calloc((size_t)l->ranks, sizeof *origin), nb = 0;
	int failed = !sums || !own || !blocks || !origin || (d->gpu && !got);
	snprintf(d->error, sizeof d->error, "out of memory checking the exchange");
	if (!failed)
		failed = dist_own(d, NULL, own, NULL) != 0;
	if (!failed) {
		sums[l->rank] = dist_checksum(own, l->share);
		if (d->gpu) {
			nb = dist_gpu_received(d->gpu, got, origin);
			for (int b = 0; b < nb; b++)
				blocks[b] = got + 4 * l->share * (size_t)b;
		} else {
			nb = dist_cpu_received(d, blocks, origin);
		}
		failed = nb < 0;
	}
	if (dist_agree(failed, d->error, sizeof d->error) < 0) {
		if (dist_allgather(sums, sizeof *sums) != 0)
			dist_fatal("MPI_Allgather failed");
		failed = dist_check_blocks(d, blocks, origin, nb, sums) != 0;
		failed = dist_agree(failed, d->error, sizeof d->error) >= 0;
	} else {
		failed = 1;
	}
	if (failed)
		snprintf(err, errlen, "%s", d->error);
	free(sums);
	free(own);
	free(got);
	free(blocks);
	free(origin);
	return failed ? -1 : 0;
}

size_t dist_instance_spread(const struct dist_instance *d, const struct dist_spread **calls)
{
	*calls = d->spread;
	return d->nspread;
}

void dist_instance_spread_reset(struct dist_instance *d)
{
	d->nspread = 0;
}

double dist_instance_exchange_bytes(const struct dist_instance *d)
{
	if (d->scheme == DIST_2D)
		return NAN;
	return (double)d->lay.ranks * (double)d->lay.share * 4 * sizeof(float);
}

int dist_instance_traffic(struct dist_instance *d, struct dist_traffic *most,
			  struct dist_traffic *least)
{
	if (!d->counted && dist_counted_forces(d) != 0)
		return -1;
	*most = d->traffic_most;
	*least = d->traffic_least;
	return 0;
}

const char *dist_instance_devices(const struct dist_instance *d)
{
	return d->devices;
}

const struct dist_layout *dist_instance_layout(const struct dist_instance *d)
{
	return &d->lay;
}

const char *dist_instance_error(const struct dist_instance *d)
{
	return d->error;
}

/* This rank's device as the ranks compare them: the GPU's name, or the
 * CPU model with the SIMD path cpu-simd takes (a rank forced onto another
 * path computes differently and is another kind). */
static void dist_device_name(const struct dist_instance *d, char *out, size_t len)
{
	char bus[32];
	if (d->v->device == VARIANT_GPU) {
		dist_gpu_device(out, len, bus, sizeof bus);
		return;
	}
	struct sysinfo_host h;
	sysinfo_host_read(&h);
	snprintf(out, len, "%.100s (%s)", h.cpu_model, nbody_cpu_simd_isa());
}

/* The ranks' devices, names[0..ranks), into out: "A|B|..." when that
 * fits, else runs of equal names folded ("A x6|B x2"). */
static void dist_join_devices(char (*names)[DIST_NAME_LEN], int ranks, char *out, size_t len)
{
	size_t need = 0;
	for (int r = 0; r < ranks; r++)
		need += strlen(names[r]) + 1;
	size_t used = 0;
	out[0] = '\0';
	for (int r = 0; r < ranks && used < len; r++) {
		int run = 1;
		while (need > len && r + run < ranks && strcmp(names[r + run], names[r]) == 0)
			run++;
		if (run > 1)
			used += snprintf(out + used, len - used, "%s%s x%d", r ? "|" : "", names[r], run);
		else
			used += snprintf(out + used, len - used, "%s%s", r ? "|" : "", names[r]);
		r += run - 1;
	}
}

/* Every rank's device, in rank order, into d->devices; -1 with d->error
 * when the ranks see different kinds. The same verdict on every rank. */
static int dist_check_devices(struct dist_instance *d)
{
	const struct dist_layout *l = &d->lay;
	char(*names)[DIST_NAME_LEN] = calloc((size_t)l->ranks, sizeof *names);
	if (!names)
		dist_fatal("out of memory comparing the ranks' devices");
	dist_device_name(d, names[l->rank], DIST_NAME_LEN);
	if (dist_allgather(names, sizeof *names) != 0)
		dist_fatal("MPI_Allgather failed");
	int rc = 0;
	for (int r = 1; r < l->ranks && rc == 0; r++) {
		if (strcmp(names[r], names[0]) == 0)
			continue;
		snprintf(d->error, sizeof d->error,
			 "the ranks see different %s: rank 0 %s, rank %d %s (a scaling run measures one kind)",
			 d->v->device == VARIANT_GPU ? "GPUs" : "CPUs", names[0], r, names[r]);
		rc = -1;
	}
	dist_join_devices(names, l->ranks, d->devices, sizeof d->devices);
	free(names);
	return rc;
}

/* Rank 0's bodies as ranks x share bodies, zero-padded (NULL src: zeros). */
static float *dist_pack(const float *src4, const struct dist_layout *l)
{
	float *p = calloc((size_t)l->ranks * l->share, 4 * sizeof(float));
	if (p && src4)
		memcpy(p, src4, 4 * l->n * sizeof(float));
	return p;
}

/* Rank 0 sends every rank its block of positions and velocities. */
static int dist_distribute(struct dist_instance *d, const float *pos4, const float *vel4,
			   float *own4, float *ownv4)
{
	const struct dist_layout *l = &d->lay;
	float *p = NULL, *v = NULL;
	int failed = 0;
	if (l->rank == 0) {
		p = dist_pack(pos4, l);
		v = dist_pack(vel4, l);
		failed = !p || !v;
		snprintf(d->error, sizeof d->error, "out of memory for %zu bodies", l->n);
	}
	int rc = -1;
	if (dist_agree(failed, d->error, sizeof d->error) < 0) {
		size_t bytes = 4 * l->share * sizeof(float);
		if (dist_scatter(p, bytes, own4, 0) != 0 || dist_scatter(v, bytes, ownv4, 0) != 0)
			dist_fatal("MPI_Scatter failed");
		rc = 0;
	}
	free(p);
	free(v);
	return rc;
}

int dist_instance_create(struct dist_instance **out, const struct variant *v, const float *pos4,
			 const float *vel4, size_t n, double eps, char *err, size_t errlen)
{
	*out = NULL;
	struct dist_instance *d = calloc(1, sizeof *d);
	if (!d)
		dist_fatal("out of memory");
	d->v = v;
	d->scheme = (enum dist_scheme)v->dist;
	d->eps2 = (float)(eps * eps);
	d->skip_last = dist_fault("skip-last");
	d->fault = dist_fault("corrupt") ? 'c' : dist_fault("lost") ? 'l' : 0;
	d->row = d->col = (dist_group){ NULL, 0, 1 };
	dist_layout_make(&d->lay, n, dist_size(), dist_rank());
	size_t bytes = 4 * d->lay.share * sizeof(float);
	float *own4 = malloc(bytes), *ownv4 = malloc(bytes);
	int failed = !own4 || !ownv4;
	snprintf(d->error, sizeof d->error, "out of memory for a block of %zu bodies", d->lay.share);
	if (!(eps > 0)) {
		snprintf(d->error, sizeof d->error,
			 "distributed variants need --eps > 0 (the padding bodies' zero mass must add exactly zero)");
		failed = 1;
	}
	if (dist_agree(failed, d->error, sizeof d->error) >= 0 ||
	    dist_distribute(d, pos4, vel4, own4, ownv4) != 0 || dist_check_devices(d) != 0)
		goto out_fail;
	if (v->device == VARIANT_GPU) {
		if (dist_gpu_create(&d->gpu, d->scheme, nbody_gpu_launcher((int)(v - nbody_variants)),
				    &d->lay, own4, ownv4, eps, d->error, sizeof d->error) != 0)
			goto out_fail;
	} else if (dist_agree(dist_cpu_setup(d, own4, ownv4) != 0, d->error, sizeof d->error) >= 0) {
		goto out_fail;
	} else if (d->scheme == DIST_2D &&
		   (dist_group_split(d->lay.row, d->lay.col, &d->row) != 0 ||
		    dist_group_split(d->lay.col, d->lay.row, &d->col) != 0)) {
		dist_fatal("MPI_Comm_split of the rank grid failed");
	}
	free(own4);
	free(ownv4);
	*out = d;
	return 0;
out_fail:
	snprintf(err, errlen, "%s", d->error);
	free(own4);
	free(ownv4);
	dist_instance_destroy(d);
	return -1;
}

void dist_instance_destroy(struct dist_instance *d)
{
	if (!d)
		return;
	dist_gpu_destroy(d->gpu);
	dist_group_free(&d->row);
	dist_group_free(&d->col);
	free(d->iacc4);
	free(d->record4);
	free(d->blocks4);
	free(d->vel4);
	free(d->acc4);
	free(d->spread);
	free(d);
}

int dist_rank_facts_gather(struct sysinfo_rank **out)
{
	struct sysinfo_rank mine;
	struct sysinfo_host h;
	memset(&mine, 0, sizeof mine);
	sysinfo_host_read(&h);
	snprintf(mine.host, sizeof mine.host, "%.127s", h.hostname);
	snprintf(mine.cpu_model, sizeof mine.cpu_model, "%.127s", h.cpu_model);
	dist_gpu_device(mine.gpu_name, sizeof mine.gpu_name, mine.gpu_bus, sizeof mine.gpu_bus);
	mine.cpu_s = sysinfo_load_own_cpu();
	if (dist_rank() != 0) /* rank 0 marks when it writes what they measured */
		sysinfo_load_mark();
	*out = dist_rank() == 0 ? calloc((size_t)dist_size(), sizeof **out) : NULL;
	if (dist_rank() == 0 && !*out)
		dist_fatal("out of memory gathering the ranks' facts");
	if (dist_gather(&mine, sizeof mine, *out, 0) != 0)
		dist_fatal("MPI_Gather failed");
	return dist_size();
}
