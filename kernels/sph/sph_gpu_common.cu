/* sph_gpu_common.cu - the host plumbing every GPU SPH variant shares: create, steps, read, counts, destroy */
#include "sph_gpu_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_select.cuh>

int sph_gpu_check(struct sph_gpu *s, cudaError_t rc, const char *call, const char *file, int line)
{
	if (rc == cudaSuccess)
		return 0;
	snprintf(s->err, sizeof s->err, "%s: %s: %s (%s:%d)", s->name, call, cudaGetErrorString(rc),
		 file, line);
	s->failed = 1;
	return -1;
}

unsigned sph_gpu_blocks(size_t count)
{
	return (unsigned)((count + SPH_GPU_BLOCK - 1) / SPH_GPU_BLOCK);
}

int sph_gpu_alloc_bytes(struct sph_gpu *s, void **p, size_t bytes, bool state)
{
	*p = NULL;
	if (s->nallocs == SPH_GPU_MAX_ALLOCS) {
		snprintf(s->err, sizeof s->err, "%s: too many device arrays", s->name);
		s->failed = 1;
		return -1;
	}
	if (SPH_GPU_CHECK(s, cudaMalloc(p, bytes ? bytes : 1)))
		return -1;
	s->allocs[s->nallocs++] = *p;
	if (!state)
		s->aux_bytes += bytes;
	return 0;
}

/* Symplectic Euler on every fluid slot; wall slots (pos.w < 0) stay. */
static __global__ void sph_gpu_integrate_kernel(float4 *__restrict__ pos, float4 *__restrict__ vel,
						const float4 *__restrict__ acc, int slots,
						const __grid_constant__ sph_consts cs,
						unsigned long long *__restrict__ clamps)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	float4 x = pos[i], v = vel[i];

	if (sph_gpu_is_wall(x))
		return;
	const int c = sph_gpu_advance4(x, v, acc[i], cs);

	pos[i] = x;
	vel[i] = v;
	if (c)
		atomicAdd(clamps, (unsigned long long)c);
}

int sph_gpu_integrate(struct sph_gpu *s)
{
	sph_gpu_integrate_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->pos, s->vel, s->acc, s->slots, s->cs, s->clamps);
	return SPH_GPU_LAUNCHED(s, "integrate kernel");
}

int sph_gpu_finish(struct sph_gpu *s)
{
	unsigned bad = UINT_MAX;

	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(&bad, s->bad, sizeof bad, cudaMemcpyDeviceToHost,
					     s->stream)) ||
	    SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream)))
		return -1;
	if (s->m->finish && s->m->finish(s) != 0) {
		s->failed = 1;
		return -1;
	}
	if (bad != UINT_MAX) {
		snprintf(s->err, sizeof s->err, "%s: particle %u has a non-finite position", s->name,
			 bad);
		s->failed = 1;
		return -1;
	}
	if (s->overflow) {
		s->failed = 1;
		return -1;
	}
	return 0;
}

/* One step, its phases between the events of marks. */
static int sph_gpu_step(struct sph_gpu *s, cudaEvent_t marks[SPH_GPU_MARKS])
{
	const struct sph_gpu_method *m = s->m;

	return SPH_GPU_CHECK(s, cudaEventRecord(marks[0], s->stream)) || m->build(s) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[1], s->stream)) || m->density(s, false) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[2], s->stream)) || m->force(s) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[3], s->stream)) ||
	       (m->integrate ? m->integrate(s) : sph_gpu_integrate(s)) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[4], s->stream))
		       ? -1
		       : 0;
}

int sph_gpu_collect(struct sph_gpu *s, int steps, struct sph_phase_times *t)
{
	if (SPH_GPU_CHECK(s, cudaEventSynchronize(s->ev[steps - 1][SPH_GPU_MARKS - 1])))
		return -1;
	for (int q = 0; q < steps && t; q++) {
		float ms[SPH_GPU_MARKS - 1];

		for (int p = 0; p < SPH_GPU_MARKS - 1; p++)
			if (SPH_GPU_CHECK(s, cudaEventElapsedTime(&ms[p], s->ev[q][p], s->ev[q][p + 1])))
				return -1;
		t->build_s += 1e-3 * ms[0];
		t->density_s += 1e-3 * ms[1];
		t->force_s += 1e-3 * ms[2];
		t->integrate_s += 1e-3 * ms[3];
	}
	return 0;
}

