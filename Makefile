# Makefile - build, run and test the GPU Gems 3 N-body benchmark harness
#
#   make            bin/harness (with the CUDA parts when nvcc is found; a
#                   line per file, V=1 for the whole commands)
#   make run        install what is missing, then validate and time the
#                   default sweep (RUN_ARGS=... adds options)
#   make test       install what is missing, then run the Criterion tests
#   make sass/ptx   machine code and PTX of the CUDA objects
#   make mutate     the mutation run: each bug of tests/mutations.txt
#                   planted alone in a scratch copy, built CPU-only and
#                   run through the CPU tests that execute its lines (a
#                   coverage map, built once per tree and cached in
#                   build/mutate/; --whole runs the whole suite instead),
#                   two at once; report in results/dev-cpu/mutation
#                   (MUTATE_ARGS=... passes options to tests/mutate.py).
#                   MUTATE_ARGS='--rules --seed 1 --count 300' runs
#                   mutants made by rule instead (comparisons, constants,
#                   bounds, && and ||, terms, early exits, !), a seeded
#                   sample, to results/dev-cpu/mutation-rules
#                   (tests/mutate.py --help; results/testing.md has the
#                   times)
#   make regress BASE=REV [SUITE=NAME]
#                   the regression gate: bin/harness ab against revision REV
#                   (exit 0 a pass, 1 a regression, 3 undecided or incomplete)
#   make base-tree BASE=REV [BASE_TREE=DIR]
#                   REV's sources for a machine without git (then
#                   make regress BASE_TREE=DIR there)
#   make clean
#
# Builds run in parallel, one job per core, unless -j is given (make -j1
# for one at a time).
#
# CUDA: nvcc is taken from PATH or /usr/local/cuda/bin (NVCC=... overrides,
# NVCC= builds CPU-only). CUDA is built for one architecture only: the
# GPU that is present (nvidia-smi's compute capability), else sm_90 (the
# H100 and H200); `make CUDA_ARCH=sm_80` asks for another, and
# `make CUDA_ARCH='sm_80 sm_90'` for several (each with its PTX).
#
# MPI (the distributed variants): the flags `mpicc --showme` prints, else
# those of pkg-config ompi; `make MPI=0` builds without. NCCL (their GPU
# form) is probed by compiling and linking against it, in the CUDA toolkit
# or in the system's paths (/usr/include, /usr/lib/x86_64-linux-gnu).
#
# libpng (the renderer's PNG output) is optional too: probed by compiling
# and linking against it; `make PNG=0` builds without, and png_out_write
# then fails saying so.

# One job per core unless the user gave -j (a sub-make shares its
# parent's jobs).
ifeq ($(MAKELEVEL)$(filter -j% --jobserver%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC      ?= cc
ifeq ($(origin CC),default)
CC      := cc
endif
OPT     ?= -O2
WARN    := -Wall -Wextra
CFLAGS  ?= $(OPT) -g
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -Ibuild -Iharness -Ireference -Ikernels -Ivariants -MMD -MP
LDLIBS  := -lcsv -lm -ldl -fopenmp

NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. \r')
ifeq ($(CUDA_ARCH),)
CUDA_ARCH := sm_$(or $(GPU_CC),90)
CUDA_ARCH_WHY := $(if $(GPU_CC),the GPU here,no GPU here: one architecture)
else
CUDA_ARCH_WHY := CUDA_ARCH
endif
GENCODE := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a:sm_%=%),code=[$(a),compute_$(a:sm_%=%)])
# The architectures built, for `harness version`.
CUDA_ARCHS := $(CUDA_ARCH)
NVCCFLAGS ?= -O3 -lineinfo
ALL_NVCCFLAGS := -std=c++17 $(GENCODE) $(NVCCFLAGS) -Xcompiler -Wall,-Wextra -MMD -MP
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))
# The runtime is linked statically, so bin/harness runs wherever the driver
# is, and NVML is opened with dlopen, so it also runs where none is (CI).
LDLIBS += -L$(CUDA_LIBDIR) -lcudart_static -lrt -lpthread -lstdc++
ALL_CFLAGS += -DHARNESS_HAVE_CUDA=1
endif

