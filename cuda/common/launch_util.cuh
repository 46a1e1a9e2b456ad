/* cudavision — small helpers shared by the kernel launchers (.cu only). */
#pragma once

#include "device_info.h"
#include "../policy/launch_policy.h"

#include <cuda_runtime.h>


namespace cudavision {

/* Registers and shared memory of a kernel (cached per kernel address). */
template <typename Kernel>
const KernelResources &
cached_resources (Kernel kernel)
{
  return cached_kernel_resources ((const void *) kernel);
}

/* Traits with a name, a static shape and the 2D flag, the rest defaulted
 * (a launcher's starting point). */
inline KernelTraits
kernel_traits (const char *name, BlockShape static_block, bool two_d)
{
  KernelTraits t;
  t.name = name;
  t.static_block = static_block;
  t.two_d = two_d;
  return t;
}

inline dim3
block_dim (const LaunchConfig & c)
{
  return dim3 (c.block.x, c.block.y, 1);
}

/* Grids are capped at the hardware's y limit; kernels loop over rows with a
 * grid stride, so 16384-row frames work with any block height. */
inline dim3
grid_dim (const LaunchConfig & c)
{
  return dim3 (c.grid_x, c.grid_y > 65535u ? 65535u : c.grid_y, 1);
}

}  // namespace cudavision