int sph_gpu_ops_steps(void *ctx, int reps, struct sph_phase_times *t)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;

	if (s->failed)
		return -1;
	if (s->m->steps)
		return s->m->steps(s, reps, t) || sph_gpu_finish(s) ? -1 : 0;
	for (int rep = 0; rep < reps; rep++) {
		const int b = rep % SPH_GPU_BATCH;

		if (sph_gpu_step(s, s->ev[b]) != 0)
			return -1;
		if ((b == SPH_GPU_BATCH - 1 || rep == reps - 1) && sph_gpu_collect(s, b + 1, t) != 0)
			return -1;
	}
	return sph_gpu_finish(s);
}

int sph_gpu_ops_evaluate(void *ctx, int count)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	unsigned long long pairs[2];

	if (s->failed)
		return -1;
	if ((count && SPH_GPU_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs,
						       s->stream))) ||
	    s->m->build(s) || s->m->density(s, count != 0) || s->m->force(s))
		return -1;
	if (count && SPH_GPU_CHECK(s, cudaMemcpyAsync(pairs, s->pairs, sizeof pairs,
						      cudaMemcpyDeviceToHost, s->stream)))
		return -1;
	if (sph_gpu_finish(s) != 0)
		return -1;
	if (count) {
		s->candidates = pairs[0];
		s->neighbours = pairs[1];
	}
	return 0;
}

/* Copies count elements of size bytes from device array src into host
 * buffer stage and waits. 0 or -1. */
static int sph_gpu_download(struct sph_gpu *s, void *stage, const void *src, size_t count,
			    size_t size)
{
	return SPH_GPU_CHECK(s, cudaMemcpyAsync(stage, src, count * size, cudaMemcpyDeviceToHost,
						s->stream)) ||
			       SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream))
		       ? -1
		       : 0;
}

/* out[id[k]] = slot array src[k] for the fluid slots (id < n), for
 * arrays of float4 (out 4n floats; nothing when NULL). */
static int sph_gpu_read4(struct sph_gpu *s, float4 *stage, const unsigned *id, const float4 *src,
			 float *out)
{
	if (!out)
		return 0;
	if (sph_gpu_download(s, stage, src, (size_t)s->slots, sizeof(float4)) != 0)
		return -1;
	for (size_t k = 0; k < (size_t)s->slots; k++)
		if (id[k] < (unsigned)s->n)
			memcpy(&out[4 * (size_t)id[k]], &stage[k], sizeof(float4));
	return 0;
}

int sph_gpu_ops_read(void *ctx, float *pos4, float *vel4, float *rho, float *acc4)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	const size_t slots = (size_t)s->slots;
	unsigned *id = NULL;
	float4 *stage = NULL;
	int rc = -1;

	if (s->failed)
		return -1;
	id = (unsigned *)malloc(slots * sizeof *id);
	stage = (float4 *)malloc(slots * sizeof *stage);
	if (!id || !stage) {
		snprintf(s->err, sizeof s->err, "%s: out of host memory reading %zu particles",
			 s->name, slots);
		goto out_free;
	}
	if (sph_gpu_download(s, id, s->id, slots, sizeof *id) != 0 ||
	    sph_gpu_read4(s, stage, id, s->pos, pos4) != 0 ||
	    sph_gpu_read4(s, stage, id, s->vel, vel4) != 0 ||
	    sph_gpu_read4(s, stage, id, s->acc, acc4) != 0)
		goto out_free;
	if (rho) {
		const float *r = (const float *)stage;

		if (sph_gpu_download(s, stage, s->rho, slots, sizeof(float)) != 0)
			goto out_free;
		for (size_t k = 0; k < slots; k++)
			if (id[k] < (unsigned)s->n)
				rho[id[k]] = r[k];
	}
	rc = 0;

out_free:
	free(stage);
	free(id);
	return rc;
}

/* ---- surface extraction ------------------------------------------------ */

/* flag_id[id[k]] = flag[k] for the fluid slots (id < n). */
static __global__ void sph_gpu_flag_by_id_kernel(const unsigned char *__restrict__ flag,
						 const unsigned *__restrict__ id,
						 unsigned char *__restrict__ flag_id, int slots,
						 int n)
{
	const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;

	if (k < (unsigned)slots && id[k] < (unsigned)n)
		flag_id[id[k]] = flag[k];
}