MPI ?= 1
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
ifeq ($(strip $(MPI_LIBS)),)
MPI_CFLAGS := $(shell pkg-config --cflags ompi 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi 2>/dev/null)
endif
endif
ifneq ($(strip $(MPI_LIBS)),)
HAVE_MPI := 1
ALL_CFLAGS += -DHARNESS_HAVE_MPI=1
LDLIBS += $(MPI_LIBS)
# Only the file that speaks MPI sees its headers.
build/harness/nbody/dist.o: ALL_CFLAGS += $(MPI_CFLAGS)
ifneq ($(NVCC),)
probe_nccl_src := '\#include <nccl.h>\nint main(void){int v; return ncclGetVersion(&v);}\n'
HAVE_NCCL := $(shell printf $(probe_nccl_src) | $(CC) -x c - -I$(CUDA_HOME)/include \
               -L$(CUDA_LIBDIR) -lnccl -o /dev/null >/dev/null 2>&1 && echo 1)
endif
endif
ifeq ($(HAVE_NCCL),1)
ALL_CFLAGS += -DHARNESS_HAVE_NCCL=1
LDLIBS += -lnccl -Wl,-rpath,$(CUDA_LIBDIR)
endif

PNG ?= 1
probe_png_src := '\#include <png.h>\nint main(void){png_image i = {0}; i.version = PNG_IMAGE_VERSION; png_image_free(&i); return 0;}\n'
ifeq ($(PNG),1)
HAVE_PNG := $(shell printf $(probe_png_src) | $(CC) -x c - -lpng -o /dev/null >/dev/null 2>&1 && echo 1)
endif
ifeq ($(HAVE_PNG),1)
ALL_CFLAGS += -DHARNESS_HAVE_PNG=1
LDLIBS += -lpng
endif

# Sources. Every .c under the library folders is part of the harness
# library: harness/core/ the infrastructure (CSV and JSON, results files'
# atomic writes, statistics, timing, subprocesses, the machine's facts,
# NVML, skips, progress, test hooks), which includes nothing of the
# harness above it; harness/nbody/, sph/ and render/ the problems (as
# kernels/ has them); harness/gate/ (compare, its floors and calibrate,
# ab) and harness/figures/ (plot) the tools built on both, harness/ itself
# the commands of a file or two (main.c is the program). tests/ (its
# folders as the sources') is the Criterion suite.
# A *_stub.c file stands in for the .cu of its folder where that cannot be
# built: without nvcc, or (dist_gpu) without NCCL.
STUB_C    := $(wildcard harness/*/*_stub.c)
CORE_C    := $(filter-out $(STUB_C),$(wildcard harness/core/*.c))
PROBLEM_C := $(filter-out $(STUB_C),$(wildcard harness/nbody/*.c harness/sph/*.c harness/render/*.c))
CMD_C     := $(filter-out harness/main.c,$(wildcard harness/*.c harness/gate/*.c harness/figures/*.c))
LIB_C   := $(wildcard variants/*.c reference/*.c kernels/*/*.c) $(CORE_C) $(PROBLEM_C) $(CMD_C)
ifneq ($(NVCC),)
LIB_CU  := $(wildcard harness/core/*.cu harness/nbody/*.cu harness/sph/*.cu harness/render/*.cu \
             harness/*.cu kernels/*/*.cu)
else
LIB_C   += harness/core/gpu_device_stub.c harness/nbody/gpu_instance_stub.c \
           harness/render/render_gpu_stub.c
