/* gpu_device.cu - CUDA device count, facts and availability, behind a C API */
#include "gpu_device.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

bool gpu_built(void)
{
	return true;
}

int gpu_device_count(void)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess) {
		cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
		return 0;
	}
	return count;
}

int gpu_device_query(int dev, struct gpu_device_info *info)
{
	if (dev < 0 || dev >= gpu_device_count())
		return -1;
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
		return -1;
	memset(info, 0, sizeof *info);
	info->index = dev;
	snprintf(info->name, sizeof info->name, "%s", prop.name);
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;
	info->sm_count = prop.multiProcessorCount;
	info->total_mem = prop.totalGlobalMem;
	info->mem_bus_bits = prop.memoryBusWidth;
	cudaDeviceGetAttribute(&info->clock_khz, cudaDevAttrClockRate, dev);
	cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
	cudaDriverGetVersion(&info->driver_version);
	cudaRuntimeGetVersion(&info->runtime_version);
	cudaDeviceGetPCIBusId(info->pci_bus_id, sizeof info->pci_bus_id, dev);
	const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
	snprintf(info->uuid, sizeof info->uuid,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	return 0;
}

int gpu_device_select(int dev)
{
	if (dev < 0 || dev >= gpu_device_count())
		return -1;
	if (cudaSetDevice(dev) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return 0;
}

int gpu_device_current(void)
{
	int dev = 0;
	if (gpu_device_count() == 0 || cudaGetDevice(&dev) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return dev;
}

const char *gpu_unavailable_reason(void)
{
	static int checked;
	static char reason[160];
	if (!checked) {
		checked = 1;
		int count = 0;
		cudaError_t rc = cudaGetDeviceCount(&count);
		if (rc == cudaErrorInsufficientDriver) {
			snprintf(reason, sizeof reason, "no CUDA driver on this machine (or one older than the CUDA %d.%d runtime)",
				 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
			cudaGetLastError();
		} else if (rc != cudaSuccess) {
			snprintf(reason, sizeof reason, "no CUDA device (%s)", cudaGetErrorString(rc));
			cudaGetLastError();
		} else if (count == 0) {
			snprintf(reason, sizeof reason, "no CUDA device");
		}
	}
	return reason[0] ? reason : NULL;
}
