/* cudavision — cudablur's register-only GRAY8 kernel: its launcher and
 * traits (blur_direct.h says how it works and why, blur_direct_strip.h
 * holds a lane's code, blur.h the arithmetic). */
#include "blur_direct.h"
#include "blur_direct_strip.h"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <string>

namespace cudavision {
namespace {

/* One lane: output pixels x .. x + 15 of rows y0 .. y0 + P - 1, from input
 * rows y0 - R .. y0 + P - 1 + R (reflected). Each input row's words go
 * at once into the column sums of the output rows they touch (acc[p] lives
 * from input row p to p + 2R); an output row is finished by the row pass
 * as soon as its last input row is in, with the 4 column sums on either
 * side taken from the neighbouring lanes of the segment (a shuffle) or, at
 * the segment's ends, from the lane's halo word. Every lane of the warp
 * runs every step (the shuffles need them); only the stores are
 * predicated. */
template <int R, int P>
__device__ __forceinline__ void
direct_strip (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> &taps, int x, int y0, StripEdge edge, bool first_lane,
    bool last_lane, int seg, unsigned mask)
{
  constexpr int N = P + 2 * R;
  /* All input rows first: N independent 16-byte loads in flight per lane
   * (a lane that loaded row by row waited on each, measured 2-3x slower). */
  uint32_t w[N][kStripWords];
  const int ext = edge == StripEdge::Left ? x - 4 : x + 16;
  if (x + 16 <= width && (edge == StripEdge::None || (ext >= 0 && ext + 4 <= width))) {
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint8_t *row = src + (size_t) blur_detail::reflect101 (y0 - R + i, height) * spitch;
      const uint4 v = __ldg (reinterpret_cast<const uint4 *> (row + x));
      w[i][0] = v.x;
      w[i][1] = v.y;
      w[i][2] = v.z;
      w[i][3] = v.w;
      w[i][kStripExt] = edge != StripEdge::None ? __ldg (reinterpret_cast<const uint32_t *> (row + ext)) : 0u;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; i++)
      strip_load_row (src + (size_t) blur_detail::reflect101 (y0 - R + i, height) * spitch, x, width, edge, w[i]);
  }
  uint32_t acc[P][2 * kStripWords];
#pragma unroll
  for (int i = 0; i < N; i++) {
#pragma unroll
    for (int p = 0; p < P; p++) {
      const int k = i - p; /* this input row's tap (0 .. 2R) for output row p */
      if (k >= 0 && k <= 2 * R)
        strip_accumulate (w[i], taps.y[k >= R ? k - R : R - k], k == 0, acc[p]);
    }
    if (i >= 2 * R) {
      const int p = i - 2 * R; /* output row p is complete */
      const uint32_t *a = acc[p];
      const uint32_t up_e = __shfl_up_sync (mask, a[6], 1, seg), up_o = __shfl_up_sync (mask, a[7], 1, seg);
      const uint32_t dn_e = __shfl_down_sync (mask, a[0], 1, seg), dn_o = __shfl_down_sync (mask, a[1], 1, seg);
      const uint32_t ext_e = a[2 * kStripExt], ext_o = a[2 * kStripExt + 1];
      uint32_t out[4];
      strip_row_pass<R> (acc[p], first_lane ? ext_e : up_e, first_lane ? ext_o : up_o, last_lane ? ext_e : dn_e,
          last_lane ? ext_o : dn_o, taps, out);
      const int y = y0 + p;
      if (y < height && x < width) {
        uint8_t *d = dst + (size_t) y * dpitch + x;
        if (x + 16 <= width) {
          *reinterpret_cast<uint4 *> (d) = make_uint4 (out[0], out[1], out[2], out[3]);
        } else {
          for (int b = 0; b < width - x; b++)
            d[b] = (uint8_t) (out[b >> 2] >> (8 * (b & 3)));
        }
      }
    }
  }
}

/* Lanes form segments of `seg` consecutive threads along x (a warp, or the
 * block's width when that is narrower), each covering 16 * seg adjacent
 * bytes of its strip; strips go down the frame with a grid stride, the
 * warp's lanes together until none of its segments has rows left. */
template <int R, int P>
__global__ void __launch_bounds__ (kBlurDirectThreads, blur_direct_min_blocks (R))
blur_direct_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> taps)
{
  const unsigned mask = __activemask ();
  const int seg = blockDim.x >= 32 ? 32 : (int) blockDim.x;
  const int lane = threadIdx.x & (seg - 1);
  const bool first = lane == 0, last = lane == seg - 1;
  const StripEdge edge = first ? StripEdge::Left : last ? StripEdge::Right : StripEdge::None;
  const int x = 16 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * P; __any_sync (mask, y0 < height);
       y0 += gridDim.y * blockDim.y * P)
    direct_strip<R, P> (src, spitch, dst, dpitch, width, height, taps, x, y0, edge, first, last, seg, mask);
}

