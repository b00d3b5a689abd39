/* test_busy.c - a busy machine seen: its load in the sidecar, a warning line, compare naming it */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/core/json_in.h"
#include "../harness/core/sysinfo.h"
#include "cli_run.h"
#include "nbody/mpi_run.h"
#include "tmp_dir.h"

/* A reading of busy_s CPU seconds since boot, own_s of this process,
 * at wall_s. */
static struct sysinfo_load reading(double wall_s, double busy_s, double own_s)
{
	struct sysinfo_load l;
	memset(&l, 0, sizeof l);
	l.wall_s = wall_s;
	l.busy_cpu_s = busy_s;
	l.own_cpu_s = own_s;
	return l;
}

/* The rule: what the machine spent busy less the run's own, per second
 * of the run, against max(0.5, a tenth of the CPUs). */
Test(busy, others_are_the_busy_time_less_the_runs_own)
{
	struct sysinfo_busy b;
	struct sysinfo_load a = reading(100, 1000, 5), z = reading(110, 1012, 7);
	sysinfo_busy_judge(&a, &z, 2.0, 2, &b); /* 12 s busy, 2 of them the run's */
	cr_expect_float_eq(b.wall_s, 10, 1e-9);
	cr_expect_float_eq(b.others_cpu_s, 10, 1e-9);
	cr_expect_float_eq(b.others_cpus, 1.0, 1e-9);
	cr_expect_float_eq(b.threshold_cpus, SYSINFO_BUSY_CPUS, 1e-12, "half a CPU of 2");
	cr_expect_eq(b.busy, 1);
	sysinfo_busy_judge(&a, &z, 10.5, 2, &b); /* others 1.5 s: 0.15 of a CPU */
	cr_expect_float_eq(b.others_cpus, 0.15, 1e-9);
	cr_expect_eq(b.busy, 0);
	sysinfo_busy_judge(&a, &z, 13.0, 2, &b); /* ticks coarser than getrusage: never below 0 */
	cr_expect_float_eq(b.others_cpu_s, 0, 1e-12);
	cr_expect_eq(b.busy, 0);
	/* on 64 CPUs a tenth of them: 6.4 */
	struct sysinfo_load y = reading(110, 1000 + 10 * 7.0 + 2, 7);
	sysinfo_busy_judge(&a, &y, 2.0, 64, &b);
	cr_expect_float_eq(b.threshold_cpus, 6.4, 1e-9);
	cr_expect_eq(b.busy, 1, "7 CPUs of others");
	y.busy_cpu_s = 1000 + 10 * 6.0 + 2;
	sysinfo_busy_judge(&a, &y, 2.0, 64, &b);
	cr_expect_eq(b.busy, 0, "6 CPUs of 64 is no busy machine");
	/* no /proc/stat: unknown, not quiet */
	y.busy_cpu_s = NAN;
	sysinfo_busy_judge(&a, &y, 2.0, 2, &b);
	cr_expect_eq(b.busy, -1);
	char says[256];
	sysinfo_busy_say(&b, says, sizeof says);
	cr_expect(strstr(says, "unknown"), "%s", says);
}

/* The readings themselves: this machine's /proc has them. */
Test(busy, a_reading_has_the_load_the_busy_time_and_the_own_time)
{
	struct sysinfo_load a, z;
	sysinfo_load_read(&a);
	volatile double x = 0;
	for (long i = 0; i < 30000000L; i++)
		x += 1e-9 * (double)i;
	sysinfo_load_read(&z);
	cr_expect(isfinite(a.loadavg[0]) && a.loadavg[0] >= 0, "loadavg %g", a.loadavg[0]);
	cr_expect(isfinite(a.busy_cpu_s) && z.busy_cpu_s >= a.busy_cpu_s, "%g %g", a.busy_cpu_s,
		  z.busy_cpu_s);
	cr_expect_gt(z.own_cpu_s, a.own_cpu_s, "the loop took CPU time");
	cr_expect_gt(z.wall_s, a.wall_s);
	cr_expect_eq(strlen(a.utc), 20, "%s", a.utc);
}

/* Starts k processes that only spin; their pids into pids. */
static void burn(int k, pid_t *pids)
{
	for (int i = 0; i < k; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0) {
			for (volatile unsigned long n = 0;; n++)
				;
		}
	}
}

