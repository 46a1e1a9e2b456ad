/* cudavision — separable Gaussian blur kernels, bit-exact to OpenCV's 8-bit
 * fixed-point GaussianBlur (see blur.h for the arithmetic).
 *
 * Work layout, shared by all three kernels: a thread owns one 4-byte group
 * of a row (4 GRAY8 pixels, or the 4 channels of one RGBA pixel) on
 * kRowsPerThread rows; a block of bx x by threads covers a tile 4*bx bytes
 * wide and by*kRowsPerThread rows high, and loops over tiles in y with a
 * grid stride. Any block shape works (the tiles live in dynamic shared
 * memory sized from blockDim), so every block-sizing mode gives the same
 * pixels; shapes whose tiles would not fit in 48 KiB are narrowed first.
 *
 * Exact arithmetic in float: bytes become floats with a magic-number trick
 * (0x4B0000bb is 2^23 + b), products and sums stay integers below 2^24, and
 * the final (s + 2^15) >> 16 is one FMA and one round-down add. No integer
 * to float conversion instructions (a quarter of the FMA rate) are used.
 *
 * Taps: passed by value in a kernel parameter (BlurTapsF, 2 x 16 floats),
 * which lives in constant memory for the launch and is read with
 * compile-time indices (the radius is a template parameter), exactly like a
 * __constant__ array but private to the launch: two cudablur instances with
 * different sigmas on different streams cannot race on a shared
 * __constant__ symbol, and a property change needs no cudaMemcpyToSymbol
 * ordered against frames in flight. */
#include "blur.h"
#include "blur_arith.h"
#include "blur_direct.h"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudavision {

const char *
blur_variant_name (BlurVariant v)
{
  switch (v) {
    case BlurVariant::Auto: return "auto";
    case BlurVariant::Fused: return "fused";
    case BlurVariant::TwoPass: return "two-pass";
    case BlurVariant::Direct: return "direct";
  }
  return "unknown";
}

BlurVariant
blur_default_variant (int channels, int width, int height, const BlurTaps & taps)
{
  /* Direct on GRAY8 frames of 1080p and more up to 5x5, Fused elsewhere:
   * smaller frames were not measured faster, nor radii 3 and 4 (the 4K
   * Canny chain with a 9x9 blur ran slower on Direct).
   * 5x5 at 1080p 8.35 against 9.47 us (H100): docs/PERFORMANCE.md "Why the kernels are built as they are" */
  const bool large = (long) width * height >= 1920L * 1080;
  if (channels == 1 && large && std::max (taps.radius_x (), taps.radius_y ()) <= 2)
    return BlurVariant::Direct;
  return BlurVariant::Fused;
}

int
blur_radius_class (int radius)
{
  static const int classes[] = { 1, 2, 3, 4, 5, 6, 8, 10, 12, 15 };
  for (int c : classes)
    if (radius <= c)
      return c;
  return 15;
}

