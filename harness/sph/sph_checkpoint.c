/* sph_checkpoint.c - checkpoints: an SPH state and a command's progress in one file */
#define _POSIX_C_SOURCE 200809L
#include "sph_checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../core/json_out.h"
#include "../core/results.h"
#include "../core/sysinfo.h"

#define SPH_CHECKPOINT_MAGIC "SPHCKPT1"
/* The longest progress a checkpoint holds (a command's rows and curves). */
#define SPH_CHECKPOINT_MAX_PROGRESS ((size_t)1 << 30)

/* ---- the progress's bytes ----------------------------------------------- */

void sph_checkpoint_put(struct sph_checkpoint_buf *w, const void *v, size_t len)
{
	if (w->failed)
		return;
	if (w->len + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + len)
			cap *= 2;
		unsigned char *b = realloc(w->b, cap);
		if (!b) {
			w->failed = true;
			return;
		}
		w->b = b;
		w->cap = cap;
	}
	memcpy(w->b + w->len, v, len);
	w->len += len;
}

void sph_checkpoint_put_u64(struct sph_checkpoint_buf *w, uint64_t v) { sph_checkpoint_put(w, &v, sizeof v); }
void sph_checkpoint_put_f64(struct sph_checkpoint_buf *w, double v) { sph_checkpoint_put(w, &v, sizeof v); }

/* s in exactly len bytes, NUL-padded (cut to len - 1). */
void sph_checkpoint_put_str(struct sph_checkpoint_buf *w, const char *s, size_t len)
{
	char pad[SPH_CHECKPOINT_OPTIONS_LEN] = { 0 };
	if (len > sizeof pad) {
		w->failed = true;
		return;
	}
	snprintf(pad, len, "%s", s ? s : "");
	sph_checkpoint_put(w, pad, len);
}

void sph_checkpoint_get(struct sph_checkpoint_buf *r, void *v, size_t len)
{
	if (r->failed || len > r->len - r->at) {
		r->failed = true;
		memset(v, 0, len);
		return;
	}
	memcpy(v, r->b + r->at, len);
	r->at += len;
}

uint64_t sph_checkpoint_get_u64(struct sph_checkpoint_buf *r) { uint64_t v; sph_checkpoint_get(r, &v, sizeof v); return v; }
double sph_checkpoint_get_f64(struct sph_checkpoint_buf *r) { double v; sph_checkpoint_get(r, &v, sizeof v); return v; }

void sph_checkpoint_get_str(struct sph_checkpoint_buf *r, char *s, size_t len)
{
	sph_checkpoint_get(r, s, len);
	s[len - 1] = '\0';
}

void sph_checkpoint_put_file(struct sph_checkpoint_buf *w, FILE *fp)
{
	char chunk[1 << 16];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		sph_checkpoint_put(w, chunk, got);
	if (ferror(fp))
		w->failed = true;
}

/* ---- the binary that writes ------------------------------------------- */

uint64_t sph_checkpoint_binary_fnv(void)
{
	static uint64_t fnv;
	static bool done;
	if (done)
		return fnv;
	done = true;
	FILE *fp = fopen("/proc/self/exe", "rb");
	if (!fp)
		return 0;
	struct sph_checkpoint_buf b = { 0 };
	sph_checkpoint_put_file(&b, fp);
	if (!b.failed)
		fnv = results_fnv1a64(b.b, b.len);
	fclose(fp);
	free(b.b);
	return fnv;
}

/* ---- writing --------------------------------------------------------------- */

/* What follows the particles, into w. */
static void sph_checkpoint_trailer(struct sph_checkpoint_buf *w, const struct sph_checkpoint *ck)
{
	sph_checkpoint_put(w, SPH_CHECKPOINT_MAGIC, 8);
	sph_checkpoint_put_str(w, ck->command, SPH_CHECKPOINT_COMMAND_LEN);
	sph_checkpoint_put_u64(w, ck->binary_fnv);
	sph_checkpoint_put_u64(w, ck->options_fnv);
	sph_checkpoint_put_str(w, ck->options, SPH_CHECKPOINT_OPTIONS_LEN);
	sph_checkpoint_put_u64(w, ck->progress_len);
	sph_checkpoint_put(w, ck->progress, ck->progress_len);
	if (!w->failed)
		sph_checkpoint_put_u64(w, results_fnv1a64(w->b, w->len));
}