LIB_CU  :=
endif
# The GPU ranks of the distributed variants need NCCL (and MPI).
ifneq ($(HAVE_NCCL),1)
LIB_CU  := $(filter-out harness/nbody/dist_gpu.cu,$(LIB_CU))
LIB_C   += harness/nbody/dist_gpu_stub.c
endif
LIB_OBJ  := $(LIB_C:%.c=build/%.o) $(LIB_CU:%.cu=build/%.cu.o)
MAIN_OBJ := build/harness/main.o
# GPU tests live in their own program, run one test at a time; the rest
# run in parallel.
GPU_TEST_C := $(wildcard tests/test_gpu_*.c tests/*/test_gpu_*.c)
TEST_OBJ := $(patsubst %.c,build/%.o,$(filter-out $(GPU_TEST_C),$(wildcard tests/*.c tests/*/*.c)))
GPU_TEST_OBJ := $(patsubst %.c,build/%.o,$(GPU_TEST_C))
ifneq ($(NVCC),)
GPU_TEST_OBJ += $(patsubst %.cu,build/%.cu.o,$(wildcard tests/*.cu tests/*/*.cu))
endif

# Per-kernel flags: the portable baseline is plain C as the chapter built it
# (no fast-math, no -march); the SIMD kernel dispatches on the CPU at run
# time, so it needs -O3 and OpenMP but no -march either.
PORTABLE_CFLAGS := -O2 -g
SIMD_CFLAGS     := -O3 -g -fopenmp
build/kernels/nbody/nbody_cpu_portable.o: CFLAGS = $(PORTABLE_CFLAGS)
build/kernels/nbody/nbody_cpu_simd.o:     CFLAGS = $(SIMD_CFLAGS)
# The SPH reference parallelises its particle loops with one OpenMP pragma
# each (results are bit-identical with any thread count).
build/reference/sph_ref.o:          CFLAGS = $(OPT) -g -fopenmp
# The N-body reference shares the checked bodies among threads the same way.
build/reference/nbody_ref.o:        CFLAGS = $(OPT) -g -fopenmp
build/kernels/sph/sph_cpu.o:            CFLAGS = -O3 -g -fopenmp
# The render reference's rays are independent pixels, one pragma.
build/reference/render_raycast.o:   CFLAGS = $(OPT) -g -fopenmp

BIN := bin/harness
TESTBIN := bin/tests
GPUTESTBIN := bin/tests-gpu

# A short line per file built ("cc harness/main.c"); make V=1 shows the
# whole commands.
V ?= 0
ifeq ($(V),1)
Q :=
say = @:
else
Q := @
say = @echo
endif

.PHONY: all run test mutate figures deps deps-mpi deps-png deps-run deps-test deps-figures sass ptx regress base-tree clean FORCE
all: $(BIN)

$(BIN): $(MAIN_OBJ) $(LIB_OBJ) | bin
	$(say) "link $@"
	$(Q)$(CC) -o $@ $^ $(LDLIBS)

$(TESTBIN): $(TEST_OBJ) $(LIB_OBJ) | bin
	$(say) "link $@"
	$(Q)$(CC) -o $@ $^ -lcriterion $(LDLIBS)

$(GPUTESTBIN): $(GPU_TEST_OBJ) $(LIB_OBJ) | bin
	$(say) "link $@"
	$(Q)$(CC) -o $@ $^ -lcriterion $(LDLIBS)

# Every object depends on the build's configuration (compilers, flags,
# CUDA on or off and its architectures, MPI, PNG), rewritten only when it
# changes: switching between `make NVCC=` and a CUDA build, or MPI=0 and
# MPI, recompiles everything instead of linking objects of two builds.
build/config.flags: FORCE
	@mkdir -p build
	@echo '$(CC) $(ALL_CFLAGS) | $(NVCC) $(ALL_NVCCFLAGS) | $(CUDA_ARCHS) | $(LDLIBS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

build/%.o: %.c build/config.flags | build/buildinfo.h
	@mkdir -p $(dir $@)
	$(say) "cc $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/%.cu.o: %.cu build/config.flags
	@mkdir -p $(dir $@)
	$(say) "nvcc $< ($(CUDA_ARCH))"
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -c -o $@ $<

bin:
	@mkdir -p bin

