#include "device_info.h"

#include <map>
#include <mutex>

namespace cudavision {

int
cuda_device_count ()
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();  /* clear the sticky "no driver" error */
    return 0;
  }
  return n;
}

CudaStatus
query_current_device (DeviceDescription * out)
{
  int dev = 0;
  CV_CUDA_TRY (cudaGetDevice (&dev));
  cudaDeviceProp p;
  CV_CUDA_TRY (cudaGetDeviceProperties (&p, dev));
  int driver = 0;
  CV_CUDA_TRY (cudaDriverGetVersion (&driver));

  out->name = p.name;
  out->cc_major = p.major;
  out->cc_minor = p.minor;
  out->sm_count = p.multiProcessorCount;
  out->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  out->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  out->max_threads_per_block = p.maxThreadsPerBlock;
  out->warp_size = p.warpSize;
  out->regs_per_sm = p.regsPerMultiprocessor;
  out->regs_per_block = p.regsPerBlock;
  out->smem_per_sm = p.sharedMemPerMultiprocessor;
  out->smem_per_block = p.sharedMemPerBlock;
  out->driver_version = driver;
  /* Peak DRAM bandwidth for the model: the memory clock is an attribute
   * (no longer a cudaDeviceProp field); double data rate. Left 0, and the
   * model assumes a share, when the driver does not report it. */
  int mem_khz = 0;
  if (cudaDeviceGetAttribute (&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess && mem_khz > 0 &&
      p.memoryBusWidth > 0)
    out->dram_bandwidth_gbs = 2.0 * mem_khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
  else
    cudaGetLastError ();
  return {};
}

CudaStatus
query_kernel_resources (const void *kernel, KernelResources * out)
{
  cudaFuncAttributes a;
  CV_CUDA_TRY (cudaFuncGetAttributes (&a, kernel));
  out->regs_per_thread = a.numRegs;
  out->static_smem_bytes = a.sharedSizeBytes;
  out->max_threads_per_block = a.maxThreadsPerBlock;
  return {};
}

const KernelResources &
cached_kernel_resources (const void *kernel)
{
  static std::mutex lock;
  static std::map<const void *, KernelResources> cache;
  std::lock_guard<std::mutex> g (lock);
  auto it = cache.find (kernel);
  if (it == cache.end ()) {
    KernelResources r;
    if (!query_kernel_resources (kernel, &r).ok ())
      cudaGetLastError ();
    it = cache.emplace (kernel, r).first;
  }
  return it->second;
}

}  // namespace cudavision
