/* test_compare_busy.c - compare says which side ran on a busy machine */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli_run.h"
#include "../tmp_dir.h"

/* dir/NAME.csv and its sidecar: copies of dir/run's, the sidecar's
 * machine_load made to say busy (true or false) with others CPUs of 2
 * busy; the CSV still matches it. */
static void pair_saying(const char *dir, const char *name, const char *busy, const char *others)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "cp %s/run.csv %s/%s.csv && sed -e 's/\"busy\": [a-z]*/\"busy\": %s/' "
		 "-e 's/\"others_cpus\": [^,]*/\"others_cpus\": %s/' -e 's/\"cpus\": [0-9]*/\"cpus\": 2/' "
		 "%s/run.meta.json > %s/%s.meta.json",
		 dir, dir, name, busy, others, dir, dir, name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The first two lines of compare's output on base and new. */
static void compare_heads(const char *base, const char *new, char *b, char *n, size_t len)
{
	char cmd[1024], out[1 << 15];
	snprintf(cmd, sizeof cmd, "%s compare %s %s --allow-missing --allow-inconclusive 2>/dev/null",
		 cli_harness_bin(), base, new);
	int rc = cli_run_stdout(cmd, out, sizeof out);
	cr_assert(rc == 0 || rc == 1 || rc == 3, "exit %d: %s", rc, out);
	char *nl = strchr(out, '\n'), *nl2 = nl ? strchr(nl + 1, '\n') : NULL;
	cr_assert(nl && nl2, "%s", out);
	snprintf(b, len, "%.*s", (int)(nl - out), out);
	snprintf(n, len, "%.*s", (int)(nl2 - nl - 1), nl + 1);
}

/* The BASE and NEW lines name a side whose sidecar found the machine
 * busy, with how busy, whichever side it is; a side found quiet gets no
 * such note; the pairs still check against their sidecars. */
Test(compare_busy, a_side_that_ran_on_a_busy_machine_is_named, .timeout = 60)
{
	char dir[64], cmd[1024], err[4096], a[256], b[256], base[2048], new[2048];
	tmp_dir_make(dir, "compare-busy");
	snprintf(cmd, sizeof cmd,
		 "%s run -q --variant cpu-portable --n 16 --min-time 0.01 --max-time 0.01 --out %s/run.csv",
		 cli_harness_bin(), dir);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	pair_saying(dir, "busy", "true", "0.93");
	pair_saying(dir, "quiet", "false", "0.02");
	snprintf(a, sizeof a, "%s/busy.csv", dir);
	snprintf(b, sizeof b, "%s/quiet.csv", dir);
	compare_heads(a, b, base, new, sizeof base);
	cr_expect(strncmp(base, "BASE ", 5) == 0 &&
			  strstr(base, "checksum matches its sidecar; ran on a busy machine: other "
				       "processes kept 0.93 of its 2 CPUs busy)"),
		  "%s", base);
	cr_expect(strncmp(new, "NEW  ", 5) == 0 && strstr(new, "checksum matches") &&
			  !strstr(new, "busy machine"), "%s", new);
	compare_heads(b, a, base, new, sizeof base);
	cr_expect(!strstr(base, "busy machine"), "%s", base);
	cr_expect(strstr(new, "ran on a busy machine: other processes kept 0.93"), "%s", new);
	tmp_dir_remove(dir);
}
