/* results.c - results files: a table's CSV and its metadata sidecar, written atomically as a pair */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "csv_table.h"
#include "gpu_device.h"
#include "json_in.h"
#include "json_out.h"
#include "skips.h"
#include "sysinfo.h"
#include "testhook.h"

char *results_sidecar_path(const char *csv_path)
{
	size_t len = strlen(csv_path);
	if (len > 4 && strcmp(csv_path + len - 4, ".csv") == 0)
		len -= 4;
	char *p = malloc(len + sizeof ".meta.json");
	if (p) {
		memcpy(p, csv_path, len);
		strcpy(p + len, ".meta.json");
	}
	return p;
}

static void results_json_build(struct json_out *j)
{
	json_key(j, "build");
	json_begin_object(j);
	json_kv_string(j, "compiler", sysinfo_compiler());
	json_kv_string(j, "cflags", sysinfo_cflags());
	size_t nk;
	const struct sysinfo_flags *kf = sysinfo_kernel_cflags(&nk);
	json_key(j, "kernel_cflags");
	json_begin_object(j);
	for (size_t i = 0; i < nk; i++)
		json_kv_string(j, kf[i].file, kf[i].flags);
	json_end_object(j);
	json_kv_bool(j, "cuda", gpu_built());
	json_kv_string(j, "nvcc", sysinfo_nvcc());
	json_kv_string(j, "nvcc_flags", sysinfo_nvcc_flags());
	json_kv_string(j, "git_commit", sysinfo_git_commit());
	json_kv_bool(j, "git_dirty", sysinfo_git_dirty());
	json_end_object(j);
}

static const struct results_cpu_facts *results_cpu;

void results_set_cpu_facts(const struct results_cpu_facts *facts)
{
	results_cpu = facts;
}

/* Which GPU this process used and how it was chosen: CUDA_VISIBLE_DEVICES
 * as it was (null when unset), how many GPUs it left visible, the index
 * among them (--gpu; null when none is visible) and that GPU's identity,
 * which does not depend on the numbering. */
static void results_json_gpu_selection(struct json_out *j)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	struct gpu_device_info g;
	json_key(j, "gpu_selection");
	json_begin_object(j);
	if (visible)
		json_kv_string(j, "cuda_visible_devices", visible);
	else
		json_kv_null(j, "cuda_visible_devices");
	json_kv_int(j, "visible_gpus", gpu_device_count());
	if (gpu_device_query(gpu_device_current(), &g) == 0) {
		json_kv_int(j, "index", g.index);
		json_kv_string(j, "name", g.name);
		json_kv_string(j, "uuid", g.uuid);
		json_kv_string(j, "pci_bus_id", g.pci_bus_id);
	} else {
		json_kv_null(j, "index");
	}
	json_end_object(j);
}

static void results_json_host(struct json_out *j)
{
	struct sysinfo_host h;
	sysinfo_host_read(&h);
	json_key(j, "host");
	json_begin_object(j);
	json_kv_string(j, "hostname", h.hostname);
	json_kv_string(j, "cpu_model", h.cpu_model);
	json_kv_int(j, "logical_cpus", h.logical_cpus);
	json_kv_string(j, "os", h.os);
	if (results_cpu) {
		json_kv_string(j, "cpu_simd_isa", results_cpu->simd_isa());
		json_kv_int(j, "cpu_simd_threads", results_cpu->simd_threads());
	}
	json_end_object(j);

	json_key(j, "gpus");
	json_begin_array(j);
	int count = gpu_device_count();
	for (int d = 0; d < count; d++) {
		struct gpu_device_info g;
		if (gpu_device_query(d, &g) != 0)
			continue;
		char cc[16];
		snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
		json_begin_object(j);
		json_kv_int(j, "index", g.index);
		json_kv_string(j, "name", g.name);
		json_kv_string(j, "compute_capability", cc);
		json_kv_int(j, "sm_count", g.sm_count);
		json_kv_int(j, "sm_clock_khz", g.clock_khz);
		json_kv_int(j, "mem_clock_khz", g.mem_clock_khz);
		json_kv_int(j, "mem_bus_bits", g.mem_bus_bits);
		json_kv_int(j, "total_mem_bytes", (long long)g.total_mem);
		json_kv_int(j, "driver_version", g.driver_version);
		json_kv_int(j, "runtime_version", g.runtime_version);
		json_kv_string(j, "pci_bus_id", g.pci_bus_id);
		json_kv_string(j, "uuid", g.uuid);
		json_end_object(j);
	}
	json_end_array(j);
	results_json_gpu_selection(j);
}

