/* sph_trace.c - one particle's neighbourhood and the terms of its acceleration, by the double reference */
#include "sph_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sph_trace_term_names[SPH_TRACE_TERMS] = {
	"fluid_pressure", "fluid_viscosity", "wall_pressure", "wall_viscosity", "gravity",
};

static double dist2(const float *a, const float *b)
{
	const double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
	return dx * dx + dy * dy + dz * dz;
}

/* The particles of the n at pos4 within r of c: their indices into idx
 * (the traced one first when it is among them), their count returned. */
static size_t sph_trace_near(const float *pos4, size_t n, const float *c, double r, size_t first,
			     size_t *idx)
{
	size_t m = 0;
	if (first < n)
		idx[m++] = first;
	for (size_t j = 0; j < n; j++)
		if (j != first && dist2(&pos4[4 * j], c) < r * r)
			idx[m++] = j;
	return m;
}

/* The particles idx[0..m) of pos4 (4 floats each) packed into out. */
static void sph_trace_pack(const float *pos4, const size_t *idx, size_t m, float *out)
{
	for (size_t k = 0; k < m; k++)
		memcpy(&out[4 * k], &pos4[4 * idx[k]], 4 * sizeof *out);
}

int sph_trace_particle(const struct sph_params *p, const float *pos4, const float *vel4, size_t n,
		       const float *bnd4, size_t nb, size_t i, struct sph_trace *out)
{
	memset(out, 0, sizeof *out);
	out->i = i;
	const float *xi = &pos4[4 * i], *vi = &vel4[4 * i];
	const double h = p->h;
	for (int a = 0; a < 3; a++)
		out->x[a] = xi[a];
	out->speed = sqrt((double)vi[0] * vi[0] + (double)vi[1] * vi[1] + (double)vi[2] * vi[2]);
	out->wall_h = HUGE_VAL;
	for (int a = 0; a < 3; a++) {
		const double lo = (double)xi[a] - p->box_lo[a], hi = p->box_hi[a] - (double)xi[a];
		out->wall_h = fmin(out->wall_h, fmin(lo, hi) / h);
		out->walls_near += (lo < h) || (hi < h);
	}
	out->fluid_h = out->boundary_h = HUGE_VAL;
	for (size_t j = 0; j < n; j++)
		if (j != i) {
			const double r = sqrt(dist2(&pos4[4 * j], xi)) / h;
			out->fluid_h = fmin(out->fluid_h, r);
			out->fluid_nbrs += r < 1.0;
		}
	for (size_t b = 0; b < nb; b++) {
		const double r = sqrt(dist2(&bnd4[4 * b], xi)) / h;
		out->boundary_h = fmin(out->boundary_h, r);
		out->boundary_nbrs += r < 1.0;
	}

	/* the reference on the neighbourhood: the traced particle is its
	 * particle 0, exact there */
	size_t *fi = malloc((n ? n : 1) * sizeof *fi), *bi = malloc((nb ? nb : 1) * sizeof *bi);
	float *fp = malloc(4 * (n ? n : 1) * sizeof *fp), *fv = malloc(4 * (n ? n : 1) * sizeof *fv);
	float *bp = malloc(4 * (nb ? nb : 1) * sizeof *bp);
	double *acc_fluid = NULL, *acc_fluid_p = NULL, *acc_wall_p = NULL;
	struct sph_ref_state s;
	memset(&s, 0, sizeof s);
	int rc = -1;
	if (!fi || !bi || !fp || !fv || !bp)
		goto out;
	const size_t m = sph_trace_near(pos4, n, xi, 2.0 * h, i, fi);
	const size_t mb = sph_trace_near(bnd4, nb, xi, 3.0 * h, nb, bi);
	sph_trace_pack(pos4, fi, m, fp);
	sph_trace_pack(vel4, fi, m, fv);
	sph_trace_pack(bnd4, bi, mb, bp);
	if (sph_ref_state_init(&s, p, fp, fv, m, mb ? bp : NULL, mb) != 0 ||
	    sph_ref_evaluate(&s, p) != 0)
		goto out;
	acc_fluid = malloc(3 * m * sizeof *acc_fluid);
	acc_fluid_p = malloc(3 * m * sizeof *acc_fluid_p);
	acc_wall_p = malloc(3 * m * sizeof *acc_wall_p);
	if (!acc_fluid || !acc_fluid_p || !acc_wall_p)
		goto out;
	struct sph_params inviscid = *p;
	inviscid.mu = 0.0;
	const struct sph_ref_wall wall = { s.nb, s.xb, s.psi, &s.bnbrs };
	/* the same densities and pressures throughout: the full evaluation's */
	sph_ref_forces(p, s.x, s.v, s.rho, s.pres, &s.nbrs, NULL, acc_fluid);
	sph_ref_forces(&inviscid, s.x, s.v, s.rho, s.pres, &s.nbrs, NULL, acc_fluid_p);
	sph_ref_forces(&inviscid, s.x, s.v, s.rho, s.pres, &s.nbrs, &wall, acc_wall_p);
	double best = -1.0;
	for (int a = 0; a < 3; a++) {
		const double g = p->gravity[a];
		out->acc[SPH_TRACE_GRAVITY][a] = g;
		out->acc[SPH_TRACE_FLUID_PRESSURE][a] = acc_fluid_p[a] - g;
		out->acc[SPH_TRACE_FLUID_VISCOSITY][a] = acc_fluid[a] - acc_fluid_p[a];
		out->acc[SPH_TRACE_WALL_PRESSURE][a] = acc_wall_p[a] - acc_fluid_p[a];
		out->acc[SPH_TRACE_WALL_VISCOSITY][a] = s.acc[a] - acc_fluid[a] - acc_wall_p[a] +
							acc_fluid_p[a];
		out->acc_total[a] = s.acc[a];
	}
	for (int t = 0; t < SPH_TRACE_TERMS; t++) {
		const double *v = out->acc[t];
		const double mag = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		if (mag > best) {
			best = mag;
			out->dominant = t;
		}
	}
	out->rho_rel = s.rho[0] / p->rho0;
	rc = 0;
out:
	sph_ref_state_free(&s);
	free(fi);
	free(bi);
	free(fp);
	free(fv);
	free(bp);
	free(acc_fluid);
	free(acc_fluid_p);
	free(acc_wall_p);
	return rc;
}
