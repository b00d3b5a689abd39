/* tc_sums.c - the tensor-core kernel's sums on the CPU: block sums of S = sum w m (x'_j, 1)
 * exact (double), rounded to float and added in float along the Morton order (one sum, or
 * chunks of C blocks first), a = S_xyz - x'_i S_m in float, against double; Plummer,
 * eps 0.01, 8 groups of 64 bodies, every 7th body checked; normalised as validate.c does.
 *   cc -O2 -o /tmp/tcsum tests/nbody/emulation/tc_sums.c -lm && /tmp/tcsum N [CHUNK [MORTON]]
 * Not part of the build: it measures one error source of nbody_tc.cuh (see TC_CHUNK). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static double urand(uint64_t *s) { *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; return ((*s >> 11) + 0.5) / 9007199254740992.0; }
static unsigned spread(unsigned v) { v &= 1023; v = (v | v << 16) & 0x30000ff; v = (v | v << 8) & 0x300f00f; v = (v | v << 4) & 0x30c30c3; v = (v | v << 2) & 0x9249249; return v; }
struct b { double x[3], m; unsigned key; };
static int cmp(const void *a, const void *b) { unsigned ka = ((const struct b *)a)->key, kb = ((const struct b *)b)->key; return ka < kb ? -1 : ka > kb; }

int main(int argc, char **argv)
{
	int n = atoi(argv[1]), chunk = argc > 2 ? atoi(argv[2]) : 0, order = argc > 3 ? atoi(argv[3]) : 1;
	double eps2 = 1e-4;
	struct b *p = malloc(n * sizeof *p);
	uint64_t s = 42;
	double lo[3] = { 1e30, 1e30, 1e30 }, hi[3] = { -1e30, -1e30, -1e30 };
	for (int i = 0; i < n; i++) {
		double r = 1.0 / sqrt(pow(urand(&s), -2.0 / 3.0) - 1.0);
		if (r > 20) { i--; continue; }
		double z = 2 * urand(&s) - 1, t = 2 * M_PI * urand(&s), q = sqrt(1 - z * z);
		p[i].x[0] = r * q * cos(t); p[i].x[1] = r * q * sin(t); p[i].x[2] = r * z; p[i].m = 1.0 / n;
		for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], p[i].x[k]); hi[k] = fmax(hi[k], p[i].x[k]); }
	}
	double side = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
	for (int i = 0; i < n; i++) {
		unsigned c[3];
		for (int k = 0; k < 3; k++) { double u = (p[i].x[k] - lo[k]) * 1024 / side; c[k] = u >= 1023 ? 1023 : u > 0 ? (unsigned)u : 0; }
		p[i].key = spread(c[0]) | spread(c[1]) << 1 | spread(c[2]) << 2;
	}
	if (order) qsort(p, n, sizeof *p, cmp);
	double worst = 0, sum_err = 0; int cnt = 0;
	for (int g = 0; g < 8; g++) {
		int i0 = (int)((long long)g * (n / 8) / 64) * 64; /* a group of 64 */
		double c[3] = { 0 }, R2 = 0;
		double glo[3] = { 1e30, 1e30, 1e30 }, ghi[3] = { -1e30, -1e30, -1e30 };
		for (int i = i0; i < i0 + 64; i++) for (int k = 0; k < 3; k++) { glo[k] = fmin(glo[k], p[i].x[k]); ghi[k] = fmax(ghi[k], p[i].x[k]); }
		for (int k = 0; k < 3; k++) c[k] = 0.5 * (glo[k] + ghi[k]);
		for (int i = i0; i < i0 + 64; i++) { double d2 = 0; for (int k = 0; k < 3; k++) d2 += (p[i].x[k] - c[k]) * (p[i].x[k] - c[k]); R2 = fmax(R2, d2); }
		for (int i = i0; i < i0 + 64; i += 7) {
			double xi[3]; for (int k = 0; k < 3; k++) xi[k] = p[i].x[k] - c[k];
			float S[4] = { 0 }, C[4] = { 0 }; double ex[3] = { 0 }, fabs_sum = 0; float nearf[3] = { 0 };
			int inchunk = 0;
			for (int jb = 0; jb < n; jb += 8) {
				double blk[4] = { 0 };
				for (int j = jb; j < jb + 8 && j < n; j++) {
					double xj[3], d[3], r2 = eps2; for (int k = 0; k < 3; k++) { xj[k] = p[j].x[k] - c[k]; d[k] = xj[k] - xi[k]; r2 += d[k] * d[k]; }
					double w = p[j].m / (r2 * sqrt(r2));
					for (int k = 0; k < 3; k++) ex[k] += w * d[k];
					fabs_sum += w * sqrt(r2 - eps2);
					if (r2 < R2 / 16 || j == i) { for (int k = 0; k < 3; k++) nearf[k] += (float)(w * d[k]); continue; }
					for (int k = 0; k < 3; k++) blk[k] += w * xj[k];
					blk[3] += w;
				}
				if (chunk) { for (int e = 0; e < 4; e++) C[e] += (float)blk[e]; if (++inchunk == chunk) { for (int e = 0; e < 4; e++) { S[e] += C[e]; C[e] = 0; } inchunk = 0; } }
				else for (int e = 0; e < 4; e++) S[e] += (float)blk[e];
			}
			for (int e = 0; e < 4; e++) S[e] += C[e];
			double err2 = 0;
			for (int k = 0; k < 3; k++) { float a = fmaf(-(float)xi[k], S[3], S[k]) + nearf[k]; err2 += (a - ex[k]) * (a - ex[k]); }
			double e = sqrt(err2) / fabs_sum; worst = fmax(worst, e); sum_err += e; cnt++;
		}
	}
	printf("n %d chunk %d order %s: max %.3e mean %.3e\n", n, chunk, order ? "morton" : "random", worst, sum_err / cnt);
	return 0;
}
