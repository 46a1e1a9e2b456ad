/* cudavision — what the launch policy needs to know of the GPU in use. */
#pragma once

#include "cuda_check.h"
#include "../../core/policy/launch_policy.h"

namespace cudavision {

/* Number of usable CUDA devices; 0 when there is no driver or no device
 * (never an error: the caller falls back to the CPU backend). */
int cuda_device_count ();

/* Description of the device of the current context (or `device` when no
 * context is current). */
CudaStatus query_current_device (DeviceDescription * out);

/* A kernel's registers and shared memory, for the model. */
CudaStatus query_kernel_resources (const void *kernel, KernelResources * out);

/* The same, queried once per kernel (keyed by the kernel's address, so
 * every template instance has its own entry) and kept for the process:
 * launches ask for it every frame and cudaFuncGetAttributes is not free.
 * On error the defaults are returned; the launch reports real errors. */
const KernelResources & cached_kernel_resources (const void *kernel);

}  // namespace cudavision
