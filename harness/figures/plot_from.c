/* plot_from.c - which results directory a figure is drawn from: this machine's newest, else the committed default */
#define _POSIX_C_SOURCE 200809L
#include "plot_from.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/csv_table.h"
#include "../core/gpu_device.h"
#include "../core/json_in.h"
#include "../core/results.h"
#include "../core/sysinfo.h"
#include "plot_curves.h"

/* ---- which results directory ------------------------------------------------ */

/* Whether v is a JSON string equal to want. */
static bool plot_json_string_is(const struct json_in_value *v, const char *want)
{
	return v && v->type == JSON_IN_STRING && strcmp(v->string, want) == 0;
}

/* The parsed sidecar's "gpus" array, NULL when it records none. */
static const struct json_in_value *plot_json_gpus(const struct json_in_value *side)
{
	const struct json_in_value *gpus = json_in_find(side, "gpus");
	return gpus && gpus->type == JSON_IN_ARRAY && gpus->count > 0 ? gpus : NULL;
}

/* Whether the parsed sidecar was measured on m (see plot_sidecar_matches). */
static bool plot_json_measured_on(const struct json_in_value *side, const struct plot_machine *m)
{
	const struct json_in_value *gpus = plot_json_gpus(side);
	if (m->gpu && m->gpu[0]) {
		for (size_t k = 0; gpus && k < gpus->count; k++)
			if (plot_json_string_is(json_in_member(&gpus->items[k], "name"), m->gpu))
				return true;
		return false;
	}
	return !gpus && m->cpu && plot_json_string_is(json_in_find(side, "cpu_model"), m->cpu);
}

bool plot_sidecar_matches(const char *csv_path, const struct plot_machine *m)
{
	char *side_path = results_sidecar_path(csv_path), err[256];
	struct json_in_value side = { 0 };
	bool match = side_path && json_in_read_file(side_path, &side, err, sizeof err) == 0 &&
		     plot_json_measured_on(&side, m);
	json_in_free(&side);
	free(side_path);
	return match;
}

/* The device a directory's suite CSV was measured on (its first row's). */
char *plot_csv_device(const char *csv)
{
	struct csv_table t;
	char err[256];
	char *d = NULL;
	if (csv_table_read(csv, &t, err, sizeof err) == 0 && t.nrows > 0)
		d = strdup(csv_table_named(&t, 0, "device_name"));
	csv_table_free(&t);
	return d;
}

/* What the sidecar of csv records its rows ran on: GPU 0's name, else the
 * CPU model; else the device of the CSV's first row. "" when none. */
static void plot_measured_on(const char *csv, char *out, size_t outlen)
{
	char *side_path = results_sidecar_path(csv), err[256];
	struct json_in_value side = { 0 };
	out[0] = '\0';
	if (side_path && json_in_read_file(side_path, &side, err, sizeof err) == 0) {
		const struct json_in_value *gpus = plot_json_gpus(&side);
		const struct json_in_value *name =
			gpus ? json_in_member(&gpus->items[0], "name") : json_in_find(&side, "cpu_model");
		if (name && name->type == JSON_IN_STRING)
			snprintf(out, outlen, "%s", name->string);
	}
	json_in_free(&side);
	free(side_path);
	if (!out[0]) {
		char *dev = plot_csv_device(csv);
		snprintf(out, outlen, "%s", dev ? dev : "");
		free(dev);
	}
}

/* This machine as words: "this machine's GPU, NAME" or "this CPU, NAME,
 * without a GPU". */
void plot_machine_words(const struct plot_machine *m, char *out, size_t outlen)
{
	if (m->gpu && m->gpu[0])
		snprintf(out, outlen, "this machine's GPU, %s", m->gpu);
	else
		snprintf(out, outlen, "this CPU, %s, without a GPU", m->cpu ? m->cpu : "unknown");
}

void plot_from_says(enum plot_from_why why, const struct plot_machine *m, const char *csv,
		    char *out, size_t outlen)
{
	char here[600], there[300];
	plot_machine_words(m, here, sizeof here);
	if (why == PLOT_FROM_MATCH) {
		snprintf(out, outlen, " (newest measured on %s)", here);
		return;
	}
	plot_measured_on(csv, there, sizeof there);
	snprintf(out, outlen, " (the default: nothing under %s/ measured on %s; these on %s)",
		 PLOT_RESULTS_ROOT, here, there[0] ? there : "another machine");
}

