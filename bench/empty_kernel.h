/* cudavision benchmarks — the harness's floor: one launch of a kernel that
 * does nothing (empty_kernel.cu). */
#pragma once

#include <cuda_runtime.h>

namespace cvbench {

/* One block of one warp that returns at once, on `stream`. */
cudaError_t launch_empty_kernel (cudaStream_t stream);

}  // namespace cvbench
