/* cudavision — Otsu threshold kernels: histogram + search in one launch,
 * binarization in a second; the threshold never leaves device memory
 * unless the element asks for it (otsu_copy_result). See otsu.h. */
#include "otsu.h"
#include "../common/launch_util.cuh"
#include "../common/warp_ops.cuh"

#include <cfloat>
#include <cstddef>
#include <map>
#include <mutex>

namespace cudavision {
namespace {

constexpr int kHistThreads = 256;  /* one thread per bin in the search */
constexpr int kHistWarps = kHistThreads / 32;
constexpr unsigned kFull = 0xffffffffu;
/* FLT_EPSILON as OpenCV compares it, in double: 2^-23. */
constexpr double kEps = (double) FLT_EPSILON;

/* ---- exact double operations: no FMA contraction on either side ---- */

#ifdef __CUDA_ARCH__
#define OTSU_MUL(a, b) __dmul_rn ((a), (b))
#define OTSU_ADD(a, b) __dadd_rn ((a), (b))
#define OTSU_DIV(a, b) __ddiv_rn ((a), (b))
#else
/* Host: ISO C++ (-std=c++17) does not contract, and x86-64 has no FMA in
 * the baseline: each operation rounds once, as in OpenCV. */
#define OTSU_MUL(a, b) ((a) * (b))
#define OTSU_ADD(a, b) ((a) + (b))
#define OTSU_DIV(a, b) ((a) / (b))
#endif

__host__ __device__ inline bool
otsu_valid (double q1, double q2)
{
  return !(fmin (q1, q2) < kEps || fmax (q1, q2) > 1. - kEps);
}

/* |a*b - c*d| for 64-bit operands, as a double (2 roundings). */
__host__ __device__ inline double
abs_diff_of_products (uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
  uint64_t h1, l1, h2, l2;
#ifdef __CUDA_ARCH__
  h1 = __umul64hi (a, b);
  l1 = a * b;
  h2 = __umul64hi (c, d);
  l2 = c * d;
#else
  const unsigned __int128 p1 = (unsigned __int128) a * b, p2 = (unsigned __int128) c * d;
  h1 = (uint64_t) (p1 >> 64);
  l1 = (uint64_t) p1;
  h2 = (uint64_t) (p2 >> 64);
  l2 = (uint64_t) p2;
#endif
  if (h1 < h2 || (h1 == h2 && l1 < l2)) {
    uint64_t t = h1; h1 = h2; h2 = t;
    t = l1; l1 = l2; l2 = t;
  }
  const uint64_t lo = l1 - l2;
  const uint64_t hi = h1 - h2 - (l1 < l2 ? 1 : 0);
  return (double) hi * 18446744073709551616.0 + (double) lo;
}

/* The between-class variance of bin i from exact integer moments:
 * D^2 / (N^2 Q (N - Q)) with D = S'N - TQ, where S' is the first moment of
 * bins k0..i (OpenCV's recurrence starts at the first bin it does not
 * skip, so the moment of skipped leading bins never enters mu1). */
__host__ __device__ inline double
sigma_from_moments (uint64_t s_from_k0, uint64_t q, uint64_t n, uint64_t t)
{
  const double m = abs_diff_of_products (s_from_k0, n, t, q) / (double) n;
  return m * m / ((double) q * (double) (n - q));
}

/* OpenCV's sigma for one valid bin, operation for operation. */
__host__ __device__ inline double
sigma_opencv (double q1, double mu1, double mu)
{
  const double q2 = OTSU_ADD (1., -q1);
  const double mu2 = OTSU_DIV (OTSU_ADD (mu, -OTSU_MUL (q1, mu1)), q2);
  const double d = OTSU_ADD (mu1, -mu2);
  return OTSU_MUL (OTSU_MUL (OTSU_MUL (q1, q2), d), d);
}

__device__ __forceinline__ bool
better (double v1, int i1, double v2, int i2)
{
  return v1 > v2 || (v1 == v2 && i1 < i2);
}

/* ---- block helpers for 256 threads (8 warps) ---- */

template <typename T>
__device__ T
block_inclusive_scan (T v, T *s_warp)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
  v = warp_inclusive_scan (v, lane);
  if (lane == 31)
    s_warp[warp] = v;
  __syncthreads ();
  T off = 0;
  for (int w = 0; w < warp; w++)
    off += s_warp[w];
  __syncthreads ();
  return v + off;
}

/* The best (value, index) of the block, ties to the lowest index. */
__device__ void
block_argmax (double v, int i, double *s_v, int *s_i, double *best_v, int *best_i)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const double ov = __shfl_down_sync (kFull, v, o);
    const int oi = __shfl_down_sync (kFull, i, o);
    if (better (ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
  if (lane == 0) {
    s_v[warp] = v;
    s_i[warp] = i;
  }
  __syncthreads ();
  double bv = s_v[0];
  int bi = s_i[0];
  for (int w = 1; w < kHistWarps; w++)
    if (better (s_v[w], s_i[w], bv, bi)) {
      bv = s_v[w];
      bi = s_i[w];
    }
  __syncthreads ();
  *best_v = bv;
  *best_i = bi;
}

__device__ int
block_min (int v, int *s_i)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = min (v, __shfl_down_sync (kFull, v, o));
  if (lane == 0)
    s_i[warp] = v;
  __syncthreads ();
  int m = s_i[0];
  for (int w = 1; w < kHistWarps; w++)
    m = min (m, s_i[w]);
  __syncthreads ();
  return m;
}

/* Which bins OpenCV considers, decided in exact integers: it skips bin i
 * when q1 or q2 is below FLT_EPSILON = 2^-23 (its other test, max (q1, q2) >
 * 1 - eps, is the same condition for exact q1 + q2 = 1), i.e. unless
 * Q * 2^23 >= N and (N - Q) * 2^23 >= N. OpenCV's q1 is a running double
 * sum, off by at most 257 ulp (2.9e-14): when a comparison is within that
 * of its boundary ("risky"), only the exact path decides it as OpenCV does. */
__host__ __device__ inline void
otsu_bin_class (uint64_t q, uint64_t n, bool *valid, bool *risky)
{
  const uint64_t lo = q << 23, hi = (n - q) << 23;
  const uint64_t win = (n >> 20) + 1;  /* >= 4x N * 2^23 * 2.9e-14 */
  *valid = lo >= n && hi >= n;
  *risky = (lo > n ? lo - n : n - lo) <= win || (hi > n ? hi - n : n - hi) <= win;
}

/* The Otsu search by the last block: thread b owns bin b. */
__device__ void
otsu_search (uint32_t h, uint64_t n, OtsuDeviceState *st, bool force_exact)
{
  __shared__ double s_p[256], s_q1[256], s_mu1[256];
  __shared__ bool s_valid[256];
  __shared__ uint64_t s_u64[kHistWarps];
  __shared__ double s_v[kHistWarps];
  __shared__ int s_i[kHistWarps];
  __shared__ uint64_t s_total, s_base;

  const int b = threadIdx.y * blockDim.x + threadIdx.x;

  /* Exact integer moments (prefix sums over the bins). */
  const uint64_t q = block_inclusive_scan<uint64_t> (h, s_u64);
  const uint64_t s = block_inclusive_scan<uint64_t> ((uint64_t) b * h, s_u64);
  if (b == 255)
    s_total = s;
  bool valid, risky;
  otsu_bin_class (q, n, &valid, &risky);
  const bool any_risky = __syncthreads_or (risky);
  const uint64_t t = s_total;
  double best_v;
  int best_i;

  if (!force_exact && !any_risky) {
    /* Fast path. */
    const int k0 = block_min (valid ? b : 256, s_i);
    if (k0 == 256) {  /* no bin OpenCV would consider: it returns 0 */
      if (b == 0) {
        st->threshold = 0;
        st->used_exact = 0;
      }
      return;
    }
    if (b == k0)
      s_base = s - (uint64_t) b * h;
    __syncthreads ();
    const double sig = valid ? sigma_from_moments (s - s_base, q, n, t) : -1.;
    block_argmax (sig, b, s_v, s_i, &best_v, &best_i);
    const bool close = valid && b != best_i && sig >= best_v - kOtsuTieMargin;
    if (!__syncthreads_or (close) && best_v > kOtsuTieMargin) {
      if (b == 0) {
        st->threshold = (uint32_t) best_i;
        st->used_exact = 0;
      }
      return;
    }
  }

  /* Exact path: OpenCV's recurrence, one dependent chain in one thread
   * (p_i and i * p_i precomputed in parallel) ... */
  const double scale = OTSU_DIV (1., (double) n);
  const double p = OTSU_MUL ((double) h, scale);
  s_p[b] = p;
  s_mu1[b] = OTSU_MUL ((double) b, p);  /* i * p_i, until the chain replaces it */
  __syncthreads ();
  if (b == 0) {
    double q1 = 0, mu1 = 0;
    for (int i = 0; i < 256; i++) {
      mu1 = OTSU_MUL (mu1, q1);
      q1 = OTSU_ADD (q1, s_p[i]);
      const bool v = otsu_valid (q1, OTSU_ADD (1., -q1));
      if (v) {
        mu1 = OTSU_DIV (OTSU_ADD (mu1, s_mu1[i]), q1);
        s_mu1[i] = mu1;
      }
      s_q1[i] = q1;
      s_valid[i] = v;
    }
  }
  __syncthreads ();
  /* ... then sigma per bin in parallel, and the first maximum above 0. */
  const double mu = OTSU_MUL ((double) t, scale);
  const double sig2 = s_valid[b] ? sigma_opencv (s_q1[b], s_mu1[b], mu) : -1.;
  block_argmax (sig2, b, s_v, s_i, &best_v, &best_i);
  if (b == 0) {
    st->threshold = best_v > 0 ? (uint32_t) best_i : 0u;
    st->used_exact = 1;
  }
}

/* Adds the 16 bytes of v to h, one atomic per run of equal values. */
__device__ __forceinline__ void
count16 (uint32_t *h, uint4 v)
{
  const uint32_t w[4] = { v.x, v.y, v.z, v.w };
  uint32_t prev = w[0] & 0xffu, run = 0;
#pragma unroll
  for (int k = 0; k < 16; k++) {
    const uint32_t byte = (w[k >> 2] >> (8 * (k & 3))) & 0xffu;
    if (byte != prev) {
      atomicAdd (&h[prev], run);
      prev = byte;
      run = 0;
    }
    run++;
  }
  atomicAdd (&h[prev], run);
}

template <bool VEC>
__global__ void __launch_bounds__ (kHistThreads)
otsu_hist_kernel (const uint8_t *__restrict__ src, size_t pitch, int width, int height, OtsuDeviceState *st,
    bool force_exact)
{
  __shared__ uint32_t s_hist[kHistWarps][256];
  __shared__ bool s_last;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = tid; i < kHistWarps * 256; i += kHistThreads)
    (&s_hist[0][0])[i] = 0;
  __syncthreads ();