namespace {

using blur_detail::out_bits;
using blur_detail::pack4;
using blur_detail::reflect101;

constexpr int kRowsPerThread = 4;

struct BlurTapsF {
  float x[kBlurMaxRadius + 1];
  float y[kBlurMaxRadius + 1];
};

__host__ __device__ constexpr int
round16 (int v)
{
  return (v + 15) / 16 * 16;
}

/* Halo bytes on each side of a tile row: R pixels, rounded up so that the
 * tile's first byte stays 16-byte aligned in the image. */
__host__ __device__ constexpr int
halo_bytes (int C, int R)
{
  return round16 (R * C);
}

/* Bytes between rows of the 8-bit input tile: the tile, both halos, and 4
 * bytes of slack for the word-rounded reads of the last group. */
__host__ __device__ constexpr int
in_stride (int C, int R, int bx)
{
  return round16 (4 * bx + 2 * halo_bytes (C, R) + 4);
}

/* 16-byte chunks of a tile row that hold data: the tile and both halos. */
__host__ __device__ constexpr int
in_chunks (int C, int R, int bx)
{
  return round16 (4 * bx + 2 * halo_bytes (C, R)) / 16;
}

/* Byte k (0..3) of w, as an exact float. */
__device__ __forceinline__ float
byte_f (uint32_t w, int k)
{
  return __uint_as_float (__byte_perm (w, 0x4B000000u, 0x7440 | k)) - 8388608.f;
}

/* Integer-valued float below 2^16 to its 16 bits, and back. */
__device__ __forceinline__ uint32_t
u16_bits (float v)
{
  return __float_as_uint (v + 8388608.f);
}

__device__ __forceinline__ float
lo16_f (uint32_t w)
{
  return __uint_as_float (__byte_perm (w, 0x4B000000u, 0x7410)) - 8388608.f;
}

__device__ __forceinline__ float
hi16_f (uint32_t w)
{
  return __uint_as_float (__byte_perm (w, 0x4B000000u, 0x7432)) - 8388608.f;
}

/* Reads one 16-byte chunk of an image row at byte x (any x, even outside),
 * reflect-101 per pixel outside. */
template <int C>
__device__ __forceinline__ uint4
gather16 (const uint8_t *row, int xb, int width_b, int width)
{
  uint32_t w[4];
#pragma unroll
  for (int q = 0; q < 4; q++) {
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int b = xb + q * 4 + k;
      int off;
      if (b >= 0 && b < width_b) {
        off = b;
      } else {
        const int px = C == 1 ? b : (b >> 2);  /* floor division, also for b < 0 */
        const int ch = b - px * C;
        off = reflect101 (px, width) * C + ch;
      }
      v |= (uint32_t) row[off] << (8 * k);
    }
    w[q] = v;
  }
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* Loads `rows` rows of `chunks` 16-byte chunks of the 8-bit input tile
 * whose byte 0 is image byte x_first (a multiple of 16 when vec) and whose
 * row 0 is image row y_first; rows are reflected. The slack at the end of
 * each tile row (in_stride) is not loaded: only whole words that straddle
 * it are read, and their extra bytes are never used. */
template <int C>
__device__ void
load_tile (const uint8_t *__restrict__ src, size_t pitch, int width, int height, int x_first, int y_first,
    int rows, int stride, int chunks, uint8_t *tile, bool vec)
{
  const int width_b = width * C;
  const int nthreads = blockDim.x * blockDim.y;
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < rows * chunks; i += nthreads) {
    const int r = i / chunks;
    const int c = i - r * chunks;
    const uint8_t *row = src + (size_t) reflect101 (y_first + r, height) * pitch;
    const int xb = x_first + c * 16;
    uint4 v;
    if (vec && xb >= 0 && xb + 16 <= width_b)
      v = __ldg (reinterpret_cast<const uint4 *> (row + xb));
    else
      v = gather16<C> (row, xb, width_b, width);
    *reinterpret_cast<uint4 *> (tile + r * stride + c * 16) = v;
  }
}

template <int NW>
__device__ __forceinline__ float
in_byte (const uint32_t (&w)[NW], int j)
{
  return byte_f (w[j >> 2], j & 3);
}

/* The row pass for group g of a tile row (byte 0 = tile start - halo):
 * 4 outputs, each sum tap * byte, exact. */
template <int C, int R>
__device__ __forceinline__ float4
row_group (const uint8_t *row, int g, const BlurTapsF &t)
{
  constexpr int S = C;  /* bytes between horizontal neighbours */
  constexpr int OFF = halo_bytes (C, R) - R * S;
  constexpr int B0 = OFF % 4;
  constexpr int SPAN = 4 + 2 * R * S;
  constexpr int NW = (B0 + SPAN + 3) / 4;
  const uint32_t *src = reinterpret_cast<const uint32_t *> (row) + g + OFF / 4;
  uint32_t w[NW];
#pragma unroll
  for (int k = 0; k < NW; k++)
    w[k] = src[k];
  float out[4];
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int c = B0 + p + R * S;
    float acc = t.x[0] * in_byte (w, c);
#pragma unroll
    for (int d = 1; d <= R; d++)
      acc = fmaf (t.x[d], in_byte (w, c - d * S) + in_byte (w, c + d * S), acc);
    out[p] = acc;
  }
  return make_float4 (out[0], out[1], out[2], out[3]);
}

/* The column pass: rows r0 .. r0 + kRowsPerThread - 1 of the output tile
 * from the float tile (row r of the output is centred on tile row r + R),
 * stored to dst. */
