/* cudavision — RGB family to GRAY8 kernels.
 *
 * Memory bound: each thread converts 4 pixels, reading them with 16-byte
 * (RGBA family) or 3x4-byte (RGB/BGR) loads and writing one 4-byte word,
 * so a warp moves 2 KiB in and 512 B out per instruction pair. Rows that are
 * not a multiple of 4 wide, and buffers whose pitch forbids vector loads,
 * take the scalar tail path. */
#include "gray.h"
#include "gray_weights.h"
#include "launch_util.cuh"

namespace cudavision {
namespace {

/* Byte k of the CH words w[]: selects instead of a run-time array index,
 * which would move w[] to local memory. */
template <int CH>
__device__ __forceinline__ uint32_t
byte_at (const uint32_t (&w)[CH], int k)
{
  uint32_t word = w[0];
#pragma unroll
  for (int i = 1; i < CH; i++)
    word = (k >> 2) == i ? w[i] : word;
  return (word >> (8 * (k & 3))) & 0xffu;
}

template <int CH, bool VEC>
__global__ void
rgb_to_gray_kernel (const uint8_t *__restrict__ src, size_t src_pitch, uint8_t *__restrict__ dst,
    size_t dst_pitch, int width, int height, int ro, int go, int bo)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (x0 >= width)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *s = src + y * src_pitch + (size_t) x0 * CH;
    uint8_t *d = dst + y * dst_pitch + x0;
    if (VEC && x0 + 4 <= width) {
      uint32_t w[CH];
      if (CH == 4) {
        const uint4 v = *reinterpret_cast<const uint4 *> (s);
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
      } else {
        const uint32_t *s32 = reinterpret_cast<const uint32_t *> (s);
#pragma unroll
        for (int i = 0; i < CH; i++)
          w[i] = s32[i];
      }
      uint32_t out = 0;
#pragma unroll
      for (int p = 0; p < 4; p++) {
        /* byte k of the 4 pixels lives in word k/4, lane k%4 */
        const int base = p * CH;
        const uint32_t r = byte_at<CH> (w, base + ro);
        const uint32_t g = byte_at<CH> (w, base + go);
        const uint32_t b = byte_at<CH> (w, base + bo);
        out |= (uint32_t) rgb_to_gray_u8 (r, g, b) << (8 * p);
      }
      *reinterpret_cast<uint32_t *> (d) = out;
    } else {
      const int n = min (4, width - x0);
      for (int p = 0; p < n; p++)
        d[p] = rgb_to_gray_u8 (s[p * CH + ro], s[p * CH + go], s[p * CH + bo]);
    }
  }
}

KernelTraits
make_traits (const char *name)
{
  KernelTraits t;
  t.name = name;
  t.static_block = { 32, 8 };
  t.two_d = true;
  t.items_per_thread_x = 4;
  return t;
}

bool
aligned (const void *p, size_t pitch, size_t a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

template <int CH>
CudaStatus
launch (ConstImage8 src, const PackedRgbLayout & l, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream, const KernelTraits & traits)
{
  /* Vector loads need 16-byte (RGBA) or 4-byte (RGB) aligned rows and 4-byte
   * aligned output rows; our own frames always have them. */
  const bool vec = aligned (src.data, src.pitch, CH == 4 ? 16 : 4) && aligned (dst.data, dst.pitch, 4);
  auto kernel = vec ? rgb_to_gray_kernel<CH, true> : rgb_to_gray_kernel<CH, false>;
  const LaunchConfig c = policy.choose (traits, cached_resources (kernel), src.width, src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch,
      src.width, src.height, l.r, l.g, l.b);
  CV_CUDA_TRY_LAUNCH ("rgb_to_gray_kernel");
  return {};
}

}  // namespace

const KernelTraits &
gray_packed4_traits ()
{
  static const KernelTraits t = make_traits ("gray.packed4");
  return t;
}

const KernelTraits &
gray_packed3_traits ()
{
  static const KernelTraits t = make_traits ("gray.packed3");
  return t;
}

CudaStatus
rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (src.width <= 0 || src.height <= 0)
    return {};
  const PackedRgbLayout l = packed_rgb_layout (layout);
  if (l.channels == 4)
    return launch<4> (src, l, dst, policy, stream, gray_packed4_traits ());
  return launch<3> (src, l, dst, policy, stream, gray_packed3_traits ());
}

CudaStatus
copy_plane (ConstImage8 src, Image8 dst, int bytes_per_row, cudaStream_t stream)
{
  CV_CUDA_TRY (cudaMemcpy2DAsync (dst.data, dst.pitch, src.data, src.pitch, bytes_per_row,
      src.height, cudaMemcpyDeviceToDevice, stream));
  return {};
}

}  // namespace cudavision
