/* suites.c - the named sweeps of suites.def */
#include "suites.h"

#include <string.h>

const struct suite_entry suite_entries[] = {
#define SUITE(name_, variants_, n_list_, mode_) \
	{ .name = name_, .variants = variants_, .n_list = n_list_, .mode = mode_ },
#include "suites.def"
#undef SUITE
};
const size_t suite_entry_count = sizeof suite_entries / sizeof suite_entries[0];

int suite_exists(const char *name)
{
	if (strcmp(name, "all") == 0)
		return 1;
	for (size_t i = 0; i < suite_entry_count; i++)
		if (strcmp(suite_entries[i].name, name) == 0)
			return 1;
	return 0;
}