template <int C, int R>
__device__ __forceinline__ void
column_store (const float *htile, int twb, uint8_t *__restrict__ dst, size_t dpitch, int width_b, int height,
    int x0_b, int y0, const BlurTapsF &t, bool vec_out)
{
  constexpr int P = kRowsPerThread;
  const int g = threadIdx.x;
  const int r0 = threadIdx.y * P;
  float acc[P][4];
#pragma unroll
  for (int p = 0; p < P; p++)
    acc[p][0] = acc[p][1] = acc[p][2] = acc[p][3] = 0.f;
#pragma unroll
  for (int j = 0; j < P + 2 * R; j++) {
    const float4 v = *reinterpret_cast<const float4 *> (htile + (r0 + j) * twb + 4 * g);
#pragma unroll
    for (int p = 0; p < P; p++) {
      const int k = j - p;
      if (k >= 0 && k <= 2 * R) {
        const float tap = t.y[k >= R ? k - R : R - k];
        acc[p][0] = fmaf (tap, v.x, acc[p][0]);
        acc[p][1] = fmaf (tap, v.y, acc[p][1]);
        acc[p][2] = fmaf (tap, v.z, acc[p][2]);
        acc[p][3] = fmaf (tap, v.w, acc[p][3]);
      }
    }
  }
  const int xb = x0_b + 4 * g;
  if (xb >= width_b)
    return;
#pragma unroll
  for (int p = 0; p < P; p++) {
    const int y = y0 + r0 + p;
    if (y >= height)
      break;
    const uint32_t word = pack4 (acc[p][0], acc[p][1], acc[p][2], acc[p][3]);
    uint8_t *d = dst + (size_t) y * dpitch + xb;
    if (vec_out && xb + 4 <= width_b) {
      *reinterpret_cast<uint32_t *> (d) = word;
    } else {
      const int n = min (4, width_b - xb);
      for (int k = 0; k < n; k++)
        d[k] = (uint8_t) (word >> (8 * k));
    }
  }
}

/* ---- kernels ---- */

template <int C, int R>
__global__ void
blur_fused_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, BlurTapsF taps, bool vec_in, bool vec_out)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  const int twb = 4 * blockDim.x;
  const int stride = in_stride (C, R, blockDim.x);
  const int th = blockDim.y * kRowsPerThread;
  const int rows = th + 2 * R;
  uint8_t *in_tile = smem;
  float *htile = reinterpret_cast<float *> (smem + round16 (rows * stride));
  const int width_b = width * C;
  const int x0_b = blockIdx.x * twb;
  const int tiles_y = (height + th - 1) / th;

  for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
    const int y0 = ty * th;
    load_tile<C> (src, spitch, width, height, x0_b - halo_bytes (C, R), y0 - R, rows, stride,
        in_chunks (C, R, blockDim.x), in_tile, vec_in);
    __syncthreads ();
    for (int r = threadIdx.y; r < rows; r += blockDim.y)
      *reinterpret_cast<float4 *> (htile + r * twb + 4 * threadIdx.x) =
          row_group<C, R> (in_tile + r * stride, threadIdx.x, taps);
    __syncthreads ();
    column_store<C, R> (htile, twb, dst, dpitch, width_b, height, x0_b, y0, taps, vec_out);
    __syncthreads ();
  }
}

/* Two-pass, row kernel: the 8.8 intermediate as 4 x uint16 per group. */
template <int C, int R>
__global__ void
blur_rows_kernel (const uint8_t *__restrict__ src, size_t spitch, uint8_t *__restrict__ mid, size_t mpitch,
    int width, int height, BlurTapsF taps, bool vec_in)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  const int twb = 4 * blockDim.x;
  const int stride = in_stride (C, R, blockDim.x);
  const int th = blockDim.y * kRowsPerThread;
  const int groups = (width * C + 3) / 4;
  const int x0_b = blockIdx.x * twb;
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int tiles_y = (height + th - 1) / th;

  for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
    const int y0 = ty * th;
    load_tile<C> (src, spitch, width, height, x0_b - halo_bytes (C, R), y0, th, stride, in_chunks (C, R, blockDim.x),
        smem, vec_in);
    __syncthreads ();
    for (int r = threadIdx.y; r < th; r += blockDim.y) {
      const float4 f = row_group<C, R> (smem + r * stride, threadIdx.x, taps);
      if (g < groups && y0 + r < height) {
        const uint2 v = make_uint2 (__byte_perm (u16_bits (f.x), u16_bits (f.y), 0x5410),
            __byte_perm (u16_bits (f.z), u16_bits (f.w), 0x5410));
        reinterpret_cast<uint2 *> (mid + (size_t) (y0 + r) * mpitch)[g] = v;
      }
    }
    __syncthreads ();
  }
}