# Build facts for result sidecars; rewritten only when they change. A copy
# of the tree without .git (the GPU machine) is told them:
#   make GIT_COMMIT=<sha> GIT_DIRTY=0|1
GIT_COMMIT ?= $(or $(shell git rev-parse --verify -q HEAD 2>/dev/null),unknown)
GIT_DIRTY  ?= $(shell git status --porcelain 2>/dev/null | grep -q . && echo 1 || echo 0)
# The settings `harness ab` builds a base revision with, so that both sides
# are compiled alike: CC, NVCC and CUDA_ARCH as resolved here, and OPT,
# CFLAGS, NVCCFLAGS and CUDA_HOME where the user set them, on the command
# line (passed on make's command line, 0) or in the environment (put in the
# build's environment, 1), as the user did: a command-line CFLAGS also
# overrides the kernels' own flags, an environment one does not.
buildinfo_setting = echo '  { "$(1)", "'"$$(printf '%s' '$($(1))' | sed 's/\\/\\\\/g; s/"/\\"/g')"'", $(2) }, \';
buildinfo_given = $(if $(findstring command,$(origin $(1))),$(call buildinfo_setting,$(1),0),$(if $(findstring environment,$(origin $(1))),$(call buildinfo_setting,$(1),1)))
build/buildinfo.h: FORCE
	@mkdir -p build
	@{ \
	  echo '/* buildinfo.h - generated by the Makefile: what built this binary */'; \
	  echo '#define HARNESS_CC_VERSION "'"$$($(CC) --version | head -n1 | sed 's/"/\\"/g')"'"'; \
	  echo '#define HARNESS_CFLAGS "'"$$(echo '$(ALL_CFLAGS)' | sed 's/"/\\"/g')"'"'; \
	  echo '#define HARNESS_PORTABLE_CFLAGS "$(PORTABLE_CFLAGS)"'; \
	  echo '#define HARNESS_SIMD_CFLAGS "$(SIMD_CFLAGS)"'; \
	  echo '#define HARNESS_NVCC_VERSION "'"$$( [ -n '$(NVCC)' ] && '$(NVCC)' --version | tail -n2 | tr '\n' ' ' | sed 's/"/\\"/g')"'"'; \
	  echo '#define HARNESS_NVCC_FLAGS "'"$$( [ -n '$(NVCC)' ] && echo '$(ALL_NVCCFLAGS)' | sed 's/"/\\"/g')"'"'; \
	  echo '#define HARNESS_GIT_COMMIT "$(GIT_COMMIT)"'; \
	  echo '#define HARNESS_GIT_DIRTY $(GIT_DIRTY)'; \
	  echo '#define HARNESS_CUDA_ARCHS "$(CUDA_ARCHS)"'; \
	  echo '#define HARNESS_MAKE_SETTINGS \'; \
	  $(call buildinfo_setting,CC,0) \
	  $(call buildinfo_setting,NVCC,0) \
	  $(call buildinfo_setting,CUDA_ARCH,0) \
	  $(foreach v,OPT CFLAGS NVCCFLAGS CUDA_HOME,$(call buildinfo_given,$(v))) \
	  echo '  { 0, 0, 0 }'; \
	} > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# Dependencies: probe by compiling and linking (so CPATH and LIBRARY_PATH
# count), install only what is missing, never call apt-get otherwise.
probe_csv = printf '\#include <csv.h>\nint main(void){struct csv_parser p; return csv_init(&p, 0);}\n' | \
            $(CC) -x c - -o /dev/null -lcsv >/dev/null 2>&1
probe_criterion = printf '\#include <criterion/criterion.h>\nTest(p, p) {}\n' | \
            $(CC) -x c - -o /dev/null -lcriterion >/dev/null 2>&1
define apt_install
	echo "installing missing packages: $(1)"; \
	sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $(1)
endef

# MPI is optional: where it cannot be installed the distributed variants
# are listed as unavailable and their tests skip, saying why.
probe_mpi = printf '\#include <mpi.h>\nint main(int c, char **v){MPI_Init(&c, &v); return MPI_Finalize();}\n' | \
            { mpicc -x c - -o /dev/null || $(CC) -x c - -o /dev/null $$(pkg-config --cflags --libs ompi); } \
            >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1
deps-mpi:
	@[ "$(MPI)" != 1 ] || $(probe_mpi) || { $(call apt_install,libopenmpi-dev openmpi-bin); } || \
	  echo "OpenMPI could not be installed: the distributed variants will be unavailable"
# libpng is optional: without it the harness builds and writes no PNG.
probe_png = printf $(probe_png_src) | $(CC) -x c - -o /dev/null -lpng >/dev/null 2>&1
deps-png:
	@[ "$(PNG)" != 1 ] || $(probe_png) || { $(call apt_install,libpng-dev); } || \
	  echo "libpng could not be installed: PNG output will be unavailable"
deps-run: deps-mpi deps-png
	@$(probe_csv) || { $(call apt_install,libcsv-dev); }
probe_gnuplot = command -v gnuplot >/dev/null 2>&1
deps-figures:
	@$(probe_gnuplot) || { $(call apt_install,gnuplot-nox); }
# gnuplot only draws: where it cannot be had (the GPU machine has no
# registry), the figure tests skip and say so instead of failing the run.
deps-test: deps-run
	@$(probe_gnuplot) || { $(call apt_install,gnuplot-nox); } || \
	  echo "gnuplot-nox could not be installed: the figure tests will skip"
	@$(probe_criterion) || { $(call apt_install,libcriterion-dev); }
deps: deps-test

# What is built, in one line, before the build.
comma := ,
build_says = echo "building $(1): $(if $(NVCC),CUDA for $(CUDA_ARCH) ($(CUDA_ARCH_WHY)),CPU only (no nvcc))$(if $(HAVE_MPI),,$(comma) without MPI), $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),unlimited) jobs"

# make run is a first look: at most 2 s of timing a row (bin/harness run
# alone takes up to 5 s, --max-time), so that it ends within 2 minutes on
# 2 cores; RUN_ARGS= gives the program's own defaults.
RUN_ARGS ?= --max-time 2
run: deps-run
	@$(call build_says,$(BIN))
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) run $(RUN_ARGS)

