/* sph_physics.h - bin/harness sph physics: the SPH water against experiment and known answers */
#ifndef HARNESS_SPH_PHYSICS_H
#define HARNESS_SPH_PHYSICS_H

/* The checks, their bounds and the published data they judge by. */
#include "sph_physics_checks.h"

/* The sph physics command: argv[0] is "sph", argv[1] "physics". Returns
 * 0 every judged value within its bound, 1 one outside (or a variant
 * failure), 2 bad input. */
int sph_physics_command(int argc, char **argv);

#endif
