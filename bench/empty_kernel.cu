/* cudavision benchmarks — a kernel that does nothing: timed like any other
 * launch, it is the floor of the harness (the launch and the two events
 * around it), below which no kernel of a frame can go. */
#include "empty_kernel.h"

namespace cvbench {
namespace {

__global__ void
empty_kernel ()
{}

}  // namespace

cudaError_t
launch_empty_kernel (cudaStream_t stream)
{
  empty_kernel<<<1, 32, 0, stream>>> ();
  return cudaGetLastError ();
}

}  // namespace cvbench
