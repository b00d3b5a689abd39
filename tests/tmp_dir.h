/* tmp_dir.h - a fresh folder under /tmp for each test, removed after it */
#ifndef TESTS_TMP_DIR_H
#define TESTS_TMP_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* Makes /tmp/harness-<name>-XXXXXX into dir (64 bytes). */
static inline void tmp_dir_make(char *dir, const char *name)
{
	snprintf(dir, 64, "/tmp/harness-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(dir));
}

/* How many entries dir holds (. and .. left out). */
static inline int tmp_dir_entries(const char *dir)
{
	char cmd[300], out[32];
	snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(out, sizeof out, p));
	pclose(p);
	return atoi(out);
}

/* rm -rf dir. */
static inline void tmp_dir_remove(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

#endif
