/* sysinfo.c - facts about the host and the build for result metadata */
#define _GNU_SOURCE
#include "sysinfo.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"

/* Copies the value after "key<spaces>:" on the first matching line of a
 * /proc file into out. Returns 0, or -1 when the key is absent. */
static int sysinfo_proc_value(const char *path, const char *key, char *out, size_t len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	char line[512];
	int rc = -1;
	size_t klen = strlen(key);
	while (fgets(line, sizeof line, fp)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		char *colon = strchr(line + klen, ':');
		if (!colon)
			continue;
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		rc = 0;
		break;
	}
	fclose(fp);
	return rc;
}

void sysinfo_host_read(struct sysinfo_host *h)
{
	memset(h, 0, sizeof *h);
	if (gethostname(h->hostname, sizeof h->hostname - 1) != 0)
		snprintf(h->hostname, sizeof h->hostname, "unknown");
	if (sysinfo_proc_value("/proc/cpuinfo", "model name", h->cpu_model, sizeof h->cpu_model) != 0)
		snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h->logical_cpus = cpus > 0 ? (int)cpus : 1;
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(h->os, sizeof h->os, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(h->os, sizeof h->os, "unknown");
}

const char *sysinfo_compiler(void)
{
	return HARNESS_CC_VERSION;
}

const char *sysinfo_cflags(void)
{
	return HARNESS_CFLAGS;
}

const char *sysinfo_nvcc(void)
{
	return HARNESS_NVCC_VERSION;
}

const char *sysinfo_nvcc_flags(void)
{
	return HARNESS_NVCC_FLAGS;
}

const char *sysinfo_git_commit(void)
{
	return HARNESS_GIT_COMMIT;
}

bool sysinfo_git_dirty(void)
{
	return HARNESS_GIT_DIRTY;
}

/* "on" when the Makefile defined option (to 1), else "off": an undefined
 * macro stringifies to its own name. */
#define SYSINFO_TEXT(x) #x
#define SYSINFO_ON(option) (strcmp(SYSINFO_TEXT(option), "1") == 0 ? "on" : "off")

void sysinfo_print_version(FILE *fp)
{
	fprintf(fp, "harness commit %s%s\n", sysinfo_git_commit(),
		sysinfo_git_dirty() ? " (with uncommitted changes)" : "");
	fprintf(fp, "build: CUDA %s%s%s%s, MPI %s, NCCL %s, PNG %s\n", SYSINFO_ON(HARNESS_HAVE_CUDA),
		sysinfo_nvcc()[0] ? " (" : "", sysinfo_nvcc()[0] ? HARNESS_CUDA_ARCHS : "",
		sysinfo_nvcc()[0] ? ")" : "", SYSINFO_ON(HARNESS_HAVE_MPI),
		SYSINFO_ON(HARNESS_HAVE_NCCL), SYSINFO_ON(HARNESS_HAVE_PNG));
	fprintf(fp, "compilers: %s%s%s\n", sysinfo_compiler(), sysinfo_nvcc()[0] ? "; nvcc " : "",
		sysinfo_nvcc());
}

const struct sysinfo_make_setting *sysinfo_make_settings(void)
{
	static const struct sysinfo_make_setting settings[] = { HARNESS_MAKE_SETTINGS };
	return settings;
}

const struct sysinfo_flags *sysinfo_kernel_cflags(size_t *count)
{
	static const struct sysinfo_flags flags[] = {
		{ "kernels/nbody/nbody_cpu_portable.c", HARNESS_PORTABLE_CFLAGS },
		{ "kernels/nbody/nbody_cpu_simd.c", HARNESS_SIMD_CFLAGS },
	};
	*count = sizeof flags / sizeof flags[0];
	return flags;
}

void sysinfo_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sysinfo_utc_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

/* Reads one number from a cgroup file; -1 when absent or "max". */
static long long sysinfo_cgroup_value(const char *dir, const char *file)
{
	char path[4300];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	long long v;
	int ok = fscanf(fp, "%lld", &v) == 1;
	fclose(fp);
	return ok ? v : -1;
}

/* Bytes the process's cgroup (v2) and those above it still allow, or 0
 * when none sets memory.max. */
static size_t sysinfo_cgroup_room(void)
{
	char line[4096], dir[4200];
	FILE *fp = fopen("/proc/self/cgroup", "r");
	if (!fp)
		return 0;
	dir[0] = '\0';
	while (fgets(line, sizeof line, fp))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", line + 3);
			break;
		}
	fclose(fp);
	size_t room = 0;
	for (size_t len = strlen(dir); len > strlen("/sys/fs/cgroup"); len = strlen(dir)) {
		long long max = sysinfo_cgroup_value(dir, "memory.max");
		long long cur = sysinfo_cgroup_value(dir, "memory.current");
		if (max >= 0) {
			size_t r = cur >= 0 && cur < max ? (size_t)(max - cur) : 1;
			if (!room || r < room)
				room = r;
		}
		*strrchr(dir, '/') = '\0';
	}
	return room;
}