# Criterion runs each test in its own process. The GPU tests run first and
# one at a time (they skip, saying why, where no GPU is); the CPU tests
# follow in parallel, each test's OpenMP threads waiting passively (many
# tests run beside each other, each with a thread per core; spinning
# threads would take the cores from the tests that time things). On more
# than 16 cores, 16 tests run at a time with cores/16 threads each, the
# load of a 16-core machine (64 tests of 64 threads each on 64 cores made
# the timing tests noisy and slow). With the first GPU alone visible (tests/on-first-gpu.sh) but for the distributed
# GPU tests. HARNESS_BIN lets the command-line tests find the program.
# Both write TAP reports, from which the last lines say how many tests
# were skipped and why (no GPU, no gnuplot, ...), so a run that skipped
# things cannot look complete; the status is that of the tests.
TEST_ARGS ?=
test: deps-test
	@$(call build_says,$(BIN) and the tests)
	@$(MAKE) --no-print-directory $(BIN) $(TESTBIN) $(GPUTESTBIN)
	@rm -f build/tests-gpu.tap build/tests.tap
	@tests/run-gpu-tests.sh $(BIN) $(GPUTESTBIN) $(TEST_ARGS); gpu=$$?; \
	export OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive}; \
	cores=$$(nproc 2>/dev/null || echo 1); jobs=$$cores; \
	if [ $$cores -gt 16 ]; then jobs=16; export OMP_NUM_THREADS=$${OMP_NUM_THREADS:-$$((cores / 16))}; fi; \
	echo "OMP_WAIT_POLICY=$$OMP_WAIT_POLICY$${OMP_NUM_THREADS:+ OMP_NUM_THREADS=$$OMP_NUM_THREADS} HARNESS_BIN=$(BIN) tests/on-first-gpu.sh $(TESTBIN) --jobs $$jobs $(TEST_ARGS)"; \
	HARNESS_BIN=$(BIN) tests/on-first-gpu.sh $(TESTBIN) --jobs $$jobs --tap=build/tests.tap $(TEST_ARGS); cpu=$$?; \
	awk -f tests/tap-summary.awk build/tests-gpu.tap build/tests.tap; \
	[ $$gpu -eq 0 ] && [ $$cpu -eq 0 ]

