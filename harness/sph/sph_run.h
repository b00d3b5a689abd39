/* sph_run.h - bin/harness sph: list, validate and time the SPH variants */
#ifndef HARNESS_SPH_RUN_H
#define HARNESS_SPH_RUN_H

#include <stddef.h>

/*
 * Bytes one fluid particle costs at most on the host while a row is
 * checked: the scene's positions and velocities (32), what is read back
 * from the variant (52), the CPU variant's state (108), the double
 * reference's state (88) and its neighbour lists (some 40 pairs of 8
 * bytes: 320), the validation's arrays (40); rounded up.
 */
#define SPH_RUN_BYTES_PER_PARTICLE 768

/* Whether column col fits in this machine's memory (sysinfo_check_memory);
 * 0, or -1 with one line in err naming it and both amounts. */
struct sph_column;
int sph_run_check_memory(const struct sph_column *col, char *err, size_t errlen);

/* The sph command; argv[0] is the program, argv[1] "sph". Returns the exit
 * status: 0 all valid, 1 a variant failed, 2 bad input. */
int sph_command(int argc, char **argv);

/* Parses "sph run|check ARGS" as sph_command would, running nothing:
 * argv[0] is "sph", argv[1] the subcommand. Returns 0, or 2 (bad input)
 * with one line in err. */
int sph_check_args(int argc, char **argv, char *err, size_t errlen);

#endif
