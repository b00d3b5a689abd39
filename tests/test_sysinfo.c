/* test_sysinfo.c - build facts baked in by the Makefile */
#include <criterion/criterion.h>
#include <string.h>

#include "../harness/core/sysinfo.h"

/* What a build of another revision must repeat: the compilers and the
 * architecture, always, each once, and the list ends. */
Test(sysinfo, make_settings_name_the_compilers_and_the_architecture)
{
	const char *always[] = { "CC", "NVCC", "CUDA_ARCH" };
	const struct sysinfo_make_setting *s = sysinfo_make_settings();
	for (size_t a = 0; a < sizeof always / sizeof *always; a++) {
		size_t seen = 0;
		for (size_t i = 0; s[i].name; i++) {
			cr_assert_not_null(s[i].value, "%s", s[i].name);
			seen += strcmp(s[i].name, always[a]) == 0;
		}
		cr_expect_eq(seen, 1, "%s appears %zu times", always[a], seen);
	}
	cr_expect_neq(s[0].value[0], '\0', "CC is never empty");
}
