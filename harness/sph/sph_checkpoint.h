/* sph_checkpoint.h - a long SPH command's state at a step, kept so that a later process goes on from it */
#ifndef HARNESS_SPH_CHECKPOINT_H
#define HARNESS_SPH_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sph_state.h"

/*
 * A run that must fit a time limit (a batch queue's slot, a CI job)
 * writes checkpoints and a later process restarts from the last one. A
 * checkpoint is one file, written atomically: an SPH state (sph_state.h:
 * the column, seed, step, time, the scene's hashes, the variant as its
 * producer, the build, then the particles) followed by the command's
 * progress (SPH_CHECKPOINT_FORMAT):
 *
 *   "SPHCKPT1", char[32] command ("sph physics"), u64 binary_fnv (of the
 *   harness binary that wrote it), u64 options_fnv, char[1024] options
 *   (the options that change the command's results, as text), u64
 *   progress_len, the command's progress (its own layout), u64 fnv of
 *   everything from "SPHCKPT1" to here
 *
 * and a sidecar, path + ".json", for people: the format, the build, the
 * variant, the scene and the step (the restart reads only the file).
 *
 * A checkpoint goes on only in the binary that wrote it, the same
 * command, variant and options: the state then continues bit for bit.
 */
#define SPH_CHECKPOINT_FORMAT "sph-checkpoint/1"
#define SPH_CHECKPOINT_COMMAND_LEN 32
#define SPH_CHECKPOINT_OPTIONS_LEN 1024

struct sph_checkpoint {
	struct sph_state_meta state; /* the particles' step, scene, variant and build */
	char command[SPH_CHECKPOINT_COMMAND_LEN];
	uint64_t binary_fnv;  /* sph_checkpoint_binary_fnv() of the writer */
	uint64_t options_fnv; /* of options */
	char options[SPH_CHECKPOINT_OPTIONS_LEN];
	unsigned char *progress; /* the command's own, progress_len bytes */
	size_t progress_len;
	float *pos4, *vel4;	 /* read: 4 * state.n floats each (malloc) */
};

/* The FNV-1a hash of this process's binary (/proc/self/exe), computed
 * once; 0 when it cannot be read. Two builds of one commit differ here. */
uint64_t sph_checkpoint_binary_fnv(void);

/* Writes ck (its state meta, command, options and progress; binary_fnv
 * and options_fnv are set here) with the particles pos4 and vel4 to
 * path, atomically, then its sidecar. 0, or -1 with one line in err. */
int sph_checkpoint_write(const char *path, struct sph_checkpoint *ck, const float *pos4,
			 const float *vel4, char *err, size_t errlen);

/* Reads the checkpoint at path into ck (particles and progress
 * allocated: sph_checkpoint_free). 0, or -1 with one line in err: no
 * file, not a checkpoint, cut short, damaged. */
int sph_checkpoint_read(const char *path, struct sph_checkpoint *ck, char *err, size_t errlen);

/* Whether the checkpoint ck (read from path) can go on in this process
 * as command on the variant with these options, at a state of the flow
 * of want (its column, seed, counts and scene hashes; the step is ck's):
 * 0, or -1 with the one line of refusal in err (another binary, command,
 * variant, options or scene). */
int sph_checkpoint_check(const struct sph_checkpoint *ck, const char *path, const char *command,
			 const char *variant, const char *options,
			 const struct sph_state_meta *want, char *err, size_t errlen);

void sph_checkpoint_free(struct sph_checkpoint *ck);

/* Appending to and reading from a progress, little-endian as the file. */
struct sph_checkpoint_buf {
	unsigned char *b;
	size_t len, cap, at;
	bool failed; /* out of memory, or read past the end */
};
void sph_checkpoint_put(struct sph_checkpoint_buf *w, const void *v, size_t len);
void sph_checkpoint_put_u64(struct sph_checkpoint_buf *w, uint64_t v);
void sph_checkpoint_put_f64(struct sph_checkpoint_buf *w, double v);
void sph_checkpoint_put_str(struct sph_checkpoint_buf *w, const char *s, size_t len);
/* The rest of fp, appended (failed set on a read error). */
void sph_checkpoint_put_file(struct sph_checkpoint_buf *w, FILE *fp);
void sph_checkpoint_get(struct sph_checkpoint_buf *r, void *v, size_t len);
uint64_t sph_checkpoint_get_u64(struct sph_checkpoint_buf *r);
double sph_checkpoint_get_f64(struct sph_checkpoint_buf *r);
void sph_checkpoint_get_str(struct sph_checkpoint_buf *r, char *s, size_t len);

#endif
