/* cudavision — small helpers shared by the kernel launchers (.cu only). */
#pragma once

#include "device_info.h"
#include "../../core/policy/launch_policy.h"

#include <cuda_runtime.h>


namespace cudavision {

/* Programmatic dependent launches (FrameLaunches::programmatic_kernel):
 * a kernel lets the next one on its stream launch early with
 * allow_next_grid (); the kernel launched early waits with
 * wait_for_previous_grid () until the one before it has finished and its
 * writes are visible. Both do nothing below compute capability 9.0, and
 * the wait returns at once in a kernel launched the ordinary way. */
__device__ __forceinline__ void
allow_next_grid ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void
wait_for_previous_grid ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Registers and shared memory of a kernel (cached per kernel address). */
template <typename Kernel>
const KernelResources &
cached_resources (Kernel kernel)
{
  return cached_kernel_resources ((const void *) kernel);
}

/* The one way a launcher declares its kernel's traits: kernel_traits (name,
 * shape, two_d) sets what every kernel has, the setters the fields a kernel
 * departs from the defaults in (launch_policy.h says what each means), and
 * the result converts to KernelTraits:
 *
 *   const KernelTraits &
 *   algo_kernel_traits ()
 *   {
 *     static const KernelTraits t = kernel_traits ("algo.kernel", { 32, 8 }, true).items (4, 1).bytes (1, 1);
 *     return t;
 *   }
 *
 * The function-local static is what the algorithm's header exposes as
 * `const KernelTraits & <algo>_<kernel>_traits (...)`, the tuner and the
 * tests compare kernels by its address. */
struct KernelTraitsBuilder {
  KernelTraits t;

  /* Work items a thread handles along x and y. */
  KernelTraitsBuilder &
  items (unsigned x, unsigned y = 1)
  {
    t.items_per_thread_x = x;
    t.items_per_thread_y = y;
    return *this;
  }
  /* DRAM bytes a work item loads and stores. */
  KernelTraitsBuilder &
  bytes (unsigned load, unsigned store)
  {
    t.load_bytes_per_item = load;
    t.store_bytes_per_item = store;
    return *this;
  }
  /* Items a shared-memory tile loads beside each tile row and above and
   * below the tile. */
  KernelTraitsBuilder &
  halo (unsigned x, unsigned y)
  {
    t.halo_x = x;
    t.halo_y = y;
    return *this;
  }
  /* Block-wide barriers per tile. */
  KernelTraitsBuilder &
  barriers (unsigned n)
  {
    t.barriers = n;
    return *this;
  }
  /* Every mode returns the static shape (a tile built for it). */
  KernelTraitsBuilder &
  fixed ()
  {
    t.fixed_block = true;
    return *this;
  }
  /* Neighbouring items read overlapping lines (launch_policy.h). */
  KernelTraitsBuilder &
  neighbours_share_lines ()
  {
    t.neighbours_share_lines = true;
    return *this;
  }

  operator KernelTraits () const { return t; }
};

inline KernelTraitsBuilder
kernel_traits (const char *name, BlockShape static_block, bool two_d)
{
  KernelTraitsBuilder b;
  b.t.name = name;
  b.t.static_block = static_block;
  b.t.two_d = two_d;
  return b;
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