static void stop(int k, const pid_t *pids)
{
	for (int i = 0; i < k; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* The sidecar's machine_load of csv (its sidecar parsed into v). */
static const struct json_in_value *machine_load(const char *dir, const char *name,
						struct json_in_value *v)
{
	char side[256], err[512];
	snprintf(side, sizeof side, "%s/%s.meta.json", dir, name);
	cr_assert_eq(json_in_read_file(side, v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *m = json_in_member(v, "machine_load");
	cr_assert_not_null(m, "no machine_load in %s", side);
	return m;
}

static double number(const struct json_in_value *obj, const char *key)
{
	const struct json_in_value *x = json_in_member(obj, key);
	cr_assert(x && x->type == JSON_IN_NUMBER, "no number %s", key);
	return x->number;
}

/*
 * A run beside processes that keep more than the threshold of CPUs busy:
 * its sidecar records the load at its start and end and the others' CPU
 * time, says busy, and the run ends with one warning line naming it.
 */
Test(busy, a_run_beside_spinning_processes_is_flagged, .timeout = 120)
{
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const int k = (int)ceil(sysinfo_busy_threshold((int)cpus)) + 1;
	pid_t pids[256];
	char dir[64], cmd[1024], err[4096];
	cr_assert_lt(k, 256);
	tmp_dir_make(dir, "busy");
	burn(k, pids);
	snprintf(cmd, sizeof cmd,
		 "%s run --variant cpu-portable --n 1024 --min-time 1 --max-time 1 --out %s/b.csv",
		 cli_harness_bin(), dir);
	int rc = cli_run(cmd, err, sizeof err);
	stop(k, pids);
	cr_assert_eq(rc, 0, "%s", err);
	struct json_in_value v;
	const struct json_in_value *m = machine_load(dir, "b", &v);
	const struct json_in_value *busy = json_in_member(m, "busy");
	cr_expect(busy && busy->type == JSON_IN_BOOL && busy->boolean, "%d spinning: not busy", k);
	cr_expect_geq(number(m, "others_cpus"), number(m, "busy_threshold_cpus"));
	cr_expect_eq(number(m, "cpus"), (double)cpus);
	cr_expect_gt(number(m, "run_cpu_s"), 0);
	cr_expect_geq(number(m, "wall_s"), 1.0);
	for (int e = 0; e < 2; e++) {
		const struct json_in_value *r = json_in_member(m, e ? "end" : "start");
		const struct json_in_value *la = json_in_member(r, "loadavg");
		cr_expect(la && la->type == JSON_IN_ARRAY && la->count == 3, "%s: loadavg",
			  e ? "end" : "start");
	}
	json_in_free(&v);
	const char *w = strstr(err, "harness: warning: the machine was busy during this run: ");
	cr_expect(w != NULL, "no warning:\n%s", err);
	cr_expect(w && !strstr(w + 1, "harness: warning: the machine was busy"), "one line:\n%s", err);
	cr_expect(w && strstr(w, "b.meta.json: machine_load)\n"), "%s", err);
	/* -q: the sidecar says it, the screen does not */
	snprintf(cmd, sizeof cmd,
		 "%s run -q --variant cpu-portable --n 64 --min-time 0 --max-time 0.01 --out %s/q.csv",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	cr_expect_null(strstr(err, "warning"), "%s", err);
	tmp_dir_remove(dir);
}

/* Under mpirun the other ranks on this host are the run's own: their
 * CPU time is in run_cpu_s, not counted as other processes'. */
Test(busy, other_ranks_on_this_host_are_the_runs_own, .timeout = 120)
{
	need_mpirun();
	char dir[64], args[512], err[4096];
	tmp_dir_make(dir, "busy-mpi");
	snprintf(args, sizeof args,
		 "run -q --variant dist-ring-cpu --n 4096 --min-time 0.5 --max-time 0.5 --out %s/m.csv",
		 dir);
	cr_assert_eq(mpi_harness(2, NULL, args, err, sizeof err), 0, "%s", err);
	struct json_in_value v;
	const struct json_in_value *m = machine_load(dir, "m", &v);
	const struct json_in_value *ranks = json_in_member(&v, "ranks");
	cr_assert(ranks && ranks->type == JSON_IN_ARRAY && ranks->count == 2);
	const double r0 = number(&ranks->items[0], "cpu_s"), r1 = number(&ranks->items[1], "cpu_s");
	cr_expect_gt(r1, 0.1, "rank 1 computed");
	/* rank 0's own is read when the sidecar is written, a little later
	 * than its entry's */
	cr_expect_geq(number(m, "run_cpu_s"), r0 + r1 - 0.05, "run %g, ranks %g + %g",
		      number(m, "run_cpu_s"), r0, r1);
	json_in_free(&v);
	tmp_dir_remove(dir);
}
