/* cudavision — checked CUDA calls.
 *
 * Every CUDA runtime call in cuda/ goes through CV_CUDA_TRY, so a failure is
 * returned to the element (which turns it into a GStreamer error) instead of
 * being lost. Launchers return a CudaStatus; so do the memory helpers.
 */
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace cudavision {

struct CudaStatus {
  cudaError_t err = cudaSuccess;
  const char *what = "";  /* the failing call, as written in the source */

  bool ok () const { return err == cudaSuccess; }
  bool out_of_memory () const { return err == cudaErrorMemoryAllocation; }
  std::string message () const;  /* "cudaMalloc(...) failed: out of memory (cudaErrorMemoryAllocation)" */
};

}  // namespace cudavision

#define CV_CUDA_TRY(call)                                                  \
  do {                                                                     \
    cudaError_t cv_err_ = (call);                                          \
    if (cv_err_ != cudaSuccess)                                            \
      return ::cudavision::CudaStatus { cv_err_, #call };                  \
  } while (0)

/* After a kernel launch: launch errors (bad configuration, no kernel image
 * for this GPU) surface here rather than at some later, unrelated call. */
#define CV_CUDA_TRY_LAUNCH(name)                                           \
  do {                                                                     \
    cudaError_t cv_err_ = cudaGetLastError ();                             \
    if (cv_err_ != cudaSuccess)                                            \
      return ::cudavision::CudaStatus { cv_err_, name };                   \
  } while (0)
