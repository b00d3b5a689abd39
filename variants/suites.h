/* suites.h - the named sweeps of suites.def */
#ifndef VARIANTS_SUITES_H
#define VARIANTS_SUITES_H

#include <stddef.h>

enum suite_mode { SUITE_FORCES, SUITE_STEPS };

struct suite_entry {
	const char *name;
	const char *variants; /* names or globs, comma-separated */
	const char *n_list;   /* --n syntax */
	enum suite_mode mode;
};

extern const struct suite_entry suite_entries[];
extern const size_t suite_entry_count;

/* Whether name is a suite (or "all"). */
int suite_exists(const char *name);

#endif