/* Every rank's host and device (one entry for a run of one process). */
static void results_json_ranks(struct json_out *j, const struct results_meta *meta)
{
	if (!meta->ranks)
		return;
	json_key(j, "ranks");
	json_begin_array(j);
	for (int r = 0; r < meta->nranks; r++) {
		const struct sysinfo_rank *f = &meta->ranks[r];
		json_begin_object(j);
		json_kv_int(j, "rank", r);
		json_kv_string(j, "host", f->host);
		json_kv_string(j, "cpu_model", f->cpu_model);
		json_kv_double(j, "cpu_s", f->cpu_s);
		if (f->gpu_name[0]) {
			json_kv_string(j, "gpu", f->gpu_name);
			json_kv_string(j, "gpu_pci_bus_id", f->gpu_bus);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

uint64_t results_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

size_t results_missing(const char *const *planned, size_t nplanned, const char *const *done,
		       size_t ndone, const char **missing)
{
	bool *taken = calloc(nplanned ? nplanned : 1, sizeof *taken);
	size_t n = 0;
	if (!taken)
		return 0;
	for (size_t d = 0; d < ndone; d++)
		for (size_t p = 0; p < nplanned; p++)
			if (!taken[p] && strcmp(planned[p], done[d]) == 0) {
				taken[p] = true;
				break;
			}
	for (size_t p = 0; p < nplanned; p++)
		if (!taken[p])
			missing[n++] = planned[p];
	free(taken);
	return n;
}

/* "complete", and for an interrupted run what it did not do. */
static void results_json_incomplete(struct json_out *j, const struct results_incomplete *inc)
{
	json_kv_bool(j, "complete", inc == NULL);
	if (!inc)
		return;
	json_key(j, "incomplete");
	json_begin_object(j);
	json_kv_string(j, "reason", inc->reason);
	json_kv_string(j, "unit", inc->unit);
	json_kv_int(j, "planned", (long long)inc->planned);
	json_kv_int(j, "finished", (long long)inc->finished);
	json_key(j, "missing");
	json_begin_array(j);
	for (size_t i = 0; i < inc->nmissing; i++)
		json_string(j, inc->missing[i]);
	json_end_array(j);
	json_end_object(j);
}

/* One reading of sysinfo_load, as machine_load's start and end hold it. */
static void results_json_reading(struct json_out *j, const char *key, const struct sysinfo_load *l)
{
	json_key(j, key);
	if (!l) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_string(j, "utc", l->utc);
	json_key(j, "loadavg");
	json_begin_array(j);
	for (int k = 0; k < 3; k++)
		json_double(j, l->loadavg[k]);
	json_end_array(j);
	json_kv_double(j, "cpu_mhz", l->cpu_mhz);
	json_end_object(j);
}

/* What the last sidecar written found of the machine's load, for
 * results_say_wrote. */
static struct {
	char csv[4096];
	struct sysinfo_busy busy;
	struct sysinfo_load start, end;
} results_last_load;

/* machine_load: how busy the machine was over what this file measured,
 * from the load mark (the program's start, or the last file written) to
 * now: the readings at both ends, the CPU time its other processes took
 * (less the run's own, its other ranks on this host included) and the
 * verdict (sysinfo.h). Then marks the start of what comes next. */
static void results_json_load(struct json_out *j, const char *csv_path,
			      const struct results_meta *meta)
{
	const struct sysinfo_load *start = sysinfo_load_marked();
	struct sysinfo_load end;
	struct sysinfo_host h;
	struct sysinfo_busy b = { .busy = -1 };
	sysinfo_load_read(&end);
	sysinfo_host_read(&h);
	double run_cpu = start ? end.own_cpu_s - start->own_cpu_s : NAN;
	for (int r = 1; meta->ranks && r < meta->nranks; r++)
		if (strcmp(meta->ranks[r].host, meta->ranks[0].host) == 0)
			run_cpu += meta->ranks[r].cpu_s;
	if (start)
		sysinfo_busy_judge(start, &end, run_cpu, h.logical_cpus, &b);
	json_key(j, "machine_load");
	json_begin_object(j);
	results_json_reading(j, "start", start);
	results_json_reading(j, "end", &end);
	json_kv_int(j, "cpus", h.logical_cpus);
	json_kv_double(j, "wall_s", start ? b.wall_s : NAN);
	json_kv_double(j, "busy_cpu_s", start ? end.busy_cpu_s - start->busy_cpu_s : NAN);
	json_kv_double(j, "run_cpu_s", run_cpu);
	json_kv_double(j, "others_cpu_s", start ? b.others_cpu_s : NAN);
	json_kv_double(j, "others_cpus", start ? b.others_cpus : NAN);
	json_kv_double(j, "busy_threshold_cpus", sysinfo_busy_threshold(h.logical_cpus));
	if (b.busy < 0)
		json_kv_null(j, "busy");
	else
		json_kv_bool(j, "busy", b.busy);
	json_kv_string(j, "rule", SYSINFO_BUSY_RULE);
	json_end_object(j);
	snprintf(results_last_load.csv, sizeof results_last_load.csv, "%s", csv_path);
	results_last_load.busy = b;
	results_last_load.start = start ? *start : end;
	results_last_load.end = end;
	sysinfo_load_mark();
}

void results_say_wrote(const char *csv_path)
{
	char *side = results_sidecar_path(csv_path);
	printf("wrote %s and %s\n", csv_path, side ? side : "its sidecar");
	fflush(stdout);
	if (strcmp(results_last_load.csv, csv_path) == 0 && results_last_load.busy.busy == 1) {
		char says[256];
		sysinfo_busy_say(&results_last_load.busy, says, sizeof says);
		fprintf(stderr, "harness: warning: the machine was busy during this run: %s (load "
			"average %.2f at the start, %.2f at the end), so its timings may be slow or "
			"noisy (%s: machine_load)\n", says, results_last_load.start.loadavg[0],
			results_last_load.end.loadavg[0], side ? side : csv_path);
	}
	free(side);
}

void results_busy_note(const struct json_in_value *side, char *note, size_t len)
{
	const struct json_in_value *load = json_in_member(side, "machine_load");
	const struct json_in_value *busy = json_in_member(load, "busy");
	const struct json_in_value *others = json_in_member(load, "others_cpus");
	const struct json_in_value *cpus = json_in_member(load, "cpus");
	if (!busy || busy->type != JSON_IN_BOOL || !busy->boolean)
		return;
	struct sysinfo_busy b = { .busy = 1 };
	b.others_cpus = others && others->type == JSON_IN_NUMBER ? others->number : NAN;
	b.cpus = cpus && cpus->type == JSON_IN_NUMBER ? (int)cpus->number : 0;
	char says[256];
	sysinfo_busy_say(&b, says, sizeof says);
	size_t used = strlen(note);
	snprintf(note + used, len - used, "%sran on a busy machine: %s", used ? "; " : "", says);
}

/* The sidecar: who measured what, where, with which build; the problem's
 * own part comes from table->json. */
static void results_json(FILE *fp, const char *csv_path, const struct results_table *table,
			 const struct results_meta *meta, const struct results_stamp *stamp)
{
	struct json_out j;
	char now[32];
	sysinfo_utc_now(now, sizeof now);
	json_init(&j, fp);
	json_begin_object(&j);
	json_kv_string(&j, "schema", table->schema);
	json_kv_string(&j, "csv", csv_path);
	results_json_stamp(&j, stamp);
	json_kv_string(&j, "created_utc", now);
	json_key(&j, "argv");
	json_begin_array(&j);
	for (int i = 0; i < meta->argc; i++)
		json_string(&j, meta->argv[i]);
	json_end_array(&j);
	results_json_host(&j);
	results_json_ranks(&j, meta);
	results_json_build(&j);
	if (meta->timing) {
		json_key(&j, "timing");
		json_begin_object(&j);
		json_kv_double(&j, "min_time_s", meta->timing->min_time);
		json_kv_double(&j, "max_time_s", meta->timing->max_time);
		json_kv_double(&j, "max_noise_pct", meta->timing->max_noise);
		json_kv_double(&j, "sample_time_s", meta->timing->sample_time);
		json_kv_int(&j, "min_samples", (long long)meta->timing->min_samples);
		json_kv_int(&j, "repetitions", (long long)meta->timing->repetitions);
		json_kv_string(&j, "noise_measure", "relative sample standard deviation");
		if (testhook_active(TESTHOOK_WORK))
			json_kv_string(&j, "test_hook_work", testhook_active(TESTHOOK_WORK));
		if (testhook_active(TESTHOOK_SLOWDOWN))
			json_kv_string(&j, "test_hook_slowdown", testhook_active(TESTHOOK_SLOWDOWN));
		if (testhook_active(TESTHOOK_DRIFT))
			json_kv_string(&j, "test_hook_drift", testhook_active(TESTHOOK_DRIFT));
		json_end_object(&j);
		results_json_load(&j, csv_path, meta);
	}
	if (meta->skipped)
		skips_json(&j, meta->skipped);
	results_json_incomplete(&j, meta->incomplete);
	if (table->json)
		table->json(&j, table->ctx);
	json_end_object(&j);
	json_finish(&j);
}

int (*results_fault_between_commits)(const char *csv_path);

/* The running state of a stamp: FNV-1a over the bytes, records ended
 * outside quotes. */
struct results_stamping {
	uint64_t h;
	size_t records, bytes;
	bool quoted;
};

static void results_stamping_add(struct results_stamping *s, const unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		s->h = (s->h ^ buf[i]) * 0x100000001b3ULL;
		s->quoted ^= buf[i] == '"';
		s->records += !s->quoted && buf[i] == '\n';
	}
	s->bytes += n;
}

/* The stamp of what was added: data rows are the records past the header. */
static struct results_stamp results_stamping_end(const struct results_stamping *s)
{
	struct results_stamp st = { s->h, s->records > 0 ? s->records - 1 : 0, s->bytes };
	return st;
}

void results_json_stamp(struct json_out *j, const struct results_stamp *st)
{
	char hex[20];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)st->fnv1a64);
	json_kv_string(j, "csv_fnv1a64", hex);
	json_kv_int(j, "csv_rows", (long long)st->rows);
	json_kv_int(j, "csv_bytes", (long long)st->bytes);
}