/* The extraction's arrays and events, on first use. 0 or -1. */
static int sph_gpu_surface_init(struct sph_gpu *s)
{
	if (s->sflag)
		return 0;
	if (sph_gpu_alloc(s, &s->sflag, (size_t)s->slots, true) ||
	    sph_gpu_alloc(s, &s->sflag_id, (size_t)s->n, true) ||
	    sph_gpu_alloc(s, &s->scount, 1, true) ||
	    SPH_GPU_CHECK(s, cub::DeviceSelect::Flagged(NULL, s->stemp_bytes, s->pos, s->sflag,
							 s->pos, s->scount, s->slots, s->stream)) ||
	    sph_gpu_alloc_bytes(s, &s->stemp, s->stemp_bytes, true))
		return -1;
	for (; s->nsev < 2; s->nsev++)
		if (SPH_GPU_CHECK(s, cudaEventCreate(&s->sev[s->nsev])))
			return -1;
	return 0;
}

int sph_gpu_ops_surface(void *ctx, struct sph_surface_request *rq)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	const sph_gpu_surface_crit c = { (float)(rq->com_threshold * s->cs.h),
					 (float)rq->min_neighbours };
	unsigned count = 0;
	float ms = 0.0f;

	rq->count = 0;
	rq->seconds = 0.0;
	if (s->failed || sph_gpu_surface_init(s) != 0)
		return -1;
	if (SPH_GPU_CHECK(s, cudaEventRecord(s->sev[0], s->stream)) || s->m->surface(s, c) ||
	    SPH_GPU_CHECK(s, cub::DeviceSelect::Flagged(s->stemp, s->stemp_bytes, s->pos, s->sflag,
							 (float4 *)rq->pos4, s->scount, s->slots,
							 s->stream)) ||
	    SPH_GPU_CHECK(s, cudaEventRecord(s->sev[1], s->stream)))
		return -1;
	if (rq->flags) {
		sph_gpu_flag_by_id_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
			s->sflag, s->id, s->sflag_id, s->slots, s->n);
		if (SPH_GPU_LAUNCHED(s, "flag kernel") ||
		    SPH_GPU_CHECK(s, cudaMemcpyAsync(rq->flags, s->sflag_id, (size_t)s->n,
						     cudaMemcpyDeviceToHost, s->stream)))
			return -1;
	}
	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(&count, s->scount, sizeof count,
					     cudaMemcpyDeviceToHost, s->stream)) ||
	    sph_gpu_finish(s) != 0 ||
	    SPH_GPU_CHECK(s, cudaEventElapsedTime(&ms, s->sev[0], s->sev[1])))
		return -1;
	rq->count = count;
	rq->seconds = 1e-3 * ms;
	return 0;
}

void sph_gpu_ops_counts(void *ctx, struct sph_counts *c)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	unsigned long long clamps = 0;

	memset(c, 0, sizeof *c);
	c->aux_bytes = s->aux_bytes;
	c->candidates = s->candidates;
	c->neighbours = s->neighbours;
	c->overflow = s->overflow;
	if (!s->failed &&
	    SPH_GPU_CHECK(s, cudaMemcpyAsync(&clamps, s->clamps, sizeof clamps,
					     cudaMemcpyDeviceToHost, s->stream)) == 0 &&
	    SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream)) == 0)
		c->clamps = clamps;
}

const char *sph_gpu_ops_error(void *ctx)
{
	return ((const struct sph_gpu *)ctx)->err;
}

void sph_gpu_ops_destroy(void *ctx)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;

	if (!s)
		return;
	if (s->stream)
		cudaStreamSynchronize(s->stream);
	if (s->m->fini)
		s->m->fini(s);
	for (int k = 0; k < s->nallocs; k++)
		cudaFree(s->allocs[k]);
	for (int k = 0; k < s->nevents; k++)
		cudaEventDestroy(s->ev[k / SPH_GPU_MARKS][k % SPH_GPU_MARKS]);
	for (int k = 0; k < s->nsev; k++)
		cudaEventDestroy(s->sev[k]);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	free(s);
}

/* ---- create ------------------------------------------------------------- */

/* The box, or on an axis where it is open the bounds of the particles
 * (fluid and walls), into lo, hi (p's box not NaN, not inverted). */
