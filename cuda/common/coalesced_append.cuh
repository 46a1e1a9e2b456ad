/* cudavision — appending to a device list from many threads at once. */
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

namespace cudavision {

/* Appends `v` to items[0 .. capacity) with one atomic per coalesced group
 * of the calling warp (the threads that call it together), in the group's
 * lane order. The count goes on past the capacity, so that the host can
 * see by how much the list overflowed (and grow it); the items past it
 * are dropped. */
template <typename T>
__device__ __forceinline__ void
coalesced_append (T *items, uint32_t *count, unsigned capacity, const T & v)
{
  namespace cg = cooperative_groups;
  const cg::coalesced_group g = cg::coalesced_threads ();
  unsigned base = 0;
  if (g.thread_rank () == 0)
    base = atomicAdd (count, g.size ());
  base = g.shfl (base, 0) + g.thread_rank ();
  if (base < capacity)
    items[base] = v;
}

}  // namespace cudavision