/* Two-pass, column kernel: the intermediate back into a float tile with a
 * halo of R rows, then the same column pass as the fused kernel. */
template <int C, int R>
__global__ void
blur_cols_kernel (const uint8_t *__restrict__ mid, size_t mpitch, uint8_t *__restrict__ dst, size_t dpitch,
    int width, int height, BlurTapsF taps, bool vec_out)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  float *htile = reinterpret_cast<float *> (smem);
  const int twb = 4 * blockDim.x;
  const int th = blockDim.y * kRowsPerThread;
  const int rows = th + 2 * R;
  const int width_b = width * C;
  const int groups = (width_b + 3) / 4;
  const int x0_b = blockIdx.x * twb;
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int tiles_y = (height + th - 1) / th;

  for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
    const int y0 = ty * th;
    for (int r = threadIdx.y; r < rows; r += blockDim.y) {
      float4 f = make_float4 (0.f, 0.f, 0.f, 0.f);
      if (g < groups) {
        const int y = reflect101 (y0 - R + r, height);
        const uint2 v = __ldg (reinterpret_cast<const uint2 *> (mid + (size_t) y * mpitch) + g);
        f = make_float4 (lo16_f (v.x), hi16_f (v.x), lo16_f (v.y), hi16_f (v.y));
      }
      *reinterpret_cast<float4 *> (htile + r * twb + 4 * threadIdx.x) = f;
    }
    __syncthreads ();
    column_store<C, R> (htile, twb, dst, dpitch, width_b, height, x0_b, y0, taps, vec_out);
    __syncthreads ();
  }
}

/* ---- shared-memory sizes and launch shapes ---- */

size_t
fused_smem (int C, int R, BlockShape b)
{
  const int rows = (int) b.y * kRowsPerThread + 2 * R;
  return (size_t) round16 (rows * in_stride (C, R, (int) b.x)) + (size_t) rows * 4 * b.x * sizeof (float);
}

size_t
rows_smem (int C, int R, BlockShape b)
{
  return (size_t) b.y * kRowsPerThread * in_stride (C, R, (int) b.x);
}

size_t
cols_smem (int, int R, BlockShape b)
{
  return ((size_t) b.y * kRowsPerThread + 2 * R) * 4 * b.x * sizeof (float);
}

/* Dynamic shared memory a launch may use without opting in. */
size_t
smem_limit (const LaunchPolicy & policy)
{
  const size_t dev = policy.device ().smem_per_block;
  return dev > 0 ? std::min<size_t> (dev, 48 * 1024) : 48 * 1024;
}

/* Narrows a shape until its tiles fit: fewer rows first (x carries the
 * coalescing), then fewer columns. Deterministic, and the pixels do not
 * depend on it. */
template <typename SmemFn>
BlockShape
fit_smem (BlockShape b, size_t limit, SmemFn smem)
{
  while (smem (b) > limit && (b.y > 1 || b.x > 1)) {
    if (b.y > 1)
      b.y /= 2;
    else
      b.x /= 2;
  }
  return b;
}

bool
aligned (const void *p, size_t pitch, size_t a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}

/* The traits of the fused, row and column kernels compiled for C
 * channels and radius class R. A thread makes 4 bytes of a row (4 GRAY8
 * pixels or an RGBA one) on kRowsPerThread rows. The halo is what a kernel
 * loads around its block's output tile, in pixels (the model's
 * tile-efficiency term, docs/BLOCK-SIZING.md): the row pass reads
 * halo_bytes (R pixels rounded up to 16 bytes) beside each tile row, the
 * column pass R rows above and below. DRAM bytes a pixel: 8-bit in and
 * out, the intermediate 16 bits a channel; barriers a tile: load, [row
 * pass,] column pass. */
template <int C, int R>
const KernelTraits &
class_traits (BlurKernel k)
{
  static const std::string fused = "blur.fused.c" + std::to_string (C) + ".r" + std::to_string (R);
  static const std::string rows = "blur.rows.c" + std::to_string (C) + ".r" + std::to_string (R);
  static const std::string cols = "blur.cols.c" + std::to_string (C) + ".r" + std::to_string (R);
  constexpr unsigned hx = (unsigned) (halo_bytes (C, R) / C);
  const auto base = [] (const std::string & name) {
    return kernel_traits (name.c_str (), { 32, 8 }, true).items (C == 1 ? 4 : 1, kRowsPerThread);
  };
  static const KernelTraits tf = base (fused).halo (hx, R).bytes (C, C).barriers (3);
  static const KernelTraits tr = base (rows).halo (hx, 0).bytes (C, 2 * C).barriers (2);
  static const KernelTraits tc = base (cols).halo (0, R).bytes (2 * C, C).barriers (2);
  return k == BlurKernel::Fused ? tf : k == BlurKernel::Rows ? tr : tc;
}


