/* cudavision — the Harris / Shi-Tomasi response kernel (harris.h,
 * corner_response) in registers and warp shuffles.
 *
 * A warp owns a strip of columns and walks down it: lane l holds source
 * column sx0 + l (its luma, loaded per row), so the 32 lanes cover
 * 32 - 2R - (B - 1) output columns (28 for Sobel 3 and block 3). Per row:
 *  - each lane sums its column over the K source rows it keeps in
 *    registers (the Sobel's vertical smoothing and derivative taps);
 *  - the horizontal taps read the neighbours' column sums by shuffles:
 *    exact integer Dx, Dy at every column of the strip, then scaled to
 *    float as OpenCV does;
 *  - derivative columns outside the frame take the reflected column's
 *    values (a shuffle from that lane): the box filter reflects the
 *    products, not the source;
 *  - the output lane adds the B products to its right in OpenCV's order
 *    (horizontal sums), and keeps the last B rows of them in registers for
 *    the vertical sums; then the response.
 * Rows outside the frame are the reflected rows' sums (reloaded on the
 * strips at the top and bottom, which walk reflected rows). No shared
 * memory, no barrier inside the walk; a block of 4 warps reduces its
 * maximum and adds it with one atomicMax. The arithmetic is harris_math.h's
 * in the same order, so the map is the host model's bit for bit. */
#include "harris.h"
#include "../../core/gray_weights.h"
#include "../common/launch_util.cuh"

#include <cmath>

namespace cudavision {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarpsPerBlock = 4;
constexpr unsigned kResponseThreads = 32 * kWarpsPerBlock;

struct GraySource {
  const uint8_t *data;
  size_t pitch;
  __device__ int operator() (int x, int y) const { return data[(size_t) y * pitch + x]; }
};

struct Packed4Source {
  const uint8_t *data;
  size_t pitch;
  int r, g, b;
  __device__ int operator() (int x, int y) const
  {
    const uint32_t p = *reinterpret_cast<const uint32_t *> (data + (size_t) y * pitch + 4 * (size_t) x);
    return rgb_to_gray_u8 ((p >> (8 * r)) & 0xffu, (p >> (8 * g)) & 0xffu, (p >> (8 * b)) & 0xffu);
  }
};

struct ResponseArgs {
  int width, height;
  int rows;    /* output rows per warp strip */
  float scale; /* derivative scale */
  CornerMethod method;
  float k;
  float *out;
  size_t out_pitch; /* bytes */
  uint32_t *max_ordered;
};

/* Value of lane (lane + off) of `v`, for a compile-time offset. */
template <int OFF, typename T>
__device__ __forceinline__ T
lane_at (T v)
{
  if constexpr (OFF > 0)
    return __shfl_down_sync (kFull, v, OFF);
  else if constexpr (OFF < 0)
    return __shfl_up_sync (kFull, v, -OFF);
  else
    return v;
}

/* The Sobel's horizontal taps over the lanes' column sums (cs: vertical
 * smoothing, cd: vertical derivative): Dx and Dy, exact integers. Tap I
 * reads lane + I - R; zero taps cost no shuffle. */
template <int KSIZE, int I = 0>
__device__ __forceinline__ void
sobel_taps (int cs, int cd, int *dx, int *dy)
{
  if constexpr (I < KSIZE) {
    constexpr int R = KSIZE / 2;
    constexpr int deriv = sobel_deriv (KSIZE, I), smooth = sobel_smooth (KSIZE, I);
    if constexpr (deriv != 0)
      *dx += deriv * lane_at<I - R> (cs);
    *dy += smooth * lane_at<I - R> (cd);
    sobel_taps<KSIZE, I + 1> (cs, cd, dx, dy);
  }
}

template <int KSIZE, int B>
struct Walker {
  static constexpr int R = KSIZE / 2;
  static constexpr int A = B / 2; /* the box anchor */

  int src[KSIZE];                 /* the column's source rows, top first */
  float hxx[B], hxy[B], hyy[B];   /* the last B rows of horizontal sums, oldest first */

