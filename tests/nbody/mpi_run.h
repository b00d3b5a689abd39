/* mpi_run.h - running bin/harness on several ranks from a test: mpirun, skips, status */
#ifndef TESTS_MPI_RUN_H
#define TESTS_MPI_RUN_H

#include "../../harness/nbody/dist.h"
#include "../cli_run.h"

/* Skips the calling test, saying why, where the ranks cannot be started. */
static inline void need_mpirun(void)
{
	const char *why = dist_unavailable_reason();
	if (why)
		cr_skip_test("distributed variants unavailable: %s", why);
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		cr_skip_test("mpirun is not installed (apt-get install openmpi-bin, or make test)");
	/* OpenMPI refuses root unless told; oversubscribe lets 3 ranks share
	 * 2 cores. */
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
}

/* Runs `mpirun -np ranks [env] harness args`; returns the exit status,
 * stderr in errtext. */
static inline int mpi_harness(int ranks, const char *env, const char *args, char *errtext, size_t errlen)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "mpirun -q --oversubscribe -np %d %s%s %s %s", ranks,
		 env ? "-x " : "", env ? env : "", cli_harness_bin(), args);
	return cli_run(cmd, errtext, errlen);
}

/* Lines in s (a one-line message has one). */
static inline int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