template <int R>
const KernelTraits &
traits_of ()
{
  static const std::string name = "blur.direct.c1.r" + std::to_string (R);
  static const KernelTraits t = [] {
    KernelTraits k;
    k.name = name.c_str ();
    /* Fixed: the shape sets the shuffle segments (16 lanes, 256 pixels)
     * and how many warps share the halo rows in L2, which the model does
     * not see; it picked 64x3 at 4K, 27.1 us against 18.4 for 16x16
     * (cudavision-tune, H100, 2026-11-26), the tuner's best there. */
    k.static_block = { 16, kBlurDirectThreads / 16 };
    k.fixed_block = true;
    k.two_d = true;
    k.items_per_thread_x = 16;
    k.items_per_thread_y = kBlurDirectRows;
    k.load_bytes_per_item = 1;
    k.store_bytes_per_item = 1;
    return k;
  }();
  return t;
}

/* The block is fixed (traits_of), so every mode gives the 16-lane
 * segments the kernel is built for (a width of at least 2 that is a power
 * of two or a multiple of the warp would also do). */
template <int R>
CudaStatus
launch (ConstImage8 src, Image8 dst, const BlurTaps & bt, const LaunchPolicy & policy, cudaStream_t stream)
{
  const BlurDirectTaps<R> t = blur_direct_taps<R> (bt.x, bt.radius_x (), bt.y, bt.radius_y ());
  auto kernel = blur_direct_kernel<R, kBlurDirectRows>;
  const LaunchConfig c = policy.choose (traits_of<R> (), cached_resources (kernel), src.width, src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch, src.width,
      src.height, t);
  CV_CUDA_TRY_LAUNCH ("blur_direct_kernel");
  return {};
}

}  // namespace

bool
blur_direct_supported (int channels, const BlurTaps & taps, ConstImage8 src, Image8 dst)
{
  if (channels != 1 || !taps.valid () || std::max (taps.radius_x (), taps.radius_y ()) > kBlurDirectMaxRadius)
    return false;
  return (uintptr_t) src.data % 16 == 0 && src.pitch % 16 == 0 && (uintptr_t) dst.data % 16 == 0 &&
      dst.pitch % 16 == 0;
}

CudaStatus
blur_direct (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy, cudaStream_t stream)
{
  switch (blur_radius_class (std::max (taps.radius_x (), taps.radius_y ()))) {
    case 1: return launch<1> (src, dst, taps, policy, stream);
    case 2: return launch<2> (src, dst, taps, policy, stream);
    case 3: return launch<3> (src, dst, taps, policy, stream);
    case 4: return launch<4> (src, dst, taps, policy, stream);
    default: return { cudaErrorInvalidValue, "blur_direct: radius above kBlurDirectMaxRadius" };
  }
}

const KernelTraits &
blur_direct_traits (int radius_class)
{
  switch (radius_class) {
    case 1: return traits_of<1> ();
    case 2: return traits_of<2> ();
    case 3: return traits_of<3> ();
    default: return traits_of<4> ();
  }
}

}  // namespace cudavision