/* HARNESS_MEMORY as bytes: a number with an optional K, M, G or T (powers
 * of 1024). 0 when unset, -1 when it is not a size. */
static int sysinfo_env_memory(size_t *bytes)
{
	const char *s = getenv("HARNESS_MEMORY");
	*bytes = 0;
	if (!s || !*s)
		return 0;
	char *end;
	double v = strtod(s, &end);
	double scale = 1;
	switch (*end) {
	case 'K': case 'k': scale = 1024.0; end++; break;
	case 'M': case 'm': scale = 1024.0 * 1024; end++; break;
	case 'G': case 'g': scale = 1024.0 * 1024 * 1024; end++; break;
	case 'T': case 't': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
	}
	if (end == s || *end || !(v > 0) || v * scale > 1e18)
		return -1;
	*bytes = (size_t)(v * scale);
	return 0;
}

size_t sysinfo_mem_available(void)
{
	char v[64];
	unsigned long long kib;
	size_t avail = 0, room = sysinfo_cgroup_room(), cap;
	if (sysinfo_proc_value("/proc/meminfo", "MemAvailable", v, sizeof v) == 0 &&
	    sscanf(v, "%llu", &kib) == 1)
		avail = (size_t)kib * 1024;
	if (room && (!avail || room < avail))
		avail = room;
	if (sysinfo_env_memory(&cap) == 0 && cap && (!avail || cap < avail))
		avail = cap;
	return avail;
}

int sysinfo_check_memory_plus(const char *what, size_t count, size_t bytes_each,
			      double fixed_bytes, const char *unit, char *err, size_t errlen)
{
	size_t cap;
	if (sysinfo_env_memory(&cap) != 0) {
		snprintf(err, errlen, "HARNESS_MEMORY='%s' is not a size (for example 16G or 512M)",
			 getenv("HARNESS_MEMORY"));
		return -1;
	}
	size_t avail = sysinfo_mem_available();
	double need = (double)count * (double)bytes_each + fixed_bytes;
	if (!avail || need <= (double)avail)
		return 0;
	double left = (double)avail - fixed_bytes;
	snprintf(err, errlen,
		 "%s needs about %.1f GiB of memory, %.1f GiB is available (allowed here: %s <= %zu)",
		 what, need / (1 << 30), (double)avail / (1 << 30), unit,
		 left > 0 ? (size_t)(left / (double)bytes_each) : (size_t)0);
	return -1;
}

int sysinfo_check_memory(const char *what, size_t count, size_t bytes_each, const char *unit,
			 char *err, size_t errlen)
{
	return sysinfo_check_memory_plus(what, count, bytes_each, 0.0, unit, err, errlen);
}

/* Seconds all CPUs spent busy since boot: the "cpu" line of /proc/stat,
 * user + nice + system + irq + softirq + steal (guest time is inside
 * user), in clock ticks; NAN when unreadable. */
static double sysinfo_busy_cpu_s(void)
{
	FILE *fp = fopen("/proc/stat", "r");
	unsigned long long v[8] = { 0 };
	int got = fp ? fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			      &v[3], &v[4], &v[5], &v[6], &v[7])
		     : 0;
	if (fp)
		fclose(fp);
	long hz = sysconf(_SC_CLK_TCK);
	if (got < 7 || hz <= 0)
		return NAN;
	/* user nice system idle iowait irq softirq steal */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
}