int results_write_files(const char *csv_path, int (*write_csv)(FILE *fp, void *ctx),
			void (*write_sidecar)(FILE *fp, void *ctx, const struct results_stamp *stamp),
			void *ctx, char *err, size_t errlen)
{
	int rc = -1;
	struct atomic_file csv = { 0 }, side = { 0 };
	char *text = NULL, *side_path = results_sidecar_path(csv_path);
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!side_path || !mem) {
		snprintf(err, errlen, "out of memory writing %s", csv_path);
		if (mem)
			fclose(mem);
		goto out_free;
	}
	/* The CSV in memory first, so that its stamp can go into the sidecar. */
	if (write_csv(mem, ctx) != 0) {
		fclose(mem);
		snprintf(err, errlen, "cannot write %s", csv_path);
		goto out_free;
	}
	if (fclose(mem) != 0) {
		snprintf(err, errlen, "out of memory writing %s", csv_path);
		goto out_free;
	}
	struct results_stamping sg = { 0xcbf29ce484222325ULL, 0, 0, false };
	results_stamping_add(&sg, (const unsigned char *)text, len);
	const struct results_stamp stamp = results_stamping_end(&sg);
	if (atomic_file_open(&csv, csv_path, err, errlen) != 0)
		goto out_free;
	if (atomic_file_open(&side, side_path, err, errlen) != 0)
		goto out_abort;
	/* A short write sets the stream's error flag, which commit checks. */
	fwrite(text, 1, len, csv.fp);
	write_sidecar(side.fp, ctx, &stamp);

	/* Sidecar first (see results.h): a CSV never appears without its stamp. */
	if (atomic_file_commit(&side, err, errlen) != 0)
		goto out_abort;
	if (results_fault_between_commits && results_fault_between_commits(csv_path) != 0) {
		snprintf(err, errlen, "cannot write %s: failed after its sidecar %s (a test fault)",
			 csv_path, side_path);
		goto out_abort;
	}
	if (atomic_file_commit(&csv, err, errlen) != 0)
		goto out_abort;
	rc = 0;
	goto out_free;

