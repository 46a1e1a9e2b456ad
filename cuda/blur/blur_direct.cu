/* cudavision — cudablur's register-only GRAY8 kernel: its launcher and
 * traits (blur_direct.h says how it works and why, blur_direct_strip.h
 * holds a thread's code, blur.h the arithmetic). */
#include "blur_direct.h"
#include "blur_direct_strip.h"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <string>

namespace cudavision {
namespace {

/* One thread: blur_direct_strip of its word, down the rows with a grid
 * stride. */
template <int R, int P>
__global__ void
blur_direct_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, const BlurDirectTaps<R> taps)
{
  const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= width)
    return;
  for (int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * P; y0 < height; y0 += gridDim.y * blockDim.y * P)
    blur_direct_strip<R, P> (src, spitch, dst, dpitch, width, height, taps, x, y0);
}

template <int R>
const KernelTraits &
traits_of ()
{
  static const std::string name = "blur.direct.c1.r" + std::to_string (R);
  static const KernelTraits t = [] {
    KernelTraits k;
    k.name = name.c_str ();
    k.static_block = { 32, 4 };
    k.two_d = true;
    k.items_per_thread_x = 4;
    k.items_per_thread_y = kBlurDirectRows;
    k.load_bytes_per_item = 1;
    k.store_bytes_per_item = 1;
    return k;
  }();
  return t;
}

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
  for (int d = 0; d <= taps.radius_x (); d++)
    if (taps.x[d] > 255)
      return false;
  return (uintptr_t) src.data % 4 == 0 && src.pitch % 4 == 0 && (uintptr_t) dst.data % 4 == 0 &&
      dst.pitch % 4 == 0;
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