  /* Dx, Dy of this lane's column from the K rows in src (exact integers,
   * the neighbours' columns by shuffles), scaled; then, on border warps,
   * the reflected column's pair. */
  __device__ __forceinline__ void derivatives (float scale, bool border, int fix_lane, float *fdx, float *fdy) const
  {
    int cs, cd;
    sobel_pass<KSIZE> ([this] (int j) { return src[j]; }, &cd, &cs);
    int dx = 0, dy = 0;
    sobel_taps<KSIZE> (cs, cd, &dx, &dy);
    float x = exact::fmul ((float) dx, scale), y = exact::fmul ((float) dy, scale);
    if (border) {
      x = __shfl_sync (kFull, x, fix_lane);
      y = __shfl_sync (kFull, y, fix_lane);
    }
    *fdx = x;
    *fdy = y;
  }

  /* The horizontal box sums at this lane (the first of its B derivative
   * columns), pushed as the newest row. */
  __device__ __forceinline__ void push_row (float fdx, float fdy)
  {
    /* OpenCV's sums start from 0; starting from the first term instead
     * is the same float (0 + x = x for x >= +0, the squares), except that
     * 0 + -0 = +0 where DxDy's first term is -0: b enters the response
     * only as b * b (corner_response), so the response is unchanged */
    float sxx = exact::fmul (fdx, fdx), sxy = exact::fmul (fdx, fdy), syy = exact::fmul (fdy, fdy);
#pragma unroll
    for (int t = 1; t < B; t++) {
      const float ex = __shfl_down_sync (kFull, fdx, t);
      const float ey = __shfl_down_sync (kFull, fdy, t);
      sxx = exact::fadd (sxx, exact::fmul (ex, ex));
      sxy = exact::fadd (sxy, exact::fmul (ex, ey));
      syy = exact::fadd (syy, exact::fmul (ey, ey));
    }
#pragma unroll
    for (int t = 0; t + 1 < B; t++) {
      hxx[t] = hxx[t + 1];
      hxy[t] = hxy[t + 1];
      hyy[t] = hyy[t + 1];
    }
    hxx[B - 1] = sxx;
    hxy[B - 1] = sxy;
    hyy[B - 1] = syy;
  }

  __device__ __forceinline__ float response (CornerMethod method, float k) const
  {
    float sa = hxx[0], sb = hxy[0], sc = hyy[0]; /* from the first term, as in push_row */
#pragma unroll
    for (int t = 1; t < B; t++) {
      sa = exact::fadd (sa, hxx[t]);
      sb = exact::fadd (sb, hxy[t]);
      sc = exact::fadd (sc, hyy[t]);
    }
    return corner_response (sa, sb, sc, method, k);
  }