out_abort:
	atomic_file_abort(&side);
	atomic_file_abort(&csv);
out_free:
	free(text);
	free(side_path);
	return rc;
}

/* Checksum, size and data rows of the file at path. 0, or -1 when it
 * cannot be read. */
static int results_stamp_file(const char *path, struct results_stamp *st)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -1;
	unsigned char buf[65536];
	size_t got;
	struct results_stamping sg = { 0xcbf29ce484222325ULL, 0, 0, false };
	while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
		results_stamping_add(&sg, buf, got);
	int bad = ferror(fp);
	fclose(fp);
	*st = results_stamping_end(&sg);
	return bad ? -1 : 0;
}

/* The schemas of the tables bin/harness writes (results_write_files
 * stamps every one), and whether it wrote sidecars of them before it
 * stamped sidecars: only those may come without a stamp. */
static const struct {
	const char *schema;
	bool before_stamps;
} results_stamped_schemas[] = {
	{ "nbody-harness-results/1", true },
	{ "sph-harness-results/1", true },
	{ "sph-harness-render/1", false },
	{ "sph-harness-physics/1", false },
	{ "nbody-harness-commbench/1", false },
	{ "nbody-harness-model/1", false },
	{ "harness-verdicts/1", false },
};

/* The stamp a parsed sidecar records: 1 when it has one, 0 when it has
 * none and may (a schema bin/harness does not write, or one it wrote
 * before stamps), -1 with why when it is malformed, or when a sidecar of
 * a stamped schema lacks its stamp or part of it (an edited sidecar:
 * otherwise an edited CSV beside it would pass for genuine). */
