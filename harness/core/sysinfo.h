/* sysinfo.h - facts about the host and the build for result metadata */
#ifndef HARNESS_SYSINFO_H
#define HARNESS_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sysinfo_host {
	char hostname[256];
	char cpu_model[256]; /* "model name" of /proc/cpuinfo, or "unknown" */
	int logical_cpus;
	char os[384];        /* uname: sysname release machine */
};

void sysinfo_host_read(struct sysinfo_host *h);

/* One process's host and GPU as a sidecar lists them (every rank of a
 * distributed run has one), and the CPU time it spent since its load
 * mark (sysinfo_load_mark), which is the run's own, not other load. */
struct sysinfo_rank {
	char host[128];
	char cpu_model[128];
	char gpu_name[128]; /* "" without a GPU */
	char gpu_bus[32];
	double cpu_s;
};

/*
 * How busy the machine was. A reading at one moment: the load averages,
 * the CPU time every CPU has spent busy since boot (/proc/stat: user,
 * nice, system, irq, softirq and steal), this process's own CPU time
 * (getrusage: user and system, all its threads) and the mean clock of
 * the CPUs (cpufreq's scaling_cur_freq, else /proc/cpuinfo's "cpu MHz").
 * A figure that cannot be read is NAN.
 */
struct sysinfo_load {
	char utc[32];
	double wall_s;       /* CLOCK_MONOTONIC */
	double loadavg[3];   /* 1, 5 and 15 minutes */
	double busy_cpu_s;
	double own_cpu_s;
	double cpu_mhz;
};

void sysinfo_load_read(struct sysinfo_load *l);

/* The start of what a results file measures: the program's start
 * (main marks it), then each written file's end, so that a file's
 * readings cover its own rows. The mark, or NULL when none was made. */
void sysinfo_load_mark(void);
const struct sysinfo_load *sysinfo_load_marked(void);

/* This process's CPU seconds since the mark (0 without one). */
double sysinfo_load_own_cpu(void);

/*
 * What ran beside a run between two readings: the CPU time the machine
 * spent busy less the run's own (run_cpu_s: this process's and its other
 * ranks' on this host), as how many of its CPUs it kept busy on average.
 * The machine was busy when others kept at least SYSINFO_BUSY_CPUS of
 * them, or SYSINFO_BUSY_SHARE of all, whichever is more, busy: half a
 * CPU is as much as a benchmark on 2 cores notices; on a large host a
 * tenth of it. busy is -1 where it cannot be told (no /proc/stat).
 */
#define SYSINFO_BUSY_CPUS 0.5
#define SYSINFO_BUSY_SHARE 0.10
struct sysinfo_busy {
	int cpus;
	double wall_s, others_cpu_s, others_cpus; /* NAN when unknown */
	double threshold_cpus;
	int busy;
};

void sysinfo_busy_judge(const struct sysinfo_load *start, const struct sysinfo_load *end,
			double run_cpu_s, int cpus, struct sysinfo_busy *b);

/* The CPUs others must keep busy on a machine of cpus for it to be busy. */
double sysinfo_busy_threshold(int cpus);

/* The rule of sysinfo_busy_judge in words, for the sidecar. */
#define SYSINFO_WORDS_(x) #x
#define SYSINFO_WORDS(x) SYSINFO_WORDS_(x)
#define SYSINFO_BUSY_RULE                                                                    \
	"busy when other processes kept at least max(" SYSINFO_WORDS(SYSINFO_BUSY_CPUS) ", "  \
	SYSINFO_WORDS(SYSINFO_BUSY_SHARE) " x the CPUs) CPUs busy on average over the run: "  \
	"the CPU time /proc/stat counts busy (user, nice, system, irq, softirq, steal) less "  \
	"the run's own processes' (getrusage), over the run's wall time"

/* One line saying how busy b says the machine was ("other processes kept
 * 0.93 of its 2 CPUs busy"), into out. */
void sysinfo_busy_say(const struct sysinfo_busy *b, char *out, size_t len);

/* Build facts baked in by the Makefile (build/buildinfo.h). */
const char *sysinfo_compiler(void);   /* C compiler version */
const char *sysinfo_cflags(void);     /* flags the harness was built with */
const char *sysinfo_nvcc(void);       /* nvcc version line, "" without CUDA */
const char *sysinfo_nvcc_flags(void); /* nvcc flags incl. architectures, "" without CUDA */
const char *sysinfo_git_commit(void); /* commit the binary was built from, or "unknown" */
bool sysinfo_git_dirty(void);         /* uncommitted changes at build time */

/* `harness version`: the commit, then the build's options (CUDA on or off
 * and its architectures, MPI, NCCL, PNG), then the compilers; three lines. */
void sysinfo_print_version(FILE *fp);

/* A make variable of this build that a build of another revision must
 * repeat (build/buildinfo.h's HARNESS_MAKE_SETTINGS): CC, NVCC and
 * CUDA_ARCH as resolved, and the other flags the user set. in_env: the
 * user set it in the environment (pass it there), else on make's command
 * line (pass it there). */
struct sysinfo_make_setting {
	const char *name, *value;
	int in_env;
};

/* The settings, ending with a { NULL } entry. */
const struct sysinfo_make_setting *sysinfo_make_settings(void);

/* Source files built with their own flags (the CPU kernels), with them. */
struct sysinfo_flags { const char *file, *flags; };
const struct sysinfo_flags *sysinfo_kernel_cflags(size_t *count);

/* Current UTC time as ISO 8601 ("2026-11-22T01:02:03Z"). */
void sysinfo_utc_now(char *buf, size_t len);

/* The same for file names: "20261122T010203Z". */
void sysinfo_utc_stamp(char *buf, size_t len);

/* Bytes of memory the harness may plan for, or 0 when unknown: what the
 * kernel reports available (MemAvailable), less where the process's
 * cgroup (memory.max less memory.current, at its level or above) leaves
 * less, and at most HARNESS_MEMORY (16G, 512M, ...) when that is set, for
 * a machine shared with other work. */
size_t sysinfo_mem_available(void);

/* Whether count things (bodies, particles) of bytes_each bytes fit in the
 * memory available (when it is unknown: yes). 0, or -1 with one line in
 * err: "WHAT needs about X GiB of memory, Y GiB is available (allowed
 * here: UNIT <= K)". */
int sysinfo_check_memory(const char *what, size_t count, size_t bytes_each, const char *unit,
			 char *err, size_t errlen);

/* The same with fixed_bytes more that do not grow with count (a render's
 * field and image): K is then what fits beside them (0 when they alone do
 * not fit). */
int sysinfo_check_memory_plus(const char *what, size_t count, size_t bytes_each,
			      double fixed_bytes, const char *unit, char *err, size_t errlen);

#endif
