/* cudavision — sums and prefix sums over a warp (device code, .cu only).
 * All 32 lanes of the warp call them together (full mask). */
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudavision {

/* The sum of v over the warp's 32 lanes, in every lane. Modulo 2^32 the
 * order of the additions changes nothing, so each architecture takes its
 * cheapest: one REDUX on sm_80+, a butterfly of shuffles before (sm_75 has
 * no __reduce_add_sync). */
__device__ __forceinline__ uint32_t
warp_sum (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync (0xffffffffu, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, o);
  return v;
#endif
}

namespace warp_detail {

/* Lane - o's v (a shuffle has no uint2 form: a uint2 is two, issued
 * together). */
template <typename T>
__device__ __forceinline__ T
shfl_up (T v, int o)
{
  return __shfl_up_sync (0xffffffffu, v, o);
}
__device__ __forceinline__ uint2
shfl_up (uint2 v, int o)
{
  return make_uint2 (__shfl_up_sync (0xffffffffu, v.x, o), __shfl_up_sync (0xffffffffu, v.y, o));
}

template <typename T>
__device__ __forceinline__ void
add_to (T & a, T b)
{
  a += b;
}
__device__ __forceinline__ void
add_to (uint2 & a, uint2 b)
{
  a.x += b.x;
  a.y += b.y;
}

}  // namespace warp_detail

/* The inclusive prefix sum of v over lanes 0 .. lane (lane: the caller's
 * lane in the warp), by doubling steps; a uint2 component by component.
 * The order of the additions is fixed (step o adds lane - o's partial sum
 * to this lane's), so that a floating-point T rounds the same on every
 * call and architecture: results that must match OpenCV's bit for bit
 * would depend on it. */
template <typename T>
__device__ __forceinline__ T
warp_inclusive_scan (T v, int lane)
{
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T n = warp_detail::shfl_up (v, o);
    if (lane >= o)
      warp_detail::add_to (v, n);
  }
  return v;
}

}  // namespace cudavision