  __device__ __forceinline__ void shift_in (int v)
  {
#pragma unroll
    for (int j = 0; j + 1 < KSIZE; j++)
      src[j] = src[j + 1];
    src[KSIZE - 1] = v;
  }
};

template <int KSIZE, int B, typename Source>
__global__ void __launch_bounds__ (kResponseThreads)
corner_response_kernel (Source src, ResponseArgs a)
{
  using W = Walker<KSIZE, B>;
  constexpr int R = W::R, A = W::A;
  constexpr int OUTS = 32 - 2 * R - (B - 1);
  __shared__ float s_max[kWarpsPerBlock];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int w = a.width, h = a.height;
  const int out_start = blockIdx.x * OUTS;
  const int y0 = (blockIdx.y * kWarpsPerBlock + warp) * a.rows;
  const int y1 = min (y0 + a.rows, h);
  const int sx0 = out_start - A - R; /* source column of lane 0 */
  const int xs = sx0 + lane;
  /* lanes past the right edge: any in-frame column will do, they feed no output */
  const int col = reflect101 (min (xs, w - 1 + 8), w);
  /* derivative columns outside the frame: the reflected column's lane */
  const bool border = sx0 + R < 0 || sx0 + 31 - R >= w;
  int fix_lane = lane;
  if (xs < 0 || xs >= w)
    fix_lane = min (31, max (0, reflect101 (min (xs, w - 1 + 8), w) - sx0));
  const int x = out_start + lane - R; /* this lane's output column */
  const bool store = lane >= R && lane < R + OUTS && x < w;
  float *out_col = a.out + x; /* dereferenced only when `store` */
  float local_max = -INFINITY;

  if (y0 < h) {
    W wk;
    /* derivative rows y0 - A .. y1 - 1 + (B - 1 - A); interior strips read
     * plain consecutive rows */
    const int first = y0 - A, last = y1 - 1 + (B - 1 - A);
    if (first - R >= 0 && last + R < h) {
#pragma unroll
      for (int j = 0; j < KSIZE - 1; j++)
        wk.src[j + 1] = src (col, first - R + j); /* shifted into place below */
      /* each row's source loaded one row ahead, before the row's store:
       * the load's latency overlaps a row of arithmetic (loaded after the
       * store, it could not start before it: the compiler keeps loads and
       * stores that may alias in order). The last row loads itself again. */
      int ahead = src (col, first + R);
      int yc = first;
      for (; yc < first + B - 1; yc++) {
        const int row = ahead;
        ahead = src (col, yc + 1 + R);
        wk.shift_in (row);
        float fdx, fdy;
        wk.derivatives (a.scale, border, fix_lane, &fdx, &fdy);
        wk.push_row (fdx, fdy);
      }
#pragma unroll 4
      for (; yc <= last; yc++) {
        const int row = ahead;
        ahead = src (col, min (yc + 1, last) + R);
        wk.shift_in (row);
        float fdx, fdy;
        wk.derivatives (a.scale, border, fix_lane, &fdx, &fdy);
        wk.push_row (fdx, fdy);
        const float v = wk.response (a.method, a.k);
        if (store) {
          const int y = yc - (B - 1 - A);
          *reinterpret_cast<float *> (reinterpret_cast<char *> (out_col) + (size_t) y * a.out_pitch) = v;
          local_max = fmaxf (local_max, v);
        }
      }
    } else {
      /* top or bottom strip: rows reflect (repeatedly on tiny frames) */
      int prev = 0;
      for (int yc = first; yc <= last; yc++) {
        const int ry = reflect101 (yc, h);
        if (ry == prev + 1 && yc != first) {
          wk.shift_in (src (col, reflect101 (ry + R, h)));
        } else {
#pragma unroll
          for (int j = 0; j < KSIZE; j++)
            wk.src[j] = src (col, reflect101 (ry + j - R, h));
        }
        prev = ry;
        float fdx, fdy;
        wk.derivatives (a.scale, border, fix_lane, &fdx, &fdy);
        wk.push_row (fdx, fdy);
        if (yc - first >= B - 1) {
          const float v = wk.response (a.method, a.k);
          if (store) {
            const int y = yc - (B - 1 - A);
            *reinterpret_cast<float *> (reinterpret_cast<char *> (out_col) + (size_t) y * a.out_pitch) = v;
            local_max = fmaxf (local_max, v);
          }
        }
      }
    }
  }

  if (!a.max_ordered)
    return;
  float m = local_max;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    m = fmaxf (m, __shfl_down_sync (kFull, m, off));
  if (lane == 0)
    s_max[warp] = m;
  __syncthreads ();
  if (threadIdx.x == 0) {
    float bm = s_max[0];
#pragma unroll
    for (int i = 1; i < kWarpsPerBlock; i++)
      bm = fmaxf (bm, s_max[i]);
    if (bm > -INFINITY)
      atomicMax (a.max_ordered, float_to_ordered (bm));
  }
}

/* Rows per warp strip: long strips share the K - 1 + B - 1 halo rows over
 * more outputs, short ones give more warps; at least ~8 warps per
 * scheduler of a 132-SM GPU (4224 = 132 SMs x 4 schedulers x 8). */
int
strip_rows (int w, int h, int outs)
{
  const long columns = (w + outs - 1) / outs;
  for (int rows : { 32, 16 })
    if (columns * ((h + rows - 1) / rows) >= 4224)
      return rows;
  return 8;
}

template <int KSIZE, int B, typename Source>
CudaStatus
launch_response (Source src, ResponseArgs args, const LaunchPolicy & policy, cudaStream_t stream)
{
  constexpr int OUTS = 32 - 2 * (KSIZE / 2) - (B - 1);
  auto kernel = corner_response_kernel<KSIZE, B, Source>;
  /* the policy records the fixed shape (and the tuner's bookkeeping) */
  policy.choose (harris_response_traits (), cached_resources (kernel), args.width, args.height);
  args.rows = strip_rows (args.width, args.height, OUTS);
  const unsigned strips = (unsigned) ((args.height + args.rows - 1) / args.rows);
  const dim3 grid ((unsigned) ((args.width + OUTS - 1) / OUTS), (strips + kWarpsPerBlock - 1) / kWarpsPerBlock);
  kernel<<<grid, kResponseThreads, 0, stream>>> (src, args);
  CV_CUDA_TRY_LAUNCH ("corner_response_kernel");
  return {};
}

template <int KSIZE, typename Source>
CudaStatus
launch_block (Source src, int block, const ResponseArgs & args, const LaunchPolicy & policy, cudaStream_t stream)
{
  switch (block) {
    case 2: return launch_response<KSIZE, 2> (src, args, policy, stream);
    case 3: return launch_response<KSIZE, 3> (src, args, policy, stream);
    case 4: return launch_response<KSIZE, 4> (src, args, policy, stream);
    case 5: return launch_response<KSIZE, 5> (src, args, policy, stream);
    case 6: return launch_response<KSIZE, 6> (src, args, policy, stream);
    default: return launch_response<KSIZE, 7> (src, args, policy, stream);
  }
}

template <typename Source>
CudaStatus
launch_ksize (Source src, const CornerParams & p, const ResponseArgs & args, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  switch (p.aperture) {
    case 3: return launch_block<3> (src, p.block_size, args, policy, stream);
    case 5: return launch_block<5> (src, p.block_size, args, policy, stream);
    default: return launch_block<7> (src, p.block_size, args, policy, stream);
  }
}

}  // namespace

