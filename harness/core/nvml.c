/* nvml.c - GPU clocks through NVML, loaded at run time when the driver has it */
#define _POSIX_C_SOURCE 200809L
#include "nvml.h"

#include <dlfcn.h>
#include <stddef.h>

/* The few NVML entry points used, with NVML's own types reduced to what
 * their ABI is: nvmlReturn_t is an int (0 = success), nvmlDevice_t an
 * opaque pointer, nvmlClockType_t an int (NVML_CLOCK_SM = 1). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_bus_fn)(const char *bus, void **dev);
typedef int (*nvml_clock_fn)(void *dev, int type, unsigned *mhz);

enum { NVML_CLOCK_SM = 1 };

static struct {
	int tried, ok;
	nvml_by_bus_fn by_bus;
	nvml_clock_fn clock, max_clock;
} nvml;

/* Opens libnvidia-ml once. 0 when usable. */
static int nvml_open(void)
{
	if (nvml.tried)
		return nvml.ok ? 0 : -1;
	nvml.tried = 1;
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	/* dlsym returns void *; C11 has no cast to function pointers from it
	 * but POSIX guarantees it works, hence the memcpy-free union idiom. */
	union { void *p; nvml_init_fn f; } init = { dlsym(lib, "nvmlInit_v2") };
	union { void *p; nvml_by_bus_fn f; } bus = { dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2") };
	union { void *p; nvml_clock_fn f; } clk = { dlsym(lib, "nvmlDeviceGetClockInfo") };
	union { void *p; nvml_clock_fn f; } max = { dlsym(lib, "nvmlDeviceGetMaxClockInfo") };
	if (!init.p || !bus.p || !clk.p || !max.p || init.f() != 0)
		return -1;
	nvml.by_bus = bus.f;
	nvml.clock = clk.f;
	nvml.max_clock = max.f;
	nvml.ok = 1;
	return 0;
}

static int nvml_query(const char *pci_bus_id, unsigned *mhz, int max)
{
	void *dev = NULL;
	if (!pci_bus_id || !pci_bus_id[0] || nvml_open() != 0 || nvml.by_bus(pci_bus_id, &dev) != 0)
		return -1;
	return (max ? nvml.max_clock : nvml.clock)(dev, NVML_CLOCK_SM, mhz) == 0 ? 0 : -1;
}

int nvml_sm_clock_mhz(const char *pci_bus_id, unsigned *mhz)
{
	return nvml_query(pci_bus_id, mhz, 0);
}

int nvml_max_sm_clock_mhz(const char *pci_bus_id, unsigned *mhz)
{
	return nvml_query(pci_bus_id, mhz, 1);
}