/* Considers dir/<suite>.csv as the newest match so far. */
static void plot_consider(const char *dir, const char *suite, const struct plot_machine *m,
			  char *best, size_t bestlen, struct timespec *best_time)
{
	char csv[4096], name[256];
	struct stat st;
	snprintf(name, sizeof name, "%s.csv", suite);
	if (!plot_path(csv, sizeof csv, dir, name) || stat(csv, &st) != 0 ||
	    !S_ISREG(st.st_mode) || !plot_sidecar_matches(csv, m))
		return;
	struct timespec t = st.st_mtim;
	bool newer = t.tv_sec > best_time->tv_sec ||
		     (t.tv_sec == best_time->tv_sec && t.tv_nsec > best_time->tv_nsec) ||
		     (t.tv_sec == best_time->tv_sec && t.tv_nsec == best_time->tv_nsec &&
		      strcmp(dir, best) > 0);
	if (best[0] && !newer)
		return;
	snprintf(best, bestlen, "%s", dir);
	*best_time = t;
}

/* The subdirectories of dir, each written to sub in turn and visit called
 * on it. */
static void plot_each_subdir(const char *dir, void (*visit)(const char *sub, void *arg),
			     void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char sub[4096];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		if (plot_path(sub, sizeof sub, dir, e->d_name) && stat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			visit(sub, arg);
	}
	closedir(d);
}

/* One tier of the search (plot_find_from): tier 1 takes root/X/ and
 * root/local/X/, tier 2 the other root/X/Y/. */
struct plot_search {
	const char *suite;
	const struct plot_machine *m;
	int tier;
	char *best;
	size_t bestlen;
	struct timespec best_time;
	bool in_local; /* visiting the children of root/local */
};

static void plot_search_child(const char *sub, void *arg)
{
	struct plot_search *s = arg;
	if ((s->tier == 1) == s->in_local)
		plot_consider(sub, s->suite, s->m, s->best, s->bestlen, &s->best_time);
}

static void plot_search_top(const char *dir, void *arg)
{
	struct plot_search *s = arg;
	const char *base = strrchr(dir, '/') + 1;
	if (s->tier == 1)
		plot_consider(dir, s->suite, s->m, s->best, s->bestlen, &s->best_time);
	s->in_local = strcmp(base, PLOT_LOCAL_DIR) == 0;
	plot_each_subdir(dir, plot_search_child, s);
}

/*
 * A figure is drawn from a machine's own folder (results/h200/) or the
 * user's own runs (results/local/, results/local/NAME/, where `run
 * --out-dir` puts them), never from a newer sub-folder of a machine's
 * folder where one of those matches: results/h200x4/tc-splits/ or
 * results/h100/ab/ hold special-purpose runs (a few variants, the two
 * sides of an A/B comparison) that share the suite's file name but not
 * its sweep. Only where they are all this machine has measured are they
 * drawn, rather than another machine's results.
 */
enum plot_from_why plot_find_from(const char *root, const char *suite,
				  const struct plot_machine *m, char *out, size_t outlen)
{
	return plot_find_from_or(root, suite, m, strrchr(PLOT_FALLBACK_DIR, '/') + 1, out, outlen);
}

enum plot_from_why plot_find_from_or(const char *root, const char *suite,
				     const struct plot_machine *m, const char *fallback_dir,
				     char *out, size_t outlen)
{
	char fallback[4096], csv[4096], name[256];
	struct plot_search s = { suite, m, 1, out, outlen, { 0, 0 }, false };
	out[0] = '\0';
	bool known = (m->gpu && m->gpu[0]) || (m->cpu && m->cpu[0]);
	for (; known && s.tier <= 2 && !out[0]; s.tier++)
		plot_each_subdir(root, plot_search_top, &s);
	if (out[0])
		return PLOT_FROM_MATCH;
	snprintf(name, sizeof name, "%s.csv", suite);
	if (!plot_path(fallback, sizeof fallback, root, fallback_dir) ||
	    !plot_path(csv, sizeof csv, fallback, name) || access(csv, R_OK) != 0)
		return PLOT_FROM_NONE;
	snprintf(out, outlen, "%s", fallback);
	return PLOT_FROM_DEFAULT;
}

/* This machine as sidecars name it: GPU 0's name (empty without a GPU) and
 * the CPU model, into the buffers gpu and cpu (256 bytes each) m points at. */
void plot_this_machine(char *gpu, char *cpu, struct plot_machine *m)
{
	struct gpu_device_info g;
	struct sysinfo_host h;
	gpu[0] = '\0';
	if (gpu_device_count() > 0 && gpu_device_query(0, &g) == 0)
		snprintf(gpu, 256, "%s", g.name);
	sysinfo_host_read(&h);
	snprintf(cpu, 256, "%s", h.cpu_model);
	m->gpu = gpu;
	m->cpu = cpu;
}