  uint32_t *h = s_hist[tid >> 5];
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (x0 < width) {
    const int ystep = gridDim.y * blockDim.y;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (VEC && x0 + 16 <= width) {
      /* two rows in flight per iteration */
      for (; y + ystep < height; y += 2 * ystep) {
        const uint4 a = __ldg (reinterpret_cast<const uint4 *> (src + (size_t) y * pitch + x0));
        const uint4 c = __ldg (reinterpret_cast<const uint4 *> (src + (size_t) (y + ystep) * pitch + x0));
        count16 (h, a);
        count16 (h, c);
      }
      if (y < height)
        count16 (h, __ldg (reinterpret_cast<const uint4 *> (src + (size_t) y * pitch + x0)));
    } else {
      const int nbytes = min (16, width - x0);
      for (; y < height; y += ystep) {
        const uint8_t *s = src + (size_t) y * pitch + x0;
        for (int k = 0; k < nbytes; k++)
          atomicAdd (&h[s[k]], 1u);
      }
    }
  }
  __syncthreads ();

  /* Merge the warps' histograms into the frame's. */
  uint32_t sum = 0;
#pragma unroll
  for (int w = 0; w < kHistWarps; w++)
    sum += s_hist[w][tid];
  if (sum)
    atomicAdd (&st->hist[tid], sum);

