/* sph_state.h - the SPH state at one step of a flow, as a file: what timed windows start from */
#ifndef HARNESS_SPH_STATE_H
#define HARNESS_SPH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../reference/sph_scene.h"

/*
 * The state of a dam break at one step: the fluid's positions and
 * velocities (symplectic Euler needs nothing else: densities and forces
 * are computed from the positions each step), with what says which flow
 * it belongs to. A variant created from it (sph_ops.create with the
 * scene's walls) goes on exactly as the flow that reached it.
 *
 * The file (format SPH_STATE_FORMAT, little-endian), in this order:
 *   "SPHSTATE", u32 version (1), u32 0x01020304 (the byte order)
 *   the column: char[48] name, i32 nx ny nz layers lid, f64 tank jitter top
 *   u64 seed, n (fluid), nb (boundary), step; f64 time_s, dt
 *   u64 params_fnv, walls_fnv, start_fnv  (sph_state_scene_hashes)
 *   char[32] producer (the variant that ran the flow), char[48] build
 *   (the harness commit it was built from, "+dirty" when the tree was)
 *   u64 clamps (the producer's last-resort clamps from step 0 to step)
 *   u64 payload_fnv (sph_state_payload_hash)
 *   f32 pos4[4n], f32 vel4[4n]
 * Files are written atomically (core/atomic_file.h).
 */
#define SPH_STATE_FORMAT "sph-state/1"
#define SPH_STATE_PRODUCER_LEN 32
#define SPH_STATE_BUILD_LEN 48

/* What identifies a state, besides its particles. */
struct sph_state_meta {
	struct sph_column col;
	uint64_t seed;
	size_t n, nb;
	unsigned long step;
	double time_s, dt;
	uint64_t params_fnv; /* of the scene's sph_params, field by field */
	uint64_t walls_fnv;  /* of its boundary particles (bnd4) */
	uint64_t start_fnv;  /* of its fluid at step 0 (pos4 then vel4) */
	char producer[SPH_STATE_PRODUCER_LEN];
	char build[SPH_STATE_BUILD_LEN];
	unsigned long long clamps;
	uint64_t payload_fnv; /* of pos4 then vel4 (sph_state_payload_hash) */
};

/* The meta of a state of scene sc (built from col and seed) at step,
 * reached by producer: the column, counts, time and the scene's hashes;
 * build is this binary's (sph_state_build); clamps and payload_fnv 0. */
void sph_state_meta_of(struct sph_state_meta *m, const struct sph_column *col, uint64_t seed,
		       const struct sph_scene *sc, unsigned long step, const char *producer);

/* "<commit>" or "<commit>+dirty": the build a state records. */
const char *sph_state_build(void);

/* The hash of n particles' positions then velocities (4n floats each), as
 * the timed window hashes what it ends on. */
uint64_t sph_state_payload_hash(const float *pos4, const float *vel4, size_t n);

/* The bytes of a state file of n fluid particles. */
size_t sph_state_file_bytes(size_t n);

/* Writes m and the particles to path, atomically; m->payload_fnv is set
 * from them. 0, or -1 with one line in err. */
int sph_state_write(const char *path, struct sph_state_meta *m, const float *pos4,
		    const float *vel4, char *err, size_t errlen);

/* The same into the open file fp at its position (path: its name in
 * messages), not atomically: a temporary file's. */
int sph_state_fwrite(FILE *fp, const char *path, struct sph_state_meta *m, const float *pos4,
		     const float *vel4, char *err, size_t errlen);

/* Reads only the meta of the state at path. 0, or -1 with one line in err
 * (no file, not a state file, another version or byte order, cut short). */
int sph_state_read_meta(const char *path, struct sph_state_meta *m, char *err, size_t errlen);

/* Reads the state at path into m and pos4, vel4 (4 * want_n floats each)
 * after checking that it has want_n fluid particles, and that its
 * particles hash to its payload_fnv. 0, or -1 with one line in err. */
int sph_state_read(const char *path, struct sph_state_meta *m, float *pos4, float *vel4,
		   size_t want_n, char *err, size_t errlen);

/* The same from the open file fp (read from its start), named path in
 * messages. */
int sph_state_fread(FILE *fp, const char *path, struct sph_state_meta *m, float *pos4,
		    float *vel4, size_t want_n, char *err, size_t errlen);

/* The same, leaving what follows the particles unread at fp's position
 * (a checkpoint's progress: sph_checkpoint.h) instead of refusing it. */
int sph_state_fread_more(FILE *fp, const char *path, struct sph_state_meta *m, float *pos4,
			 float *vel4, size_t want_n, char *err, size_t errlen);

/* Whether state a is of the same flow as b at the same step (the column,
 * seed, counts, step, dt and the scene's hashes agree; producer and build
 * when same_producer); when not, one line in why saying what differs. */
bool sph_state_same_flow(const struct sph_state_meta *a, const struct sph_state_meta *b,
			 bool same_producer, char *why, size_t whylen);

#endif
