/* rng.h - deterministic random numbers: splitmix64 seeding xoshiro256** */
#ifndef RNG_H
#define RNG_H

#include <stddef.h>
#include <stdint.h>

/*
 * xoshiro256** state (Blackman & Vigna 2018). Every stream is reproducible
 * from its 64-bit seed on any platform: the same seed gives the same
 * numbers, so initial conditions and tests are repeatable byte for byte.
 */
struct rng {
	uint64_t s[4];
};

/* One step of splitmix64: advances *state and returns the next output.
 * Used to spread a seed over the 256-bit xoshiro state. */
uint64_t rng_splitmix64(uint64_t *state);

/* Seed r from a 64-bit seed (any value, 0 included). */
void rng_seed(struct rng *r, uint64_t seed);

/* Next 64 uniformly distributed bits. */
uint64_t rng_next(struct rng *r);

/* Uniform double in [0, 1) with 53 random bits (a multiple of 2^-53). */
double rng_uniform(struct rng *r);

/* Uniform integer in [0, bound), without modulo bias (rejection).
 * bound must be > 0; returns 0 when bound == 0. */
size_t rng_below(struct rng *r, size_t bound);

#endif /* RNG_H */