  /* The last block to finish runs the search. */
  __threadfence ();
  __syncthreads ();
  if (tid == 0)
    s_last = atomicAdd (&st->blocks_done, 1u) == gridDim.x * gridDim.y - 1;
  __syncthreads ();
  if (!s_last)
    return;
  __threadfence ();
  const uint32_t bin = __ldcg (&st->hist[tid]);
  /* Clean for the next frame (stream order makes it visible to it). */
  st->hist[tid] = 0;
  if (tid == 0)
    st->blocks_done = 0;
  otsu_search (bin, (uint64_t) width * (uint64_t) height, st, force_exact);
}

template <bool VEC>
__global__ void
otsu_binarize_kernel (const uint8_t *src, size_t spitch, uint8_t *dst, size_t dpitch, int width, int height,
    const uint32_t *thresh, uint32_t flip)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (x0 >= width)
    return;
  const uint32_t t = *thresh;
  const uint32_t t4 = t * 0x01010101u;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const uint8_t *s = src + (size_t) y * spitch + x0;
    uint8_t *d = dst + (size_t) y * dpitch + x0;
    if (VEC && x0 + 16 <= width) {
      uint4 v = *reinterpret_cast<const uint4 *> (s);
      v.x = __vcmpgtu4 (v.x, t4) ^ flip;
      v.y = __vcmpgtu4 (v.y, t4) ^ flip;
      v.z = __vcmpgtu4 (v.z, t4) ^ flip;
      v.w = __vcmpgtu4 (v.w, t4) ^ flip;
      *reinterpret_cast<uint4 *> (d) = v;
    } else {
      const int n = min (16, width - x0);
      for (int k = 0; k < n; k++)
        d[k] = (uint8_t) ((s[k] > t ? 0xffu : 0u) ^ flip);
    }
  }
}

