/* cudavision — the luma kernel: packed RGB to GRAY8 (cudagray, and with a
 * frame copy cudafacedetect's input), and GRAY8 or 4-byte RGB with a frame
 * copy as cudaflow's level 0. One kernel for all of them: the luma and the
 * copy from the same loads, the per-caller differences (bytes a pixel,
 * rows a thread, where the pointers come from) as its parameters.
 *
 * Memory bound; see luma_kernel for the access pattern. Row tails
 * narrower than 4 pixels, and buffers whose pitch forbids vector access,
 * take the scalar path. */
#include "luma.h"
#include "../../core/gray_weights.h"
#include "launch_util.cuh"
#include <algorithm>

namespace cudavision {
namespace {

/* Each thread converts 4 pixels in each of ROWS rows: one 16-byte load
 * (RGBA family) or CH 4-byte loads (RGB, GRAY8) per row, all rows loaded
 * before any is converted so several loads are in flight, and every load
 * and store instruction is contiguous across the warp. The channel
 * offsets are template parameters, so each channel is a single byte
 * extract: with run-time offsets the selects cost as much time as the
 * memory traffic (docs/PERFORMANCE.md, "Why the kernels are built as they
 * are"). rgb_to_gray makes 4
 * rows a thread, cudaflow's launch 1: each has its own traits, tuned
 * shapes and timings, so neither takes the other's. */
constexpr int kPixelsPerThread = 4;
constexpr int kRowsPerThread = 4; /* rgb_to_gray's */
constexpr int kFlowRows = 1;      /* luma_and_copy's (cudaflow's flow.input) */

/* The luma of 4 pixels from the CH words that hold them. GRAY8 (CH 1):
 * the bytes themselves (cvtColor's weights sum to 2^15, so the formula
 * would give them too, at the cost of the arithmetic). */
template <int CH, int RO, int GO, int BO>
__device__ __forceinline__ uint32_t
gray4 (const uint32_t (&w)[CH])
{
  if constexpr (CH == 1) {
    return w[0];
  } else {
    uint32_t out = 0;
#pragma unroll
    for (int p = 0; p < 4; p++) {
      const int r = p * CH + RO, g = p * CH + GO, b = p * CH + BO;
      out |= (uint32_t) rgb_to_gray_u8 ((w[r / 4] >> (8 * (r % 4))) & 0xffu, (w[g / 4] >> (8 * (g % 4))) & 0xffu,
                 (w[b / 4] >> (8 * (b % 4))) & 0xffu) << (8 * p);
    }
    return out;
  }
}

/* The luma of pixel p of a row from its bytes (the scalar path). */
template <int CH, int RO, int GO, int BO>
__device__ __forceinline__ uint8_t
gray1 (const uint8_t *s, int p)
{
  if constexpr (CH == 1)
    return s[p];
  else
    return rgb_to_gray_u8 (s[p * CH + RO], s[p * CH + GO], s[p * CH + BO]);
}

/* CH bytes a pixel: 1 (GRAY8) or 3 or 4 (packed RGB, the channels at byte
 * offsets RO GO BO). ROWS rows a thread. VEC: the rows allow the vector
 * loads and stores. COPY: the source pixels also go to `copy` unchanged
 * (an element that passes its frame through and needs its luma: one
 * launch instead of a copy call and a launch, each a few microseconds of
 * host time). With `from` not null the pointers are read there (the
 * frame's, written for this frame: a replayed graph). */
template <int CH, int RO, int GO, int BO, int ROWS, bool VEC, bool COPY>
__global__ void
luma_kernel (LumaCopyArgs a, const LumaCopyArgs *__restrict__ from, uint8_t *__restrict__ dst, size_t dst_pitch,
    int width, int height)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kPixelsPerThread;
  if (x0 >= width)
    return;
  if (from)
    a = *from;
  const uint8_t *__restrict__ src = a.src;
  uint8_t *__restrict__ copy = a.copy;
  const size_t src_pitch = a.src_pitch, copy_pitch = a.copy_pitch;
  const bool full = VEC && x0 + kPixelsPerThread <= width;
  const int row_step = gridDim.y * blockDim.y;
  for (int y0 = blockIdx.y * blockDim.y + threadIdx.y; y0 < height; y0 += row_step * ROWS) {
    if (full) {
      uint32_t w[ROWS][CH];
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
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
      for (int r = 0; r < ROWS; r++) {
        const int y = y0 + r * row_step;
        if (y < height)
          *reinterpret_cast<uint32_t *> (dst + y * dst_pitch + x0) = gray4<CH, RO, GO, BO> (w[r]);
      }
    } else {
      const int n = min (kPixelsPerThread, width - x0);
      for (int r = 0; r < ROWS; r++) {
        const int y = y0 + r * row_step;
        if (y >= height)
          break;
        const uint8_t *s = src + y * src_pitch + (size_t) x0 * CH;
        for (int p = 0; p < n; p++)
          dst[y * dst_pitch + x0 + p] = gray1<CH, RO, GO, BO> (s, p);
        if constexpr (COPY)
          for (int i = 0; i < n * CH; i++)
            copy[y * copy_pitch + (size_t) x0 * CH + i] = s[i];
      }
    }
  }
}

bool
aligned (const void *p, size_t pitch, size_t a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

/* A launch's run-time arguments, carried through the template dispatch
 * below unchanged. `dst` has the frame's size. */
struct Launch {
  LumaCopyArgs args;
  const LumaCopyArgs *from;
  bool copy;
  Image8 dst;
  const KernelTraits *traits;
  const LaunchPolicy *policy;
  cudaStream_t stream;
};

template <int CH, int RO, int GO, int BO, int ROWS, bool VEC>
CudaStatus
launch (const Launch & l)
{
  auto kernel = l.copy ? luma_kernel<CH, RO, GO, BO, ROWS, VEC, true> : luma_kernel<CH, RO, GO, BO, ROWS, VEC, false>;
  const LaunchConfig c = l.policy->choose (*l.traits, cached_resources (kernel), l.dst.width, l.dst.height);
  kernel<<<grid_dim (c), block_dim (c), 0, l.stream>>> (l.args, l.from, l.dst.data, l.dst.pitch, l.dst.width,
      l.dst.height);
  CV_CUDA_TRY_LAUNCH ("luma_kernel");
  return {};
}

/* The 4-byte layouts, their channel offsets as template arguments. */
template <int ROWS, bool VEC>
CudaStatus
launch_packed4 (PackedRgb layout, const Launch & l)
{
  switch (packed_rgb_layout (layout).r) {
    case 0: return launch<4, 0, 1, 2, ROWS, VEC> (l);  /* RGBA, RGBx */
    case 2: return launch<4, 2, 1, 0, ROWS, VEC> (l);  /* BGRA, BGRx */
    case 1: return launch<4, 1, 2, 3, ROWS, VEC> (l);  /* ARGB, xRGB */
    default: return launch<4, 3, 2, 1, ROWS, VEC> (l); /* ABGR, xBGR */
  }
}

/* rgb_to_gray's layouts: the 3-byte ones too. */
template <bool VEC>
CudaStatus
launch_rgb (PackedRgb layout, const Launch & l)
{
  const PackedRgbLayout p = packed_rgb_layout (layout);
  if (p.channels == 3)
    return p.r == 0 ? launch<3, 0, 1, 2, kRowsPerThread, VEC> (l) : launch<3, 2, 1, 0, kRowsPerThread, VEC> (l);
  return launch_packed4<kRowsPerThread, VEC> (layout, l);
}

}  // namespace

const KernelTraits &
gray_packed4_traits ()
{
  /* A pixel: its packed RGBA bytes in, one gray byte out. */
  static const KernelTraits t =
      kernel_traits ("gray.packed4", { 32, 8 }, true).items (kPixelsPerThread, kRowsPerThread).bytes (4, 1);
  return t;
}

const KernelTraits &
gray_packed3_traits ()
{
  /* A pixel: its packed RGB bytes in, one gray byte out. */
  static const KernelTraits t =
      kernel_traits ("gray.packed3", { 32, 8 }, true).items (kPixelsPerThread, kRowsPerThread).bytes (3, 1);
  return t;
}

CudaStatus
rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst, const LaunchPolicy & policy,
    cudaStream_t stream, Image8 copy)
{
  if (src.width <= 0 || src.height <= 0)
    return {};
  const PackedRgbLayout p = packed_rgb_layout (layout);
  const Launch l { { src.data, src.pitch, copy.data, copy.pitch }, nullptr, copy.data != nullptr,
    { dst.data, dst.pitch, src.width, src.height }, p.channels == 3 ? &gray_packed3_traits () : &gray_packed4_traits (),
    &policy, stream };
  /* Vector loads need 16-byte (RGBA) or 4-byte (RGB) aligned rows and the
   * 4-byte stores 4-byte aligned rows; our own frames (256-byte pitch)
   * always have them, other memory may not. */
  const size_t a = p.channels == 4 ? 16 : 4;
  const bool vec = aligned (src.data, src.pitch, a) && aligned (dst.data, dst.pitch, 4) &&
      (!copy.data || aligned (copy.data, copy.pitch, a));
  return vec ? launch_rgb<true> (layout, l) : launch_rgb<false> (layout, l);
}