# The mutation run: how many realistic bugs the CPU suite catches (slow;
# not part of make test). It builds its own scratch copies under /tmp and
# its coverage map (a gcov build, each test run alone) the first time.
# The list's bugs by default; with MUTATE_ARGS='--rules --seed S --count N'
# N mutants made by rule (tests/mutate_rules.py, Python's standard
# library only), the same ones for the same seed and sources.
MUTATE_ARGS ?=
mutate: deps-test
	nice -n 10 python3 tests/mutate.py $(MUTATE_ARGS)

# Figures from the suite CSVs: make figures [FROM=results/h200] [FIGURES=plots/out]
# plots/figures.sh draws each whose data is there (its head says where
# each comes from; COLLAPSE=, RENDER_TABLE=, MODEL=, PHYSICS= on the
# command line name other files), a line each; a FROM that is no folder
# stops it at plot's line saying so.
FROM    =
FIGURES = plots/out
figures: deps-run deps-figures
	@$(MAKE) --no-print-directory $(BIN)
	@plots/figures.sh $(BIN) '$(FROM)' '$(FIGURES)'

# The regression gate: the rows (SUITE, or REGRESS_ARGS such as
# '--variant jsplit-k4 --n 2^16 --rounds 4 --threshold 2') run with REV's
# build and this tree's, interleaved until decided; exit 0 a pass, 1 a
# regression, 2 bad input or a failed build, 3 undecided or incomplete
# (harness ab --help). BASE_TREE=DIR takes REV's sources from a tree made
# by `make base-tree` (no git needed).
BASE         ?=
BASE_TREE    ?=
SUITE        ?=
REGRESS_ARGS ?=
regress: deps-run
	@[ -n "$(BASE)$(BASE_TREE)" ] || { echo "usage: make regress BASE=REV [SUITE=NAME] [REGRESS_ARGS='...'], or BASE_TREE=DIR for BASE"; exit 2; }
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) ab $(if $(BASE_TREE),--base-tree $(BASE_TREE),--base $(BASE)) $(if $(SUITE),--suite $(SUITE)) $(REGRESS_ARGS)

# REV's sources as a plain tree (git archive, without results/ and plots/,
# which a build does not read), its commit in .harness-commit: carry it to
# a machine without git and run `make regress BASE_TREE=DIR` there.
base-tree:
	@[ -n "$(BASE)" ] || { echo "usage: make base-tree BASE=REV [BASE_TREE=DIR] (default DIR: build/ab/tree)"; exit 2; }
	@sha=$$(git rev-parse --verify -q '$(BASE)^{commit}') || { echo "make base-tree: '$(BASE)' is not a commit"; exit 2; }; \
	dir='$(or $(BASE_TREE),build/ab/tree)'; \
	rm -rf "$$dir.tmp" "$$dir" && mkdir -p "$$dir.tmp" && \
	git archive "$$sha" -- . ':!results' ':!plots' | tar -x -C "$$dir.tmp" && \
	echo "$$sha" > "$$dir.tmp/.harness-commit" && mv "$$dir.tmp" "$$dir" && \
	echo "$$dir: the sources of $(BASE) ($$sha); where there is no git: make regress BASE_TREE=$$dir [SUITE=...]"

sass: $(LIB_OBJ)
	@[ -n "$(LIB_CU)" ] || { echo "no CUDA objects (built without nvcc)"; exit 1; }
	@for o in $(LIB_CU:%.cu=build/%.cu.o); do echo "== $$o"; cuobjdump --dump-sass $$o; done

ptx: $(LIB_OBJ)
	@[ -n "$(LIB_CU)" ] || { echo "no CUDA objects (built without nvcc)"; exit 1; }
	@for o in $(LIB_CU:%.cu=build/%.cu.o); do echo "== $$o"; cuobjdump --dump-ptx $$o; done

clean:
	rm -rf build bin

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(GPU_TEST_OBJ:.o=.d)
