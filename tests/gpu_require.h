/* gpu_require.h - skip a GPU test, saying why, where no GPU can run it */
#ifndef TESTS_GPU_REQUIRE_H
#define TESTS_GPU_REQUIRE_H

#include <criterion/criterion.h>

#include "../harness/core/gpu_device.h"

/* Skips the calling test, with the reason, when no GPU can run here. */
static inline void require_gpu(void)
{
	const char *why = gpu_unavailable_reason();
	if (why)
		cr_skip_test("no GPU here: %s", why);
}

#endif