static void sph_gpu_span(const struct sph_params *p, const struct sph_input *in, double lo[3],
			 double hi[3])
{
	for (int d = 0; d < 3; d++) {
		lo[d] = p->box_lo[d];
		hi[d] = p->box_hi[d];
		if (std::isfinite(lo[d]) && std::isfinite(hi[d]))
			continue;
		double plo = in->pos4[d], phi = in->pos4[d];

		for (size_t i = 1; i < in->n; i++) {
			plo = fmin(plo, in->pos4[4 * i + d]);
			phi = fmax(phi, in->pos4[4 * i + d]);
		}
		for (size_t b = 0; b < in->nb; b++) {
			plo = fmin(plo, in->bnd4[4 * b + d]);
			phi = fmax(phi, in->bnd4[4 * b + d]);
		}
		lo[d] = std::isfinite(lo[d]) ? lo[d] : plo;
		hi[d] = std::isfinite(hi[d]) ? fmax(hi[d], lo[d]) : fmax(phi, lo[d]);
	}
}

/*
 * The grid of cells of side h (1 + margin) over lo .. hi (sph_gpu_span).
 * -1 with a message when it needs more than SPH_GPU_MAX_CELLS cells, or
 * more than morton_side a side when that is set.
 */
static int sph_gpu_grid_init(struct sph_gpu_grid *g, int morton_side, const struct sph_params *p,
			     const double lo[3], const double hi[3], const char *name, char *err,
			     size_t errlen)
{
	double cells = 1.0;

	g->cell = p->h * (1.0 + SPH_GPU_GRID_MARGIN);
	for (int d = 0; d < 3; d++) {
		const double side = floor((hi[d] - lo[d]) / g->cell) + 1.0;

		if (morton_side && !(side <= morton_side)) {
			snprintf(err, errlen, "%s: the box needs %.0f cells of %g m along axis %d; "
				 "Morton keys take at most %d", name, side, g->cell, d, morton_side);
			return -1;
		}
		cells *= side;
		if (!(cells <= (double)SPH_GPU_MAX_CELLS)) {
			snprintf(err, errlen, "%s: a grid of cells of %g m over the box needs more "
				 "than %zu cells", name, g->cell, SPH_GPU_MAX_CELLS);
			return -1;
		}
		g->lo[d] = lo[d];
		g->dim[d] = (int)side;
	}
	g->ncells = (unsigned)cells;
	return 0;
}

/* The caller's particles on the device: fluid slots 0 .. n - 1 (w = 1),
 * then (walls_in_slots) the walls as slots n .. (w = -psi / m, v = 0);
 * bnd as given; ids 0 .. slots - 1; density and acceleration zero. */
static int sph_gpu_upload(struct sph_gpu *s, const struct sph_input *in)
{
	const size_t n = (size_t)s->n, nb = (size_t)s->nb, slots = (size_t)s->slots;
	float4 *stage = (float4 *)malloc((2 * slots + nb + 1) * sizeof *stage);
	int rc = -1;

	if (!stage) {
		snprintf(s->err, sizeof s->err, "%s: out of host memory for %zu particles", s->name,
			 slots);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		stage[i] = make_float4(in->pos4[4 * i], in->pos4[4 * i + 1], in->pos4[4 * i + 2], 1.0f);
		stage[slots + i] = make_float4(in->vel4[4 * i], in->vel4[4 * i + 1],
					       in->vel4[4 * i + 2], 0.0f);
	}
	for (size_t b = 0; b < nb; b++) {
		const float4 x = make_float4(in->bnd4[4 * b], in->bnd4[4 * b + 1], in->bnd4[4 * b + 2],
					     in->bnd4[4 * b + 3]);

		stage[2 * slots + b] = x;
		if (s->m->walls_in_slots) {
			stage[n + b] = make_float4(x.x, x.y, x.z, -x.w);
			stage[slots + n + b] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		}
	}
	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(s->pos, stage, slots * sizeof *stage,
					     cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemcpyAsync(s->vel, stage + slots, slots * sizeof *stage,
					     cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemcpyAsync(s->bnd, stage + 2 * slots, nb * sizeof *stage,
					     cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->rho, 0, slots * sizeof *s->rho, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->acc, 0, slots * sizeof *s->acc, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->bad, 0xff, sizeof *s->bad, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->clamps, 0, sizeof *s->clamps, s->stream)))
		goto out_free;
	sph_gpu_iota_kernel<<<sph_gpu_blocks(slots), SPH_GPU_BLOCK, 0, s->stream>>>(s->id, s->slots);
	if (SPH_GPU_LAUNCHED(s, "iota kernel"))
		goto out_free;
	rc = SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream));

