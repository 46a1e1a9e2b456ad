/* cudavision — RGB family to GRAY8 kernels.
 *
 * Memory bound; see rgb_to_gray_kernel for the access pattern. Row tails
 * narrower than 4 pixels, and buffers whose pitch forbids vector access,
 * take the scalar path. */
#include "gray.h"
#include "gray_weights.h"
#include "../common/launch_util.cuh"

namespace cudavision {
namespace {

/* Each thread converts 4 pixels in each of kRowsPerThread rows: one
 * 16-byte load (RGBA family) or three 4-byte loads (RGB) per row, all rows
 * loaded before any is converted so several loads are in flight, and
 * every load and store instruction is contiguous across the warp. The
 * channel offsets are template parameters, so each channel is a single
 * byte extract: with run-time offsets the selects cost as much time as the
 * memory traffic (55% of copy bandwidth on an H100). */
constexpr int kPixelsPerThread = 4;
constexpr int kRowsPerThread = 4;

template <int CH, int RO, int GO, int BO>
__device__ __forceinline__ uint32_t
gray4 (const uint32_t (&w)[CH])
{
  uint32_t out = 0;
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int r = p * CH + RO, g = p * CH + GO, b = p * CH + BO;
    out |= (uint32_t) rgb_to_gray_u8 ((w[r / 4] >> (8 * (r % 4))) & 0xffu, (w[g / 4] >> (8 * (g % 4))) & 0xffu,
               (w[b / 4] >> (8 * (b % 4))) & 0xffu) << (8 * p);
  }
  return out;
}

/* COPY: the source pixels also go to `copy` unchanged (an element that
 * passes its frame through and needs its luma: one launch instead of a
 * copy call and a launch, each a few microseconds of host time). */
template <int CH, int RO, int GO, int BO, bool VEC, bool COPY>
__global__ void
rgb_to_gray_kernel (const uint8_t *__restrict__ src, size_t src_pitch, uint8_t *__restrict__ dst,
    size_t dst_pitch, int width, int height, uint8_t *__restrict__ copy, size_t copy_pitch)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kPixelsPerThread;
  if (x0 >= width)
    return;
  const bool full = VEC && x0 + kPixelsPerThread <= width;
  const int row_step = gridDim.y * blockDim.y;
  for (int y0 = blockIdx.y * blockDim.y + threadIdx.y; y0 < height; y0 += row_step * kRowsPerThread) {
    if (full) {
      uint32_t w[kRowsPerThread][CH];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; r++) {
        const int y = y0 + r * row_step;
        if (y < height) {
          const uint8_t *s = src + y * src_pitch + (size_t) x0 * CH;
          if constexpr (CH == 4) {
            const uint4 v = __ldg (reinterpret_cast<const uint4 *> (s));
            w[r][0] = v.x; w[r][1] = v.y; w[r][2] = v.z; w[r][3] = v.w;
            if constexpr (COPY)
              *reinterpret_cast<uint4 *> (copy + y * copy_pitch + (size_t) x0 * CH) = v;
          } else {
#pragma unroll
            for (int i = 0; i < CH; i++) {
              w[r][i] = __ldg (reinterpret_cast<const uint32_t *> (s) + i);
              if constexpr (COPY)
                reinterpret_cast<uint32_t *> (copy + y * copy_pitch + (size_t) x0 * CH)[i] = w[r][i];
            }
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kRowsPerThread; r++) {
        const int y = y0 + r * row_step;
        if (y < height)
          *reinterpret_cast<uint32_t *> (dst + y * dst_pitch + x0) = gray4<CH, RO, GO, BO> (w[r]);
      }
    } else {
      const int n = min (kPixelsPerThread, width - x0);
      for (int r = 0; r < kRowsPerThread; r++) {
        const int y = y0 + r * row_step;
        if (y >= height)
          break;
        const uint8_t *s = src + y * src_pitch + (size_t) x0 * CH;
        for (int p = 0; p < n; p++)
          dst[y * dst_pitch + x0 + p] = rgb_to_gray_u8 (s[p * CH + RO], s[p * CH + GO], s[p * CH + BO]);
        if constexpr (COPY)
          for (int i = 0; i < n * CH; i++)
            copy[y * copy_pitch + (size_t) x0 * CH + i] = s[i];
      }
    }
  }
}

KernelTraits
make_traits (const char *name, unsigned channels)
{
  KernelTraits t;
  t.name = name;
  t.static_block = { 32, 8 };
  t.two_d = true;
  t.items_per_thread_x = kPixelsPerThread;
  t.items_per_thread_y = kRowsPerThread;
  /* A pixel: its packed RGB(A) bytes in, one gray byte out. */
  t.load_bytes_per_item = channels;
  t.store_bytes_per_item = 1;
  return t;
}

bool
aligned (const void *p, size_t pitch, size_t a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

template <int CH, int RO, int GO, int BO>
CudaStatus
launch (ConstImage8 src, Image8 dst, Image8 copy, const LaunchPolicy & policy, cudaStream_t stream,
    const KernelTraits & traits)
{
  /* Vector loads need 16-byte (RGBA) or 4-byte (RGB) aligned rows and the
   * 4-byte stores 4-byte aligned rows; our own frames (256-byte pitch)
   * always have them, other memory may not. */
  const size_t a = CH == 4 ? 16 : 4;
  const bool vec = aligned (src.data, src.pitch, a) && aligned (dst.data, dst.pitch, 4) &&
      (!copy.data || aligned (copy.data, copy.pitch, a));
  auto kernel = copy.data ? (vec ? rgb_to_gray_kernel<CH, RO, GO, BO, true, true>
                                 : rgb_to_gray_kernel<CH, RO, GO, BO, false, true>)
                          : (vec ? rgb_to_gray_kernel<CH, RO, GO, BO, true, false>
                                 : rgb_to_gray_kernel<CH, RO, GO, BO, false, false>);
  const LaunchConfig c = policy.choose (traits, cached_resources (kernel), src.width, src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch, src.width,
      src.height, copy.data, copy.pitch);
  CV_CUDA_TRY_LAUNCH ("rgb_to_gray_kernel");
  return {};
}

}  // namespace

const KernelTraits &
gray_packed4_traits ()
{
  static const KernelTraits t = make_traits ("gray.packed4", 4);
  return t;
}

const KernelTraits &
gray_packed3_traits ()
{
  static const KernelTraits t = make_traits ("gray.packed3", 3);
  return t;
}

CudaStatus
rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream, Image8 copy)
{
  if (src.width <= 0 || src.height <= 0)
    return {};
  const PackedRgbLayout l = packed_rgb_layout (layout);
  const KernelTraits & t4 = gray_packed4_traits ();
  if (l.channels == 3)
    return l.r == 0 ? launch<3, 0, 1, 2> (src, dst, copy, policy, stream, gray_packed3_traits ())
                    : launch<3, 2, 1, 0> (src, dst, copy, policy, stream, gray_packed3_traits ());
  switch (l.r) {
    case 0: return launch<4, 0, 1, 2> (src, dst, copy, policy, stream, t4);  /* RGBA, RGBx */
    case 2: return launch<4, 2, 1, 0> (src, dst, copy, policy, stream, t4);  /* BGRA, BGRx */
    case 1: return launch<4, 1, 2, 3> (src, dst, copy, policy, stream, t4);  /* ARGB, xRGB */
    default: return launch<4, 3, 2, 1> (src, dst, copy, policy, stream, t4); /* ABGR, xBGR */
  }
}

CudaStatus
copy_plane (ConstImage8 src, Image8 dst, int bytes_per_row, cudaStream_t stream)
{
  CV_CUDA_TRY (cudaMemcpy2DAsync (dst.data, dst.pitch, src.data, src.pitch, bytes_per_row,
      src.height, cudaMemcpyDeviceToDevice, stream));
  return {};
}

}  // namespace cudavision