bool
aligned (const void *p, size_t pitch, size_t a)
{
  return ((uintptr_t) p % a) == 0 && (pitch % a) == 0;
}


}  // namespace

const KernelTraits &
otsu_histogram_traits ()
{
  /* Fixed 32x8: the last block runs the search with one thread per bin.
   * Each thread reads 16 bytes on about 8 rows, so the grid (and the
   * number of per-block merges) stays small; nothing is stored a pixel. */
  static const KernelTraits t = kernel_traits ("otsu.histogram", { 32, 8 }, true).fixed ().items (16, 8).bytes (1, 0);
  return t;
}

const KernelTraits &
otsu_binarize_traits ()
{
  /* 16 pixels of a row a thread, a GRAY8 pixel in and one out */
  static const KernelTraits t = kernel_traits ("otsu.binarize", { 32, 8 }, true).items (16).bytes (1, 1);
  return t;
}

CudaStatus
otsu_state_init (OtsuDeviceState * state, cudaStream_t stream)
{
  CV_CUDA_TRY (cudaMemsetAsync (state, 0, sizeof (OtsuDeviceState), stream));
  return {};
}

CudaStatus
otsu_threshold (ConstImage8 src, OtsuDeviceState * state, const LaunchPolicy & policy, cudaStream_t stream,
    bool force_exact)
{
  if (src.width <= 0 || src.height <= 0)
    return { cudaErrorInvalidValue, "otsu_threshold: empty image" };
  const bool vec = aligned (src.data, src.pitch, 16);
  auto kernel = vec ? otsu_hist_kernel<true> : otsu_hist_kernel<false>;
  const LaunchConfig c = policy.choose (otsu_histogram_traits (), cached_kernel_resources ((const void *) kernel), src.width,
      src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height, state,
      force_exact);
  CV_CUDA_TRY_LAUNCH ("otsu_hist_kernel");
  return {};
}