/* The shape whose tiles estimate the shared memory per thread. */
constexpr BlockShape kSmemEstimateShape { 32, 8 };

template <int C, int R>
size_t
smem_per_thread (BlurKernel k)
{
  const BlockShape b = kSmemEstimateShape;
  const size_t bytes = k == BlurKernel::Fused ? fused_smem (C, R, b)
      : k == BlurKernel::Rows                 ? rows_smem (C, R, b)
                                              : cols_smem (C, R, b);
  return bytes / b.threads ();
}

/* Launch shape for one kernel: the policy's choice (with the resources the
 * model needs: registers from the binary, shared memory estimated per
 * thread at the default shape), fitted to the shared-memory limit. */
template <typename Kernel, typename SmemFn>
LaunchConfig
configure (Kernel kernel, const KernelTraits & tr, SmemFn smem, const LaunchPolicy & policy, int width,
    int height, size_t *smem_bytes)
{
  KernelResources res = cached_kernel_resources ((const void *) kernel);
  res.dynamic_smem_per_thread = smem (kSmemEstimateShape) / kSmemEstimateShape.threads ();
  LaunchConfig c = policy.choose (tr, res, width, height);
  const BlockShape b = fit_smem (c.block, smem_limit (policy), smem);
  if (b != c.block)
    c = make_launch_config (tr, b, width, height, c.source);
  *smem_bytes = smem (c.block);
  return c;
}

template <int C, int R>
CudaStatus
run (ConstImage8 src, Image8 dst, const BlurTapsF & taps, const LaunchPolicy & policy, cudaStream_t stream,
    DeviceBuffer * scratch, BlurVariant variant)
{
  const int w = src.width, h = src.height;
  const bool vec_out = aligned (dst.data, dst.pitch, 4);
  if (variant == BlurVariant::Fused) {
    auto kernel = blur_fused_kernel<C, R>;
    auto smem = [] (BlockShape b) { return fused_smem (C, R, b); };
    size_t bytes = 0;
    const LaunchConfig c = configure (kernel, class_traits<C, R> (BlurKernel::Fused), smem, policy, w, h, &bytes);
    const bool vec_in = aligned (src.data, src.pitch, 16) && c.block.x % 4 == 0;
    kernel<<<grid_dim (c), block_dim (c), bytes, stream>>> (src.data, src.pitch, dst.data, dst.pitch, w, h,
        taps, vec_in, vec_out);
    CV_CUDA_TRY_LAUNCH ("blur_fused_kernel");
    return {};
  }

  const size_t mpitch = aligned_pitch ((size_t) (w * C + 3) / 4 * 8);
  if (!scratch)
    return { cudaErrorInvalidValue, "gaussian_blur: the two-pass variant needs a scratch buffer" };
  CV_CUDA_TRY (scratch->ensure (mpitch * h).err);
  uint8_t *mid = scratch->as<uint8_t> ();
  {
    auto kernel = blur_rows_kernel<C, R>;
    auto smem = [] (BlockShape b) { return rows_smem (C, R, b); };
    size_t bytes = 0;
    const LaunchConfig c = configure (kernel, class_traits<C, R> (BlurKernel::Rows), smem, policy, w, h, &bytes);
    const bool vec_in = aligned (src.data, src.pitch, 16) && c.block.x % 4 == 0;
    kernel<<<grid_dim (c), block_dim (c), bytes, stream>>> (src.data, src.pitch, mid, mpitch, w, h, taps, vec_in);
    CV_CUDA_TRY_LAUNCH ("blur_rows_kernel");
  }
  {
    auto kernel = blur_cols_kernel<C, R>;
    auto smem = [] (BlockShape b) { return cols_smem (C, R, b); };
    size_t bytes = 0;
    const LaunchConfig c = configure (kernel, class_traits<C, R> (BlurKernel::Columns), smem, policy, w, h, &bytes);
    kernel<<<grid_dim (c), block_dim (c), bytes, stream>>> (mid, mpitch, dst.data, dst.pitch, w, h, taps, vec_out);
    CV_CUDA_TRY_LAUNCH ("blur_cols_kernel");
  }
  return {};
}

