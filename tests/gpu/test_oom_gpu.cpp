/* Out of GPU memory, on its own: it takes nearly all of the device's
 * memory, so meson runs it alone (is_parallel: false) rather than beside
 * other GPU tests, which would fail to allocate. */
#include "../common/test_util.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

using namespace cvtest;

/* Out of GPU memory is a clear error on the bus, not a crash or garbage:
 * take nearly all free memory, then ask for a 1 GiB frame. */
TEST (GpuMemory, OutOfGpuMemoryIsAClearError)
{
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ (cudaMemGetInfo (&free_b, &total_b), cudaSuccess);
  void *hog = nullptr;
  const size_t keep = 256u << 20;  /* leave room for contexts and small frames */
  ASSERT_EQ (cudaMalloc (&hog, free_b - keep), cudaSuccess);
  BusResult r = run_pipeline ("videotestsrc num-buffers=1 pattern=solid-color ! "
                              "video/x-raw,format=RGBA,width=16384,height=16384 ! cudagray backend=cuda ! fakesink",
      120);
  cudaFree (hog);
  EXPECT_FALSE (r.eos);
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("GPU") || r.has_error_containing ("allocate")) << r.errors[0];
}
