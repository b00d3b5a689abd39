/* rng.c - deterministic random numbers: splitmix64 seeding xoshiro256** */
#include "rng.h"

/* Constants from Vigna's public-domain splitmix64.c. */
uint64_t rng_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64 never yields four zero words in a row, so the xoshiro state
 * is never the all-zero state (from which it could not leave). */
void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t sm = seed;

	for (int k = 0; k < 4; k++)
		r->s[k] = rng_splitmix64(&sm);
}

static uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** 1.0, as in Vigna's public-domain xoshiro256starstar.c. */
uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* The top 53 bits (the best ones of xoshiro256**) scaled by 2^-53. */
double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * Rejection: of the 2^64 possible outputs, drop the lowest
 * 2^64 mod bound so that the rest is a whole number of copies of
 * [0, bound) and the remainder is uniform.
 */
size_t rng_below(struct rng *r, size_t bound)
{
	const uint64_t b = (uint64_t)bound;
	uint64_t threshold, x;

	if (bound == 0)
		return 0;
	threshold = (0 - b) % b;	/* 2^64 mod b */
	do {
		x = rng_next(r);
	} while (x < threshold);
	return (size_t)(x % b);
}