template <int C>
CudaStatus
dispatch (int rclass, ConstImage8 src, Image8 dst, const BlurTapsF & taps, const LaunchPolicy & policy,
    cudaStream_t stream, DeviceBuffer * scratch, BlurVariant v)
{
  switch (rclass) {
    case 1: return run<C, 1> (src, dst, taps, policy, stream, scratch, v);
    case 2: return run<C, 2> (src, dst, taps, policy, stream, scratch, v);
    case 3: return run<C, 3> (src, dst, taps, policy, stream, scratch, v);
    case 4: return run<C, 4> (src, dst, taps, policy, stream, scratch, v);
    case 5: return run<C, 5> (src, dst, taps, policy, stream, scratch, v);
    case 6: return run<C, 6> (src, dst, taps, policy, stream, scratch, v);
    case 8: return run<C, 8> (src, dst, taps, policy, stream, scratch, v);
    case 10: return run<C, 10> (src, dst, taps, policy, stream, scratch, v);
    case 12: return run<C, 12> (src, dst, taps, policy, stream, scratch, v);
    default: return run<C, 15> (src, dst, taps, policy, stream, scratch, v);
  }
}

template <int C>
size_t
smem_dispatch (BlurKernel k, int rclass)
{
  switch (rclass) {
    case 1: return smem_per_thread<C, 1> (k);
    case 2: return smem_per_thread<C, 2> (k);
    case 3: return smem_per_thread<C, 3> (k);
    case 4: return smem_per_thread<C, 4> (k);
    case 5: return smem_per_thread<C, 5> (k);
    case 6: return smem_per_thread<C, 6> (k);
    case 8: return smem_per_thread<C, 8> (k);
    case 10: return smem_per_thread<C, 10> (k);
    case 12: return smem_per_thread<C, 12> (k);
    default: return smem_per_thread<C, 15> (k);
  }
}

template <int C>
const KernelTraits &
traits_dispatch (BlurKernel k, int rclass)
{
  switch (rclass) {
    case 1: return class_traits<C, 1> (k);
    case 2: return class_traits<C, 2> (k);
    case 3: return class_traits<C, 3> (k);
    case 4: return class_traits<C, 4> (k);
    case 5: return class_traits<C, 5> (k);
    case 6: return class_traits<C, 6> (k);
    case 8: return class_traits<C, 8> (k);
    case 10: return class_traits<C, 10> (k);
    case 12: return class_traits<C, 12> (k);
    default: return class_traits<C, 15> (k);
  }
}

}  // namespace

size_t
blur_scratch_bytes (int channels, int width, int height)
{
  return aligned_pitch ((size_t) (width * channels + 3) / 4 * 8) * (size_t) height;
}

const KernelTraits &
blur_fused_traits (int channels, int radius)
{
  const int rc = blur_radius_class (radius);
  return channels == 4 ? traits_dispatch<4> (BlurKernel::Fused, rc) : traits_dispatch<1> (BlurKernel::Fused, rc);
}

const KernelTraits &
blur_rows_traits (int channels, int radius)
{
  const int rc = blur_radius_class (radius);
  return channels == 4 ? traits_dispatch<4> (BlurKernel::Rows, rc) : traits_dispatch<1> (BlurKernel::Rows, rc);
}

const KernelTraits &
blur_columns_traits (int channels, int radius)
{
  const int rc = blur_radius_class (radius);
  return channels == 4 ? traits_dispatch<4> (BlurKernel::Columns, rc) : traits_dispatch<1> (BlurKernel::Columns, rc);
}

size_t
blur_smem_per_thread (BlurKernel kernel, int channels, int radius)
{
  if (kernel == BlurKernel::Direct) {
    if (blur_radius_class (radius) <= kBlurDirectMaxRadius)
      return 0;
    kernel = BlurKernel::Fused;
  }
  const int rc = blur_radius_class (radius);
  return channels == 4 ? smem_dispatch<4> (kernel, rc) : smem_dispatch<1> (kernel, rc);
}