KernelTraits
luma_and_copy_traits (const char *name)
{
  return kernel_traits (name, { 32, 8 }, true).items (4).bytes (4, 5);
}

CudaStatus
luma_and_copy (const LumaCopyArgs & args, const LumaCopyArgs * from, bool gray, PackedRgb layout, bool copy,
    Image8 luma, const KernelTraits & traits, const LaunchPolicy & policy, cudaStream_t stream)
{
  if (luma.width <= 0 || luma.height <= 0)
    return {};
  const int bpp = gray ? 1 : packed_rgb_layout (layout).channels;
  /* the fused kernel is instantiated for 1- and 4-byte pixels: 3-byte
   * RGB is taken apart, never from a graph's arguments */
  if (from && bpp == 3)
    return { cudaErrorInvalidValue, "luma_and_copy: 3-byte RGB frames are given by value" };
  if (!from && !luma_and_copy_vectorizable (args, gray, layout, copy)) {
    /* rows the kernel cannot take as words: the copy and the luma apart */
    const ConstImage8 frame { args.src, args.src_pitch, luma.width, luma.height };
    CudaStatus s;
    if (copy)
      s = copy_plane (frame, { args.copy, args.copy_pitch, luma.width, luma.height }, luma.width * bpp, stream);
    if (s.ok ())
      s = gray ? copy_plane (frame, luma, luma.width, stream) : rgb_to_gray (frame, layout, luma, policy, stream);
    return s;
  }
  const Launch l { args, from, copy, luma, &traits, &policy, stream };
  return gray ? launch<1, 0, 0, 0, kFlowRows, true> (l) : launch_packed4<kFlowRows, true> (layout, l);
}