static int results_stamp_recorded(const struct json_in_value *side, struct results_stamp *st,
				  char *why, size_t whylen)
{
	const struct json_in_value *h = json_in_member(side, "csv_fnv1a64");
	const struct json_in_value *r = json_in_member(side, "csv_rows");
	const struct json_in_value *b = json_in_member(side, "csv_bytes");
	const struct json_in_value *schema = json_in_member(side, "schema");
	const char *name = schema && schema->type == JSON_IN_STRING ? schema->string : "";
	int stamped = -1; /* index into results_stamped_schemas */
	char *end;
	for (size_t i = 0; i < sizeof results_stamped_schemas / sizeof *results_stamped_schemas; i++)
		if (strcmp(name, results_stamped_schemas[i].schema) == 0)
			stamped = (int)i;
	if (stamped < 0 && !h)
		return 0;
	if (!h && !r && !b && results_stamped_schemas[stamped].before_stamps)
		return 0;
	if (!h || (stamped >= 0 && (!r || !b))) {
		snprintf(why, whylen, "%s, which every sidecar of %s records (an edited sidecar?)",
			 !h && !r && !b ? "no csv_fnv1a64, csv_rows or csv_bytes"
			 : !h ? "no csv_fnv1a64" : !r ? "no csv_rows" : "no csv_bytes", name);
		return -1;
	}
	snprintf(why, whylen, "malformed csv_fnv1a64, csv_rows or csv_bytes");
	if (h->type != JSON_IN_STRING || !r || r->type != JSON_IN_NUMBER || r->number < 0 ||
	    (b && (b->type != JSON_IN_NUMBER || b->number < 0)))
		return -1;
	st->fnv1a64 = strtoull(h->string, &end, 16);
	if (strlen(h->string) != 16 || *end != '\0')
		return -1;
	st->rows = (size_t)r->number;
	st->bytes = b ? (size_t)b->number : SIZE_MAX; /* SIZE_MAX: not recorded */
	return 1;
}

int results_pair_check(const char *csv_path, char *msg, size_t msglen)
{
	char *side_path = results_sidecar_path(csv_path), jerr[256];
	struct json_in_value side = { 0 };
	struct results_stamp want, have;
	int rc;
	if (!side_path) {
		snprintf(msg, msglen, "out of memory checking %s", csv_path);
		rc = RESULTS_PAIR_MISMATCH;
	} else if (access(side_path, F_OK) != 0) {
		snprintf(msg, msglen, "no sidecar %s: not checked", side_path);
		rc = RESULTS_PAIR_NO_SIDECAR;
	} else if (json_in_read_file(side_path, &side, jerr, sizeof jerr) != 0) {
		snprintf(msg, msglen, "%s", jerr);
		rc = RESULTS_PAIR_MISMATCH;
	} else if ((rc = results_stamp_recorded(&side, &want, jerr, sizeof jerr)) <= 0) {
		if (rc == 0)
			snprintf(msg, msglen, "sidecar predates checksums: not checked");
		else
			snprintf(msg, msglen, "%s: %s: the pair cannot be checked; re-run, or restore "
				 "both files together", side_path, jerr);
		rc = rc == 0 ? RESULTS_PAIR_UNSTAMPED : RESULTS_PAIR_MISMATCH;
	} else if (results_stamp_file(csv_path, &have) != 0) {
		snprintf(msg, msglen, "%s: %s", csv_path, strerror(errno));
		rc = RESULTS_PAIR_MISMATCH;
	} else if (have.fnv1a64 != want.fnv1a64 || have.rows != want.rows ||
		   (want.bytes != SIZE_MAX && have.bytes != want.bytes)) {
		snprintf(msg, msglen,
			 "%s does not match its sidecar %s (%zu rows, FNV-1a %016llx recorded; %zu rows, "
			 "%016llx found): a write was interrupted or the files were mixed up; re-run, or "
			 "restore both files together",
			 csv_path, side_path, want.rows, (unsigned long long)want.fnv1a64, have.rows,
			 (unsigned long long)have.fnv1a64);
		rc = RESULTS_PAIR_MISMATCH;
	} else {
		snprintf(msg, msglen, "%zu rows, checksum matches its sidecar", have.rows);
		rc = RESULTS_PAIR_OK;
	}
	json_in_free(&side);
	free(side_path);
	return rc;
}

