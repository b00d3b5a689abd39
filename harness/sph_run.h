/* sph_run.h - bin/harness sph: list, validate and time the SPH variants */
#ifndef HARNESS_SPH_RUN_H
#define HARNESS_SPH_RUN_H

/* The sph command; argv[0] is the program, argv[1] "sph". Returns the exit
 * status: 0 all valid, 1 a variant failed, 2 bad input. */
int sph_command(int argc, char **argv);

#endif