bool
luma_and_copy_vectorizable (const LumaCopyArgs & args, bool gray, PackedRgb layout, bool copy)
{
  if (!gray && packed_rgb_layout (layout).channels != 4)
    return false;
  const size_t a = gray ? 4 : 16;
  auto aligned = [a] (const void *p, size_t pitch) { return (uintptr_t) p % a == 0 && pitch % a == 0; };
  return aligned (args.src, args.src_pitch) && (!copy || aligned (args.copy, args.copy_pitch));
}

namespace {

template <typename WORD>
__device__ void
copy_rows (const LumaCopyArgs & a, int words_per_row, int rows)
{
  const long total = (long) words_per_row * rows;
  for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < total; i += (long) gridDim.x * blockDim.x) {
    const long r = i / words_per_row, c = i % words_per_row;
    reinterpret_cast<WORD *> (a.copy + r * a.copy_pitch)[c] =
        reinterpret_cast<const WORD *> (a.src + r * a.src_pitch)[c];
  }
}

__global__ void
copy_plane_from_kernel (const LumaCopyArgs *from, int bytes_per_row, int rows)
{
  const LumaCopyArgs a = *from;
  const bool wide = ((uintptr_t) a.src | (uintptr_t) a.copy | a.src_pitch | a.copy_pitch | (size_t) bytes_per_row) %
          sizeof (uint4) == 0;
  if (wide)
    copy_rows<uint4> (a, bytes_per_row / (int) sizeof (uint4), rows);
  else
    copy_rows<uint8_t> (a, bytes_per_row, rows);
}

}  // namespace

CudaStatus
copy_plane_from (const LumaCopyArgs * from, int bytes_per_row, int rows, cudaStream_t stream)
{
  if (bytes_per_row <= 0 || rows <= 0)
    return {};
  /* a thread a 16-byte word of the aligned case (it strides otherwise) */
  constexpr unsigned kThreads = 256;
  const long words = ((long) bytes_per_row * rows + 15) / 16;
  const unsigned blocks = (unsigned) std::max (1L, std::min (4096L, (words + kThreads - 1) / kThreads));
  copy_plane_from_kernel<<<blocks, kThreads, 0, stream>>> (from, bytes_per_row, rows);
  CV_CUDA_TRY_LAUNCH ("copy_plane_from_kernel");
  return {};
}

CudaStatus
copy_plane (ConstImage8 src, Image8 dst, int bytes_per_row, cudaStream_t stream)
{
  CV_CUDA_TRY (cudaMemcpy2DAsync (dst.data, dst.pitch, src.data, src.pitch, bytes_per_row,
      src.height, cudaMemcpyDeviceToDevice, stream));
  return {};
}

}  // namespace cudavision