const KernelTraits &
harris_response_traits ()
{
  /* Fixed: 4 warps, each walking a strip of rows (the registers hold the
   * window, the shuffles the neighbours). */
  static const KernelTraits t =
      kernel_traits ("harris.response", { kResponseThreads, 1 }, false).fixed ().items (1, 16).bytes (4, 4);
  return t;
}

CudaStatus
corner_response (const LumaInput & in, ImageF dst, const CornerParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, uint32_t * max_ordered)
{
  if (in.image.width <= 0 || in.image.height <= 0)
    return {};
  if (!corner_params_valid (p))
    return { cudaErrorInvalidValue, "corner_response: block size 2..7, aperture 3, 5 or 7" };
  ResponseArgs args;
  args.width = in.image.width;
  args.height = in.image.height;
  args.rows = 16;
  args.scale = (float) corner_deriv_scale (p.aperture, p.block_size);
  args.method = p.method;
  args.k = (float) p.k;
  args.out = dst.data;
  args.out_pitch = dst.pitch;
  args.max_ordered = max_ordered;
  if (in.gray)
    return launch_ksize (GraySource { in.image.data, in.image.pitch }, p, args, policy, stream);
  const PackedRgbLayout l = packed_rgb_layout (in.layout);
  if (l.channels != 4)
    return { cudaErrorInvalidValue, "corner_response: 3-byte RGB is not supported" };
  return launch_ksize (Packed4Source { in.image.data, in.image.pitch, l.r, l.g, l.b }, p, args, policy, stream);
}

}  // namespace cudavision