out_free:
	free(stage);
	return rc;
}

/* Stream, events, state arrays, particles, then the method's init.
 * 0, or -1 with s->err. */
static int sph_gpu_start(struct sph_gpu *s, const struct sph_input *in)
{
	const size_t slots = (size_t)s->slots;

	if (SPH_GPU_CHECK(s, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))
		return -1;
	for (; s->nevents < SPH_GPU_BATCH * SPH_GPU_MARKS; s->nevents++)
		if (SPH_GPU_CHECK(s, cudaEventCreate(&s->ev[s->nevents / SPH_GPU_MARKS]
							   [s->nevents % SPH_GPU_MARKS])))
			return -1;
	/* the fluid's state counts as state; wall slots and ids beyond it */
	if (sph_gpu_alloc(s, &s->pos, slots) || sph_gpu_alloc(s, &s->vel, slots) ||
	    sph_gpu_alloc(s, &s->acc, slots) || sph_gpu_alloc(s, &s->rho, slots) ||
	    sph_gpu_alloc(s, &s->id, slots) || sph_gpu_alloc(s, &s->bnd, (size_t)s->nb) ||
	    sph_gpu_alloc(s, &s->bad, 1) || sph_gpu_alloc(s, &s->pairs, 2) ||
	    sph_gpu_alloc(s, &s->clamps, 1))
		return -1;
	s->aux_bytes -= (size_t)s->n * (3 * sizeof(float4) + sizeof(float));
	if (sph_gpu_upload(s, in) != 0)
		return -1;
	return s->m->init ? s->m->init(s) : 0;
}

int sph_gpu_create(const struct sph_gpu_method *m, void **ctx, const struct sph_input *in,
		   const struct sph_params *p, char *err, size_t errlen)
{
	const char *name = m->name;
	struct sph_gpu *s;
	size_t bad;

	*ctx = NULL;
	if (in->n == 0 || in->n + in->nb > (size_t)INT_MAX) {
		snprintf(err, errlen, "%s: %zu fluid and %zu boundary particles; allowed 1 .. %d in all",
			 name, in->n, in->nb, INT_MAX);
		return -1;
	}
	bad = sph_first_nonfinite(in->pos4, in->vel4, in->n);
	if (bad < in->n) {
		snprintf(err, errlen, "%s: particle %zu has a non-finite position or velocity", name,
			 bad);
		return -1;
	}
	if (in->nb && !in->bnd4) {
		snprintf(err, errlen, "%s: %zu boundary particles without positions", name, in->nb);
		return -1;
	}
	bad = in->nb ? sph_first_nonfinite(in->bnd4, NULL, in->nb) : 0;
	if (in->nb && bad < in->nb) {
		snprintf(err, errlen, "%s: boundary particle %zu has a non-finite position", name,
			 bad);
		return -1;
	}
	if (m->check && m->check(in, name, err, errlen) != 0)
		return -1;
	s = (struct sph_gpu *)calloc(1, m->ctx_size);
	if (!s) {
		snprintf(err, errlen, "%s: out of host memory", name);
		return -1;
	}
	s->m = m;
	s->name = name;
	s->n = (int)in->n;
	s->nb = (int)in->nb;
	s->slots = (int)(m->walls_in_slots ? in->n + in->nb : in->n);
	if (sph_consts_init(&s->cs, p, name, err, errlen) != 0)
		goto out_destroy;
	sph_gpu_span(p, in, s->span_lo, s->span_hi);
	if (m->grid && sph_gpu_grid_init(&s->grid, m->morton_side, p, s->span_lo, s->span_hi, name,
					 err, errlen) != 0)
		goto out_destroy;
	if (sph_gpu_start(s, in) != 0) {
		snprintf(err, errlen, "%s", s->err);
		goto out_destroy;
	}
	*ctx = s;
	return 0;

out_destroy:
	sph_gpu_ops_destroy(s);
	return -1;
}