int results_require_checked(const char *csv_path, const char *option, char *err, size_t errlen)
{
	char note[1024];
	char *side = results_sidecar_path(csv_path);
	const int pair = results_pair_check(csv_path, note, sizeof note);
	if (pair == RESULTS_PAIR_NO_SIDECAR)
		snprintf(err, errlen, "%s has no sidecar %s, so it cannot be checked against one: %s "
			 "takes it as it is", csv_path, side ? side : "", option);
	else if (pair == RESULTS_PAIR_UNSTAMPED)
		snprintf(err, errlen, "%s: its sidecar %s records no checksum (written before "
			 "checksums, or edited), so it cannot be checked: %s takes it as it is",
			 csv_path, side ? side : "", option);
	else if (pair == RESULTS_PAIR_MISMATCH)
		snprintf(err, errlen, "%s", note);
	free(side);
	return pair == RESULTS_PAIR_OK ? 0 : -1;
}

/* What results_write_table hands results_write_files. */
struct results_table_job {
	const char *csv_path;
	const struct results_table *table;
	const struct results_meta *meta;
};

static int results_table_csv(FILE *fp, void *ctx)
{
	const struct results_table *table = ((struct results_table_job *)ctx)->table;
	char (*cells)[RESULTS_CELL] = calloc(table->ncols, sizeof *cells);
	const char **fields = calloc(table->ncols, sizeof *fields);
	int rc = cells && fields ? csv_write_row(fp, table->columns, table->ncols) : -1;
	for (size_t r = 0; rc == 0 && r < table->nrows; r++) {
		table->format(table->ctx, r, cells);
		for (size_t c = 0; c < table->ncols; c++)
			fields[c] = cells[c];
		rc = csv_write_row(fp, fields, table->ncols);
	}
	free(cells);
	free(fields);
	return rc;
}

static void results_table_sidecar(FILE *fp, void *ctx, const struct results_stamp *stamp)
{
	const struct results_table_job *job = ctx;
	results_json(fp, job->csv_path, job->table, job->meta, stamp);
}

int results_write_table(const char *csv_path, const struct results_table *table,
			const struct results_meta *meta, char *err, size_t errlen)
{
	struct results_table_job job = { csv_path, table, meta };
	return results_write_files(csv_path, results_table_csv, results_table_sidecar, &job, err,
				   errlen);
}

void results_json_samples(struct json_out *j, const char *name, size_t n,
			  const struct timing_result *t, int timed)
{
	json_begin_object(j);
	json_kv_string(j, "variant", name);
	json_kv_int(j, "n", (long long)n);
	json_kv_int(j, "reps_per_sample", timed ? t->reps_per_sample : 0);
	json_key(j, "seconds_per_call");
	json_begin_array(j);
	for (size_t s = 0; timed && s < t->count; s++)
		json_double(j, t->samples[s]);
	json_end_array(j);
	if (timed && t->nreps > 1) {
		/* seconds_per_call above holds every repetition's, in order */
		json_key(j, "repetitions");
		json_begin_array(j);
		for (size_t k = 0; k < t->nreps; k++)
			results_json_samples(j, name, n, &t->reps[k], 1);
		json_end_array(j);
	}
	json_end_object(j);
}
