/* checkpoint_run.h - an sph physics run cut at a checkpoint and restarted, against an unbroken one */
#ifndef TESTS_SPH_CHECKPOINT_RUN_H
#define TESTS_SPH_CHECKPOINT_RUN_H

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/core/json_in.h"
#include "../cli_run.h"
#include "../file_read.h"
#include "../tmp_dir.h"

/* The sidecar of dir/name.csv's "ends" (the state each check ended on)
 * as one line of "check step fnv;" into out. */
static inline void ck_ends(const char *dir, const char *name, char *out, size_t len)
{
	char path[256], err[256];
	struct json_in_value v;
	snprintf(path, sizeof path, "%s/%s.meta.json", dir, name);
	cr_assert_eq(json_in_read_file(path, &v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *ends = json_in_member(&v, "ends");
	cr_assert(ends && ends->type == JSON_IN_ARRAY, "%s: no ends", path);
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ends->count; i++) {
		const struct json_in_value *e = &ends->items[i];
		at += (size_t)snprintf(out + at, len - at, "%s %g %s;",
				       json_in_member(e, "check")->string,
				       json_in_member(e, "step")->number,
				       json_in_member(e, "state_fnv1a64")->string);
	}
	json_in_free(&v);
}

/*
 * Runs `sph physics ARGS` (ARGS without -o, --checkpoint or --restart)
 * unbroken into dir/whole.csv, then again cut by SIGTERM once `cut`
 * checkpoints and checks are done (HARNESS_TEST_INTERRUPT counts both),
 * and restarted from its checkpoint into dir/cut.csv: the two CSVs are
 * the same bytes and the states every check ended on the same hashes.
 * ARGS must make at least one checkpoint before the cut.
 */
static inline void ck_restart_matches(const char *dir, const char *args, int cut)
{
	char line[2048], e[8192];
	snprintf(line, sizeof line, "%s sph physics %s -q -o %s/whole.csv --checkpoint %s/w.ck",
		 cli_harness_bin(), args, dir, dir);
	const int whole = cli_run(line, e, sizeof e);
	cr_assert(whole == 0 || whole == 1, "exit %d: %s", whole, e);
	snprintf(line, sizeof line, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=%d:TERM %s sph "
		 "physics %s -q -o %s/cut.csv --checkpoint %s/c.ck", cut, cli_harness_bin(), args,
		 dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 128 + SIGTERM, "the cut run: %s", e);
	char say[512];
	snprintf(say, sizeof say, "its last checkpoint, %s/c.ck, holds step ", dir);
	cr_assert(strstr(e, say), "the interrupted run names its checkpoint: %s", e);
	snprintf(say, sizeof say, "the same command with --restart %s/c.ck goes on from there", dir);
	cr_assert(strstr(e, say), "and says how to go on: %s", e);
	snprintf(line, sizeof line, "%s sph physics %s -q -o %s/cut.csv --checkpoint %s/c.ck "
		 "--restart %s/c.ck", cli_harness_bin(), args, dir, dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), whole, "the restart: %s", e);
	char a[256], b[256];
	snprintf(a, sizeof a, "%s/whole.csv", dir);
	snprintf(b, sizeof b, "%s/cut.csv", dir);
	size_t la, lb;
	unsigned char *ta = file_read_whole(a, &la), *tb = file_read_whole(b, &lb);
	cr_expect(la == lb && memcmp(ta, tb, la) == 0,
		  "the restarted run's rows are the unbroken run's, byte for byte");
	free(ta);
	free(tb);
	char ea[1024], eb[1024];
	ck_ends(dir, "whole", ea, sizeof ea);
	ck_ends(dir, "cut", eb, sizeof eb);
	cr_expect(ea[0] != '\0', "the checks' ends are recorded");
	cr_expect_str_eq(eb, ea, "every check ends on the same state, bit for bit");
}

/* dir/a's and dir/b's frames of variant on column at each of the n
 * steps are the same bytes. */
static inline void ck_frames_match(const char *dir, const char *variant, const char *column,
				   const char *const *steps, int n)
{
	for (int k = 0; k < n; k++) {
		char a[200], b[200];
		snprintf(a, sizeof a, "%s/a/%s-%s-%s.png", dir, variant, column, steps[k]);
		snprintf(b, sizeof b, "%s/b/%s-%s-%s.png", dir, variant, column, steps[k]);
		size_t la, lb;
		unsigned char *ta = file_read_whole(a, &la), *tb = file_read_whole(b, &lb);
		cr_expect(la == lb && memcmp(ta, tb, la) == 0, "the frame at step %s", steps[k]);
		free(ta);
		free(tb);
	}
}

#endif
