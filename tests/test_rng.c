/* test_rng.c - Criterion tests for reference/rng.c (suite rng) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>

#include "rng.h"

/* splitmix64 from seed 1234567: the published test vector (Rosetta Code,
 * "Pseudo-random numbers/Splitmix64"). */
Test(rng, splitmix64_known_answers)
{
	static const uint64_t want[5] = {
		6457827717110365317ULL, 3203168211198807973ULL,
		9817491932198370423ULL, 4593380528125082431ULL,
		16408922859458223821ULL,
	};
	uint64_t state = 1234567;

	for (int k = 0; k < 5; k++) {
		uint64_t got = rng_splitmix64(&state);

		cr_assert(got == want[k], "output %d: %llu, want %llu", k,
			  (unsigned long long)got, (unsigned long long)want[k]);
	}
}

/* rng_seed fills the state with the first four splitmix64 outputs of the
 * seed (the vector above), so a seed means the same stream everywhere. */
Test(rng, seed_is_splitmix64_expansion)
{
	static const uint64_t want[4] = {
		6457827717110365317ULL, 3203168211198807973ULL,
		9817491932198370423ULL, 4593380528125082431ULL,
	};
	struct rng r;

	rng_seed(&r, 1234567);
	for (int k = 0; k < 4; k++)
		cr_assert(r.s[k] == want[k], "state word %d: %llu", k,
			  (unsigned long long)r.s[k]);
}

/*
 * xoshiro256** from state {1, 2, 3, 4}, worked by hand from the algorithm:
 * out = rotl(s1 * 5, 7) * 9, so out0 = rotl(10, 7) * 9 = 11520; the update
 * leaves s1 = 0 (out1 = 0), then s1 = 262149 (out2 = 262149*5*128*9).
 */
Test(rng, xoshiro256starstar_known_answers)
{
	static const uint64_t want[3] = { 11520, 0, 1509978240 };
	struct rng r = { { 1, 2, 3, 4 } };

	for (int k = 0; k < 3; k++) {
		uint64_t got = rng_next(&r);

		cr_assert(got == want[k], "output %d: %llu, want %llu", k,
			  (unsigned long long)got, (unsigned long long)want[k]);
	}
}

Test(rng, same_seed_same_stream_different_seed_different)
{
	struct rng a, b, c;
	int differ = 0;

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	rng_seed(&c, 43);
	for (int k = 0; k < 1000; k++) {
		uint64_t x = rng_next(&a);

		cr_assert(x == rng_next(&b), "streams of seed 42 part at %d", k);
		differ += x != rng_next(&c);
	}
	cr_assert(differ > 990, "seeds 42 and 43 agree on %d of 1000",
		  1000 - differ);
}

/* Seed 0 must not give the all-zero xoshiro state (which outputs zeros). */
Test(rng, seed_zero_is_usable)
{
	struct rng r;
	uint64_t any = 0;

	rng_seed(&r, 0);
	for (int k = 0; k < 4; k++)
		any |= rng_next(&r);
	cr_assert(any != 0, "seed 0 gives a stuck stream");
}

/*
 * 10^6 draws: each in [0,1) and a multiple of 2^-53; the mean of U(0,1)
 * has standard deviation sqrt(1/12) / 1000 = 2.9e-4, so 2e-3 is 7 sigma.
 */
Test(rng, uniform_range_resolution_mean)
{
	const int count = 1000000;
	struct rng r;
	double sum = 0.0;

	rng_seed(&r, 7);
	for (int k = 0; k < count; k++) {
		double u = rng_uniform(&r);
		double scaled = u * 0x1.0p53;

		cr_assert(u >= 0.0 && u < 1.0, "draw %d: %.17g outside [0,1)",
			  k, u);
		cr_assert(scaled == floor(scaled), "draw %d: %.17g not k/2^53",
			  k, u);
		sum += u;
	}
	cr_assert(fabs(sum / count - 0.5) < 2e-3, "mean %.6f", sum / count);
}

Test(rng, below_stays_in_bounds)
{
	static const size_t bounds[] = { 1, 2, 3, 7, 1000, 1u << 31,
					 SIZE_MAX };
	struct rng r;

	rng_seed(&r, 11);
	for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
		for (int k = 0; k < 10000; k++) {
			size_t x = rng_below(&r, bounds[b]);

			cr_assert(x < bounds[b], "rng_below(%zu) gave %zu",
				  bounds[b], x);
		}
	cr_assert(rng_below(&r, 1) == 0);
	cr_assert(rng_below(&r, 0) == 0, "bound 0 is documented to give 0");
}

/* 60000 draws below 6: each count is binomial(60000, 1/6), mean 10000
 * and sigma 91, so 500 is 5.5 sigma. */
Test(rng, below_small_bound_histogram)
{
	size_t count[6] = { 0 };
	struct rng r;

	rng_seed(&r, 5);
	for (int k = 0; k < 60000; k++)
		count[rng_below(&r, 6)]++;
	for (int v = 0; v < 6; v++)
		cr_assert(count[v] > 9500 && count[v] < 10500,
			  "value %d drawn %zu times of 60000", v, count[v]);
}

/* The planted bug for the next test: plain modulo reduction. */
static size_t rng_test_below_modulo(struct rng *r, size_t bound)
{
	return (size_t)(rng_next(r) % bound);
}

/* Fraction of 20000 draws below bound that fall under bound / 2. */
static double rng_test_low_half(struct rng *r, size_t bound,
				size_t (*below)(struct rng *, size_t))
{
	int low = 0;

	for (int k = 0; k < 20000; k++)
		low += below(r, bound) < bound / 2;
	return low / 20000.0;
}

/*
 * For bound = 2/3 of 2^64, modulo reduction gives the values below
 * 2^64 - bound (= bound/2) twice as often: 2/3 of draws fall in the low
 * half instead of 1/2. With 20000 draws sigma is 0.0035, so a 0.03 band
 * around 1/2 accepts rejection sampling and rejects the planted modulo.
 */
Test(rng, below_has_no_modulo_bias)
{
	struct rng r;
	size_t bound;
	double fair, biased;

	if (SIZE_MAX < UINT64_MAX)
		cr_skip_test("size_t is narrower than 64 bits");
	bound = (size_t)(UINT64_MAX / 3 * 2);
	rng_seed(&r, 3);
	fair = rng_test_low_half(&r, bound, rng_below);
	biased = rng_test_low_half(&r, bound, rng_test_below_modulo);
	cr_assert(fabs(fair - 0.5) < 0.03, "rng_below low-half fraction %.4f",
		  fair);
	cr_assert(fabs(biased - 0.5) > 0.03,
		  "planted modulo bias not detected (%.4f)", biased);
}
