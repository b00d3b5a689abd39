/* gpu_device.h - plain C view of the CUDA devices (present or not) */
#ifndef HARNESS_GPU_DEVICE_H
#define HARNESS_GPU_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_device_info {
	int index;
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	int clock_khz;        /* SM clock the driver reports (boost), kHz */
	int mem_clock_khz;    /* memory clock, kHz */
	int mem_bus_bits;     /* memory bus width */
	size_t total_mem;     /* bytes */
	int driver_version;   /* CUDA driver API version, e.g. 13000 */
	int runtime_version;  /* CUDA runtime the harness was built with */
	char pci_bus_id[32];  /* "0000:3b:00.0": how NVML finds the same device */
	char uuid[48];        /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi
			       * names it: the same whatever CUDA_VISIBLE_DEVICES says */
};

/* Whether the harness was compiled with nvcc (the CUDA parts exist). */
bool gpu_built(void);

/* Number of usable CUDA devices; 0 when built without CUDA or none works. */
int gpu_device_count(void);

/* Fills *info for device dev. Returns 0, or -1 when dev does not exist. */
int gpu_device_query(int dev, struct gpu_device_info *info);

/* Makes device dev (an index among the visible devices, as the CUDA
 * runtime numbers them after CUDA_VISIBLE_DEVICES) the one this process
 * uses from here on. 0, or -1 when it does not exist or cannot be set. */
int gpu_device_select(int dev);

/* The device this process uses: 0 unless gpu_device_select (or the
 * distributed variants' binding) chose another; 0 without devices. */
int gpu_device_current(void);

/* NULL when GPU variants can run here; otherwise a static sentence saying
 * why not ("built without CUDA (no nvcc at build time)", "no CUDA device
 * (...)"). The answer is computed once and cached. */
const char *gpu_unavailable_reason(void);

#ifdef __cplusplus
}
#endif

#endif