static void sph_checkpoint_hex(char out[17], uint64_t v)
{
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

/* The sidecar: what a person wants to know of the checkpoint at path. */
static int sph_checkpoint_sidecar(const char *path, const struct sph_checkpoint *ck, char *err,
				  size_t errlen)
{
	char side[4096], hex[17], utc[32];
	if (snprintf(side, sizeof side, "%s.json", path) >= (int)sizeof side) {
		snprintf(err, errlen, "%s: path too long for its sidecar", path);
		return -1;
	}
	struct atomic_file af;
	if (atomic_file_open(&af, side, err, errlen) != 0)
		return -1;
	const struct sph_state_meta *m = &ck->state;
	struct json_out j;
	json_init(&j, af.fp);
	json_begin_object(&j);
	json_kv_string(&j, "schema", SPH_CHECKPOINT_FORMAT);
	json_kv_string(&j, "checkpoint", path);
	sysinfo_utc_now(utc, sizeof utc);
	json_kv_string(&j, "created_utc", utc);
	json_kv_string(&j, "command", ck->command);
	json_kv_string(&j, "variant", m->producer);
	json_kv_string(&j, "build", m->build);
	sph_checkpoint_hex(hex, ck->binary_fnv);
	json_kv_string(&j, "binary_fnv1a64", hex);
	json_kv_string(&j, "options", ck->options);
	json_key(&j, "scene");
	json_begin_object(&j);
	json_kv_string(&j, "column", m->col.name);
	json_kv_int(&j, "seed", (long long)m->seed);
	json_kv_int(&j, "fluid_particles", (long long)m->n);
	json_kv_int(&j, "boundary_particles", (long long)m->nb);
	json_kv_double(&j, "dt_s", m->dt);
	json_end_object(&j);
	json_kv_int(&j, "step", (long long)m->step);
	json_kv_double(&j, "time_s", m->time_s);
	json_kv_int(&j, "clamps", (long long)m->clamps);
	sph_checkpoint_hex(hex, m->payload_fnv);
	json_kv_string(&j, "state_fnv1a64", hex);
	json_end_object(&j);
	json_finish(&j);
	return atomic_file_commit(&af, err, errlen);
}

int sph_checkpoint_write(const char *path, struct sph_checkpoint *ck, const float *pos4,
			 const float *vel4, char *err, size_t errlen)
{
	ck->binary_fnv = sph_checkpoint_binary_fnv();
	ck->options_fnv = results_fnv1a64(ck->options, strlen(ck->options));
	struct sph_checkpoint_buf w = { 0 };
	sph_checkpoint_trailer(&w, ck);
	if (w.failed) {
		free(w.b);
		snprintf(err, errlen, "out of memory for the checkpoint %s", path);
		return -1;
	}
	struct atomic_file af;
	int rc = atomic_file_open(&af, path, err, errlen);
	if (rc == 0 && sph_state_fwrite(af.fp, path, &ck->state, pos4, vel4, err, errlen) != 0)
		rc = -1;
	if (rc == 0 && (fwrite(w.b, 1, w.len, af.fp) != w.len || fflush(af.fp) != 0)) {
		snprintf(err, errlen, "cannot write the checkpoint %s: %s", path, strerror(errno));
		rc = -1;
	}
	free(w.b);
	if (rc != 0) {
		atomic_file_abort(&af);
		return -1;
	}
	if (atomic_file_commit(&af, err, errlen) != 0)
		return -1;
	return sph_checkpoint_sidecar(path, ck, err, errlen);
}

/* ---- reading ------------------------------------------------------------- */

void sph_checkpoint_free(struct sph_checkpoint *ck)
{
	free(ck->progress);
	free(ck->pos4);
	free(ck->vel4);
	ck->progress = NULL;
	ck->pos4 = ck->vel4 = NULL;
	ck->progress_len = 0;
}

/* The trailer in b[0..len) into ck. 0, or -1 with one line in err. */
static int sph_checkpoint_parse(const char *path, const unsigned char *b, size_t len,
				struct sph_checkpoint *ck, char *err, size_t errlen)
{
	struct sph_checkpoint_buf r = { .b = (unsigned char *)b, .len = len };
	char magic[8];
	sph_checkpoint_get(&r, magic, 8);
	if (r.failed || memcmp(magic, SPH_CHECKPOINT_MAGIC, 8) != 0) {
		snprintf(err, errlen, "%s is an SPH state, not a checkpoint (%s): nothing to go on from",
			 path, SPH_CHECKPOINT_FORMAT);
		return -1;
	}
	sph_checkpoint_get_str(&r, ck->command, SPH_CHECKPOINT_COMMAND_LEN);
	ck->binary_fnv = sph_checkpoint_get_u64(&r);
	ck->options_fnv = sph_checkpoint_get_u64(&r);
	sph_checkpoint_get_str(&r, ck->options, SPH_CHECKPOINT_OPTIONS_LEN);
	const uint64_t plen = sph_checkpoint_get_u64(&r);
	if (r.failed || plen > SPH_CHECKPOINT_MAX_PROGRESS || plen + 8 != len - r.at) {
		snprintf(err, errlen, "%s is not the length its progress gives: cut short or grown",
			 path);
		return -1;
	}
	const size_t body = r.at + (size_t)plen;
	uint64_t fnv;
	memcpy(&fnv, b + body, sizeof fnv);
	if (fnv != results_fnv1a64(b, body)) {
		snprintf(err, errlen, "%s: its progress does not hash to its checksum: the file is "
			 "damaged", path);
		return -1;
	}
	ck->progress_len = (size_t)plen;
	ck->progress = malloc(plen ? plen : 1);
	if (!ck->progress) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	memcpy(ck->progress, b + r.at, plen);
	return 0;
}

int sph_checkpoint_read(const char *path, struct sph_checkpoint *ck, char *err, size_t errlen)
{
	memset(ck, 0, sizeof *ck);
	if (sph_state_read_meta(path, &ck->state, err, errlen) != 0)
		return -1;
	const size_t n = ck->state.n;
	FILE *fp = fopen(path, "rb");
	ck->pos4 = malloc((4 * n + 1) * sizeof *ck->pos4);
	ck->vel4 = malloc((4 * n + 1) * sizeof *ck->vel4);
	int rc = -1;
	struct sph_checkpoint_buf rest = { 0 };
	if (!fp) {
		snprintf(err, errlen, "cannot open the checkpoint %s: %s", path, strerror(errno));
	} else if (!ck->pos4 || !ck->vel4) {
		snprintf(err, errlen, "out of memory for the %zu particles of %s", n, path);
	} else if (sph_state_fread_more(fp, path, &ck->state, ck->pos4, ck->vel4, n, err, errlen) ==
		   0) {
		sph_checkpoint_put_file(&rest, fp);
		if (rest.failed)
			snprintf(err, errlen, "cannot read the progress of %s", path);
		else
			rc = sph_checkpoint_parse(path, rest.b, rest.len, ck, err, errlen);
	}
	if (fp)
		fclose(fp);
	free(rest.b);
	if (rc != 0)
		sph_checkpoint_free(ck);
	return rc;
}

/* The first word of a and of b (space-separated "key=value" words) that
 * differ, each into len bytes. */
static void sph_checkpoint_first_difference(const char *a, const char *b, char *wa, char *wb,
					    size_t len)
{
	for (;;) {
		const size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		if (la != lb || memcmp(a, b, la) != 0 || !a[la] || !b[lb]) {
			snprintf(wa, len, "%.*s", (int)la, a);
			snprintf(wb, len, "%.*s", (int)lb, b);
			if (la == lb && memcmp(a, b, la) == 0) { /* one ends first */
				snprintf(wa, len, "%s", a[la] ? a + la + 1 : "nothing more");
				snprintf(wb, len, "%s", b[lb] ? b + lb + 1 : "nothing more");
			}
			return;
		}
		a += la + 1;
		b += lb + 1;
	}
}

int sph_checkpoint_check(const struct sph_checkpoint *ck, const char *path, const char *command,
			 const char *variant, const char *options,
			 const struct sph_state_meta *want, char *err, size_t errlen)
{
	char why[64];
	struct sph_state_meta at = *want;
	at.step = ck->state.step;
	if (strcmp(ck->command, command) != 0) {
		snprintf(err, errlen, "%s is a checkpoint of '%s', not of '%s'", path, ck->command,
			 command);
	} else if (ck->binary_fnv != sph_checkpoint_binary_fnv() ||
		   strcmp(ck->state.build, sph_state_build()) != 0) {
		snprintf(err, errlen, "%s was written by another build (%s, binary %016llx; this one "
			 "is %s, %016llx): a checkpoint goes on only in the binary that wrote it",
			 path, ck->state.build, (unsigned long long)ck->binary_fnv,
			 sph_state_build(), (unsigned long long)sph_checkpoint_binary_fnv());
	} else if (strcmp(ck->state.producer, variant) != 0) {
		snprintf(err, errlen, "%s is a checkpoint of %s, not of %s", path, ck->state.producer,
			 variant);
	} else if (strcmp(ck->options, options) != 0) {
		char theirs[128], ours[128];
		sph_checkpoint_first_difference(ck->options, options, theirs, ours, sizeof theirs);
		snprintf(err, errlen, "%s was written with other options (%s; this run has %s)", path,
			 theirs, ours);
	} else if (!sph_state_same_flow(&ck->state, &at, false, why, sizeof why)) {
		snprintf(err, errlen, "%s is of %s than this run's %s", path, why, want->col.name);
	} else {
		return 0;
	}
	return -1;
}
