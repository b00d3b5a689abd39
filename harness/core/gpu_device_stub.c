/* gpu_device_stub.c - the device API in a build without nvcc: no devices */
#include <stddef.h>

#include "gpu_device.h"

bool gpu_built(void)
{
	return false;
}

int gpu_device_count(void)
{
	return 0;
}

int gpu_device_query(int dev, struct gpu_device_info *info)
{
	(void)dev;
	(void)info;
	return -1;
}

int gpu_device_select(int dev)
{
	(void)dev;
	return -1;
}

int gpu_device_current(void)
{
	return 0;
}

const char *gpu_unavailable_reason(void)
{
	return "built without CUDA (no nvcc at build time)";
}
