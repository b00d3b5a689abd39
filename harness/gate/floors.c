/* floors.c - the between-run floors and their derivation (floors.h) */
#include "floors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct floor_class floors_table[] = {
#define FLOOR(device_name_, kind_, device_, band_, floor_, pairs_, source_)                    \
	{ .device_name = device_name_, .kind = kind_, .device = device_,                       \
	  .min_call_s = (band_) ? FLOORS_SHORT_CALL_S : 0.0,                                   \
	  .max_call_s = (band_) ? HUGE_VAL : FLOORS_SHORT_CALL_S, .floor_pct = floor_,         \
	  .pairs = pairs_, .source = source_ },
#include "floors.def"
#undef FLOOR
};
const size_t floors_count = sizeof floors_table / sizeof floors_table[0];

int floors_band(double call_s)
{
	return call_s < FLOORS_SHORT_CALL_S ? 0 : 1;
}

const struct floor_class *floors_find(const char *device_name, const char *kind,
				      const char *device, double call_s)
{
	const int band = floors_band(call_s);
	for (size_t i = 0; i < floors_count; i++) {
		const struct floor_class *f = &floors_table[i];
		if (strcmp(f->device_name, device_name) == 0 && strcmp(f->kind, kind) == 0 &&
		    strcmp(f->device, device) == 0 && floors_band(f->min_call_s) == band)
			return f;
	}
	return NULL;
}

double floors_excess(double d_pct, double noise_pct)
{
	return sqrt(fmax(d_pct * d_pct - noise_pct * noise_pct, 0.0));
}

static int floors_cmp(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double floors_derive(double *e, size_t n)
{
	if (n < FLOORS_MIN_PAIRS)
		return NAN;
	qsort(e, n, sizeof *e, floors_cmp);
	size_t rank = (size_t)ceil(FLOORS_QUANTILE * (double)n);
	const double q = e[rank > 0 ? rank - 1 : 0];
	/* up to the step; a hair of rounding below a step stays on it */
	return ceil(q / FLOORS_STEP_PCT - 1e-9) * FLOORS_STEP_PCT;
}