/* The mean current clock of the CPUs in MHz: cpufreq where the kernel
 * has it, else /proc/cpuinfo; NAN when neither says. */
static double sysinfo_cpu_mhz(void)
{
	double sum = 0;
	size_t n = 0;
	glob_t g;
	if (glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *fp = fopen(g.gl_pathv[i], "r");
			double khz;
			if (fp && fscanf(fp, "%lf", &khz) == 1 && khz > 0) {
				sum += khz / 1000.0;
				n++;
			}
			if (fp)
				fclose(fp);
		}
		globfree(&g);
	}
	FILE *fp = n ? NULL : fopen("/proc/cpuinfo", "r");
	char line[512];
	double mhz;
	while (fp && fgets(line, sizeof line, fp)) {
		const char *colon = strchr(line, ':');
		if (strncmp(line, "cpu MHz", 7) == 0 && colon && sscanf(colon + 1, "%lf", &mhz) == 1) {
			sum += mhz;
			n++;
		}
	}
	if (fp)
		fclose(fp);
	return n ? sum / (double)n : NAN;
}

void sysinfo_load_read(struct sysinfo_load *l)
{
	struct timespec t;
	struct rusage ru;
	memset(l, 0, sizeof *l);
	sysinfo_utc_now(l->utc, sizeof l->utc);
	clock_gettime(CLOCK_MONOTONIC, &t);
	l->wall_s = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
	FILE *fp = fopen("/proc/loadavg", "r");
	if (!fp || fscanf(fp, "%lf %lf %lf", &l->loadavg[0], &l->loadavg[1], &l->loadavg[2]) != 3)
		l->loadavg[0] = l->loadavg[1] = l->loadavg[2] = NAN;
	if (fp)
		fclose(fp);
	l->busy_cpu_s = sysinfo_busy_cpu_s();
	l->own_cpu_s = getrusage(RUSAGE_SELF, &ru) == 0
			       ? (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
					 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec
			       : NAN;
	l->cpu_mhz = sysinfo_cpu_mhz();
}

static struct sysinfo_load sysinfo_mark;
static bool sysinfo_marked;

void sysinfo_load_mark(void)
{
	sysinfo_load_read(&sysinfo_mark);
	sysinfo_marked = true;
}

const struct sysinfo_load *sysinfo_load_marked(void)
{
	return sysinfo_marked ? &sysinfo_mark : NULL;
}

double sysinfo_load_own_cpu(void)
{
	struct sysinfo_load now;
	if (!sysinfo_marked)
		return 0.0;
	sysinfo_load_read(&now);
	return now.own_cpu_s - sysinfo_mark.own_cpu_s;
}

void sysinfo_busy_judge(const struct sysinfo_load *start, const struct sysinfo_load *end,
			double run_cpu_s, int cpus, struct sysinfo_busy *b)
{
	b->cpus = cpus;
	b->wall_s = end->wall_s - start->wall_s;
	b->others_cpu_s = end->busy_cpu_s - start->busy_cpu_s - run_cpu_s;
	if (b->others_cpu_s < 0) /* the counters' ticks are coarser than getrusage's */
		b->others_cpu_s = 0;
	b->others_cpus = b->wall_s > 0 ? b->others_cpu_s / b->wall_s : NAN;
	b->threshold_cpus = sysinfo_busy_threshold(cpus);
	b->busy = isfinite(b->others_cpus) ? b->others_cpus >= b->threshold_cpus : -1;
	if (!isfinite(b->others_cpus))
		b->others_cpu_s = NAN;
}

double sysinfo_busy_threshold(int cpus)
{
	return fmax(SYSINFO_BUSY_CPUS, SYSINFO_BUSY_SHARE * cpus);
}

void sysinfo_busy_say(const struct sysinfo_busy *b, char *out, size_t len)
{
	if (b->busy < 0)
		snprintf(out, len, "how busy the machine was is unknown (no /proc/stat)");
	else
		snprintf(out, len, "other processes kept %.2f of its %d CPU%s busy", b->others_cpus,
			 b->cpus, b->cpus == 1 ? "" : "s");
}