CudaStatus
otsu_binarize (ConstImage8 src, Image8 dst, const OtsuDeviceState * state, bool invert, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (src.width <= 0 || src.height <= 0)
    return {};
  const bool vec = aligned (src.data, src.pitch, 16) && aligned (dst.data, dst.pitch, 16);
  auto kernel = vec ? otsu_binarize_kernel<true> : otsu_binarize_kernel<false>;
  const LaunchConfig c = policy.choose (otsu_binarize_traits (), cached_kernel_resources ((const void *) kernel), src.width,
      src.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, dst.data, dst.pitch, src.width,
      src.height, &state->threshold, invert ? 0xffffffffu : 0u);
  CV_CUDA_TRY_LAUNCH ("otsu_binarize_kernel");
  return {};
}

CudaStatus
otsu_copy_result (const OtsuDeviceState * state, OtsuResult * host, cudaStream_t stream)
{
  static_assert (offsetof (OtsuDeviceState, used_exact) == offsetof (OtsuDeviceState, threshold) + 4,
      "threshold and used_exact are copied together");
  CV_CUDA_TRY (cudaMemcpyAsync (host, &state->threshold, sizeof (OtsuResult), cudaMemcpyDeviceToHost, stream));
  return {};
}

int
otsu_threshold_host (const uint32_t hist[256], bool force_exact, bool *used_exact)
{
  uint64_t n = 0, t = 0;
  for (int i = 0; i < 256; i++) {
    n += hist[i];
    t += (uint64_t) i * hist[i];
  }
  if (used_exact)
    *used_exact = false;
  if (n == 0)
    return 0;

  /* Fast path, as the device runs it. */
  bool any_risky = false;
  bool valid[256];
  uint64_t q = 0;
  int k0 = 256;
  for (int i = 0; i < 256; i++) {
    q += hist[i];
    bool risky;
    otsu_bin_class (q, n, &valid[i], &risky);
    any_risky |= risky;
    if (valid[i] && k0 == 256)
      k0 = i;
  }
  if (!force_exact && !any_risky) {
    if (k0 == 256)
      return 0;
    double sig[256];
    uint64_t s = 0, base = 0;
    double best_v = -1;
    int best_i = 0;
    q = 0;
    for (int i = 0; i < 256; i++) {
      q += hist[i];
      s += (uint64_t) i * hist[i];
      if (i == k0)
        base = s - (uint64_t) i * hist[i];
      sig[i] = valid[i] ? sigma_from_moments (s - base, q, n, t) : -1.;
      if (sig[i] > best_v) {
        best_v = sig[i];
        best_i = i;
      }
    }
    bool close = best_v <= kOtsuTieMargin;
    for (int i = 0; i < 256 && !close; i++)
      if (valid[i] && i != best_i && sig[i] >= best_v - kOtsuTieMargin)
        close = true;
    if (!close)
      return best_i;
  }

  /* OpenCV's loop, literally. */
  if (used_exact)
    *used_exact = true;
  const double scale = OTSU_DIV (1., (double) n);
  const double mu = OTSU_MUL ((double) t, scale);
  double mu1 = 0, q1 = 0, max_sigma = 0;
  int max_val = 0;
  for (int i = 0; i < 256; i++) {
    const double p_i = OTSU_MUL ((double) hist[i], scale);
    mu1 = OTSU_MUL (mu1, q1);
    q1 = OTSU_ADD (q1, p_i);
    const double q2 = OTSU_ADD (1., -q1);
    if (!otsu_valid (q1, q2))
      continue;
    mu1 = OTSU_DIV (OTSU_ADD (mu1, OTSU_MUL ((double) i, p_i)), q1);
    const double sigma = sigma_opencv (q1, mu1, mu);
    if (sigma > max_sigma) {
      max_sigma = sigma;
      max_val = i;
    }
  }
  return max_val;
}

}  // namespace cudavision
