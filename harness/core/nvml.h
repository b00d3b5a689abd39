/* nvml.h - GPU clocks through NVML, loaded at run time when the driver has it */
#ifndef HARNESS_NVML_H
#define HARNESS_NVML_H

/* The current and the maximum SM clock of the GPU with the given PCI bus id
 * ("0000:3b:00.0", as cudaDeviceGetPCIBusId writes it), in MHz. NVML is
 * opened with dlopen on first use, so a machine without the driver (CI)
 * runs the harness all the same. Return 0, or -1 when NVML or the device
 * cannot be reached. */
int nvml_sm_clock_mhz(const char *pci_bus_id, unsigned *mhz);
int nvml_max_sm_clock_mhz(const char *pci_bus_id, unsigned *mhz);

#endif
