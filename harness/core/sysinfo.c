/* sysinfo.c - facts about the host and the build for result metadata */
#define _GNU_SOURCE
#include "sysinfo.h"

#include <stdio.h>
#include <string.h>
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

size_t sysinfo_mem_available(void)
{
	char v[64];
	unsigned long long kib;
	if (sysinfo_proc_value("/proc/meminfo", "MemAvailable", v, sizeof v) != 0 ||
	    sscanf(v, "%llu", &kib) != 1)
		return 0;
	return (size_t)kib * 1024;
}

int sysinfo_check_memory_plus(const char *what, size_t count, size_t bytes_each,
			      double fixed_bytes, const char *unit, char *err, size_t errlen)
{
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
