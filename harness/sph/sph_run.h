/* sph_run.h - bin/harness sph: list, validate and time the SPH variants */
#ifndef HARNESS_SPH_RUN_H
#define HARNESS_SPH_RUN_H

#include <stddef.h>

/* The sph command; argv[0] is the program, argv[1] "sph". Returns the exit
 * status: 0 all valid, 1 a variant failed, 2 bad input. */
int sph_command(int argc, char **argv);

/* Parses "sph run|check ARGS" as sph_command would, running nothing:
 * argv[0] is "sph", argv[1] the subcommand. Returns 0, or 2 (bad input)
 * with one line in err. */
int sph_check_args(int argc, char **argv, char *err, size_t errlen);

#endif
