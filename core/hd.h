/* cudavision — the one host/device marker of the code that runs on both
 * sides: the CUDA kernels and the CPU references that prove them exact
 * (unit tests without a GPU, the CPU backend's drawing). */
#pragma once

#ifdef __CUDACC__
#define CV_HD __host__ __device__ __forceinline__
#else
#define CV_HD inline
#endif

/* The device takes the first expression, the host the second: an
 * intrinsic on the device and its plain C++ equivalent on the host. */
#ifdef __CUDA_ARCH__
#define CV_HD_PICK(device, host) device
#else
#define CV_HD_PICK(device, host) host
#endif
