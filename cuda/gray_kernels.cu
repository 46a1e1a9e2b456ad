/* cudavision — RGB family to GRAY8 kernels.
 *
 * Memory bound: each thread converts 16 pixels, reading them with 16-byte
 * loads (4 for RGBA, 3 for RGB) and writing one 16-byte word. Row tails
 * shorter than 16 pixels, and buffers whose pitch forbids vector access,
 * take the scalar path. */
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

/* Pixels per thread: 16 keeps four 16-byte loads (RGBA) in flight per
 * thread and writes one 16-byte word, which is what it takes to approach
 * copy bandwidth on HBM GPUs (4 pixels per thread reached 55% on an H100). */
constexpr int kPixelsPerThread = 16;

/* Converts 4 pixels held in CH words (4*CH bytes) to 4 grey bytes. */
template <int CH>
__device__ __forceinline__ uint32_t
gray4 (const uint32_t (&w)[CH], int ro, int go, int bo)
{
  uint32_t out = 0;
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int base = p * CH;
    out |= (uint32_t) rgb_to_gray_u8 (byte_at<CH> (w, base + ro), byte_at<CH> (w, base + go),
               byte_at<CH> (w, base + bo)) << (8 * p);
  }
  return out;
}

template <int CH, bool VEC>
__global__ void
rgb_to_gray_kernel (const uint8_t *__restrict__ src, size_t src_pitch, uint8_t *__restrict__ dst,
    size_t dst_pitch, int width, int height, int ro, int go, int bo)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kPixelsPerThread;
  if (x0 >= width)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *s = src + y * src_pitch + (size_t) x0 * CH;
    uint8_t *d = dst + y * dst_pitch + x0;
    if (VEC && x0 + kPixelsPerThread <= width) {
      /* 16 pixels = CH 16-byte vectors; all loads issue before any use. */
      uint4 v[CH];
#pragma unroll
      for (int i = 0; i < CH; i++)
        v[i] = __ldg (reinterpret_cast<const uint4 *> (s) + i);
      const uint32_t *words = reinterpret_cast<const uint32_t *> (v);
      uint32_t o[4];
#pragma unroll
      for (int q = 0; q < 4; q++) {
        uint32_t w[CH];
#pragma unroll
        for (int i = 0; i < CH; i++)
          w[i] = words[q * CH + i];
        o[q] = gray4<CH> (w, ro, go, bo);
      }
      *reinterpret_cast<uint4 *> (d) = make_uint4 (o[0], o[1], o[2], o[3]);
    } else {
      const int n = min (kPixelsPerThread, width - x0);
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
  t.items_per_thread_x = kPixelsPerThread;
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
  /* Vector loads and stores need 16-byte aligned rows; our own frames
   * always have them (256-byte pitch), other memory may not. */
  const bool vec = aligned (src.data, src.pitch, 16) && aligned (dst.data, dst.pitch, 16);
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