namespace {

/* NV12's chroma: two interleaved channels to two planes and back. A thread
 * per sample pair; grid-stride over rows. */
__global__ void
split2_kernel (const uint8_t *__restrict__ src, size_t src_pitch, uint8_t *__restrict__ a, uint8_t *__restrict__ b,
    size_t pitch, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w)
    return;
  /* byte loads and stores: a plane may start at any address (a crop) */
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
    const uint8_t *p = src + (size_t) y * src_pitch + 2 * (size_t) x;
    a[(size_t) y * pitch + x] = p[0];
    b[(size_t) y * pitch + x] = p[1];
  }
}

__global__ void
merge2_kernel (const uint8_t *__restrict__ a, const uint8_t *__restrict__ b, size_t pitch, uint8_t *__restrict__ dst,
    size_t dst_pitch, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
    uint8_t *p = dst + (size_t) y * dst_pitch + 2 * (size_t) x;
    p[0] = a[(size_t) y * pitch + x];
    p[1] = b[(size_t) y * pitch + x];
  }
}

const KernelTraits &
interleave2_traits ()
{
  static const KernelTraits t = kernel_traits ("blur.interleave2", { 32, 8 }, true);
  return t;
}

}  // namespace

CudaStatus
gaussian_blur_interleaved2 (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy,
    cudaStream_t stream, DeviceBuffer * planes, DeviceBuffer * scratch)
{
  if (!taps.valid ())
    return { cudaErrorInvalidValue, "gaussian_blur: kernel sizes must be odd, 1 to 31" };
  const int w = src.width, h = src.height;
  if (w <= 0 || h <= 0)
    return {};
  /* cv::GaussianBlur of a 2-channel image blurs each channel apart with
   * the same kernel: the channels as planes, each the 1-channel blur */
  const size_t pitch = aligned_pitch ((size_t) w), plane = pitch * (size_t) h;
  CudaStatus s = planes->ensure (4 * plane);
  if (!s.ok ())
    return s;
  uint8_t *p = planes->as<uint8_t> ();
  uint8_t *in_a = p, *in_b = p + plane, *out_a = p + 2 * plane, *out_b = p + 3 * plane;
  LaunchConfig c = policy.choose (interleave2_traits (), cached_resources (split2_kernel), w, h);
  split2_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, in_a, in_b, pitch, w, h);
  CV_CUDA_TRY_LAUNCH ("split2_kernel");
  s = gaussian_blur ({ in_a, pitch, w, h }, { out_a, pitch, w, h }, 1, taps, policy, stream, scratch);
  if (s.ok ())
    s = gaussian_blur ({ in_b, pitch, w, h }, { out_b, pitch, w, h }, 1, taps, policy, stream, scratch);
  if (!s.ok ())
    return s;
  c = policy.choose (interleave2_traits (), cached_resources (merge2_kernel), w, h);
  merge2_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (out_a, out_b, pitch, dst.data, dst.pitch, w, h);
  CV_CUDA_TRY_LAUNCH ("merge2_kernel");
  return {};
}

CudaStatus
gaussian_blur (ConstImage8 src, Image8 dst, int channels, const BlurTaps & taps, const LaunchPolicy & policy,
    cudaStream_t stream, DeviceBuffer * scratch, BlurVariant variant)
{
  if (channels != 1 && channels != 4)
    return { cudaErrorInvalidValue, "gaussian_blur: channels must be 1 or 4" };
  if (!taps.valid ())
    return { cudaErrorInvalidValue, "gaussian_blur: kernel sizes must be odd, 1 to 31" };
  if (src.width <= 0 || src.height <= 0)
    return {};
  BlurTapsF f {};
  for (int d = 0; d <= kBlurMaxRadius; d++) {
    f.x[d] = taps.x[d];
    f.y[d] = taps.y[d];
  }
  if (variant == BlurVariant::Auto)
    variant = blur_default_variant (channels, src.width, src.height, taps);
  if (variant == BlurVariant::Direct) {
    if (blur_direct_supported (channels, taps, src, dst))
      return blur_direct (src, dst, taps, policy, stream);
    variant = BlurVariant::Fused;
  }
  const int rclass = blur_radius_class (std::max (taps.radius_x (), taps.radius_y ()));
  return channels == 1 ? dispatch<1> (rclass, src, dst, f, policy, stream, scratch, variant)
                       : dispatch<4> (rclass, src, dst, f, policy, stream, scratch, variant);
}

}  // namespace cudavision
