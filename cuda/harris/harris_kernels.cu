/* cudavision — Harris / Shi-Tomasi kernels, their launchers and the
 * detection pipeline (harris.h describes the steps). */
#include "corner_marker.h"
#include "harris.h"
#include "../common/launch_util.cuh"

#include <cooperative_groups.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>

namespace cudavision {
namespace {

namespace cg = cooperative_groups;

/* Output tile of one response block: 32x32 pixels for 32x8 threads. */
constexpr int kTileW = 32;
constexpr int kTileH = 32;
constexpr unsigned kResponseThreadsX = 32, kResponseThreadsY = 8;

/* Pixel sources: GRAY8, or the luma of a 4-byte RGB layout. */
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
    const uint8_t *p = data + (size_t) y * pitch + 4 * (size_t) x;
    return rgb_to_gray_u8 (p[r], p[g], p[b]);
  }
};

struct ResponseArgs {
  int width, height;
  int block;   /* box size, 2..7 */
  float scale; /* derivative scale */
  CornerMethod method;
  float k;
  float *out;
  size_t out_pitch; /* bytes */
  uint32_t *max_ordered;
};

/* One block per 32x32 output tile (grid-stride over tile rows).
 *  s_src: the source over the tile, the box halo and the Sobel halo, read
 *         with REFLECT_101 indices (any frame size, 1x1 included);
 *  s_d:   Dx, Dy at every box-filter input position. In-image positions use
 *         s_src; positions outside the frame take the derivatives of their
 *         reflected in-image position (the box filter reflects the products,
 *         not the source), computed from global memory: only border tiles
 *         have them, a few columns or rows;
 *  s_h:   horizontal box sums of the three products;
 *  then the vertical sums, the response, and the block's maximum. */
template <int KSIZE, typename Source>
__global__ void __launch_bounds__ (kResponseThreadsX * kResponseThreadsY)
corner_response_kernel (Source src, ResponseArgs a)
{
  constexpr int R = KSIZE / 2;
  constexpr int kCovMaxW = kTileW + kCornerMaxBlock - 1;
  constexpr int kCovMaxH = kTileH + kCornerMaxBlock - 1;
  __shared__ uint8_t s_src[kCovMaxH + 2 * R][kCovMaxW + 2 * R];
  __shared__ float2 s_d[kCovMaxH][kCovMaxW];
  __shared__ float s_h[3][kCovMaxH][kTileW];
  __shared__ float s_warp_max[32];

  const int w = a.width, h = a.height, B = a.block;
  const int anchor = B / 2;
  const int cov_w = kTileW + B - 1, cov_h = kTileH + B - 1;
  const int src_w = cov_w + 2 * R, src_h = cov_h + 2 * R;
  const int nthreads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int x0 = blockIdx.x * kTileW;
  float local_max = -INFINITY;

  for (int y0 = blockIdx.y * kTileH; y0 < h; y0 += gridDim.y * kTileH) {
    const int sx0 = x0 - anchor - R, sy0 = y0 - anchor - R;
    for (int i = tid; i < src_w * src_h; i += nthreads) {
      const int r = i / src_w, c = i - r * src_w;
      s_src[r][c] = (uint8_t) src (reflect101 (sx0 + c, w), reflect101 (sy0 + r, h));
    }
    __syncthreads ();

    for (int i = tid; i < cov_w * cov_h; i += nthreads) {
      const int r = i / cov_w, c = i - r * cov_w;
      const int xc = x0 - anchor + c, yc = y0 - anchor + r;
      int dx, dy;
      if (xc >= 0 && xc < w && yc >= 0 && yc < h) {
        sobel_at<KSIZE> ([&] (int di, int dj) { return (int) s_src[r + R + dj][c + R + di]; }, &dx, &dy);
      } else {
        const int gx = reflect101 (xc, w), gy = reflect101 (yc, h);
        sobel_at<KSIZE> (
            [&] (int di, int dj) { return src (reflect101 (gx + di, w), reflect101 (gy + dj, h)); }, &dx, &dy);
      }
      s_d[r][c] = make_float2 ((float) dx * a.scale, (float) dy * a.scale);
    }
    __syncthreads ();

    for (int i = tid; i < kTileW * cov_h; i += nthreads) {
      const int r = i / kTileW, c = i - r * kTileW;
      float sxx = 0.f, sxy = 0.f, syy = 0.f;
      for (int t = 0; t < B; t++) {
        const float2 d = s_d[r][c + t];
        sxx = add_rn (sxx, mul_rn (d.x, d.x));
        sxy = add_rn (sxy, mul_rn (d.x, d.y));
        syy = add_rn (syy, mul_rn (d.y, d.y));
      }
      s_h[0][r][c] = sxx;
      s_h[1][r][c] = sxy;
      s_h[2][r][c] = syy;
    }
    __syncthreads ();

    for (int i = tid; i < kTileW * kTileH; i += nthreads) {
      const int r = i / kTileW, c = i - r * kTileW;
      const int x = x0 + c, y = y0 + r;
      if (x >= w || y >= h)
        continue;
      float sa = 0.f, sb = 0.f, sc = 0.f;
      for (int t = 0; t < B; t++) {
        sa = add_rn (sa, s_h[0][r + t][c]);
        sb = add_rn (sb, s_h[1][r + t][c]);
        sc = add_rn (sc, s_h[2][r + t][c]);
      }
      const float v = corner_response (sa, sb, sc, a.method, a.k);
      reinterpret_cast<float *> (reinterpret_cast<char *> (a.out) + (size_t) y * a.out_pitch)[x] = v;
      local_max = fmaxf (local_max, v);
    }
    __syncthreads (); /* the next tile overwrites the shared memory */
  }

  if (!a.max_ordered)
    return;
  /* The block's maximum: warp shuffles, then the warps' maxima by warp 0. */
  const int lane = tid & 31, warp = tid >> 5, nwarps = (nthreads + 31) >> 5;
  float m = local_max;
  for (int off = 16; off > 0; off >>= 1)
    m = fmaxf (m, __shfl_down_sync (0xffffffffu, m, off));
  if (lane == 0)
    s_warp_max[warp] = m;
  __syncthreads ();
  if (warp == 0) {
    m = lane < nwarps ? s_warp_max[lane] : -INFINITY;
    for (int off = 16; off > 0; off >>= 1)
      m = fmaxf (m, __shfl_down_sync (0xffffffffu, m, off));
    if (lane == 0)
      atomicMax (a.max_ordered, float_to_ordered (m));
  }
}

/* goodFeaturesToTrack's candidates over the interior pixels (OpenCV skips
 * the outer ring), appended as sort keys. */
__global__ void
corner_candidates_kernel (const float *__restrict__ resp, size_t pitch, int w, int h,
    const uint32_t *__restrict__ scalars, double quality, unsigned long long *__restrict__ keys,
    uint32_t *__restrict__ count)
{
  const float thresh = corner_threshold (ordered_to_float (scalars[0]), quality);
  const int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (x >= w - 1)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y + 1; y < h - 1; y += gridDim.y * blockDim.y) {
    auto at = [&] (int i, int j) {
      return reinterpret_cast<const float *> (reinterpret_cast<const char *> (resp) + (size_t) (y + j) * pitch)[x + i];
    };
    float v;
    if (!is_corner_candidate (at, thresh, &v))
      continue;
    /* one atomic per group of threads that found a candidate together */
    cg::coalesced_group g = cg::coalesced_threads ();
    uint32_t base = 0;
    if (g.thread_rank () == 0)
      base = atomicAdd (count, g.size ());
    base = g.shfl (base, 0);
    keys[base + g.thread_rank ()] = corner_key (v, (uint32_t) y * (uint32_t) w + (uint32_t) x);
  }
}

__global__ void
corner_normalize_kernel (const float *__restrict__ resp, size_t resp_pitch, const uint32_t *__restrict__ max_ordered,
    uint8_t *__restrict__ dst, size_t dst_pitch, int w, int h)
{
  const float maxv = ordered_to_float (*max_ordered);
  /* OpenCV's convertTo takes the scale as float */
  const float s = maxv > 0.f ? (float) (255.0 / (double) maxv) : 0.f;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
    const float r = reinterpret_cast<const float *> (reinterpret_cast<const char *> (resp) + (size_t) y * resp_pitch)[x];
    const int q = __float2int_rn (r * s); /* cvRound: half to even */
    dst[(size_t) y * dst_pitch + x] = (uint8_t) min (255, max (0, q));
  }
}

/* One thread per (corner, marker pixel). Overlapping marks write the same
 * colour, so the races are benign. */
__global__ void
corner_draw_kernel (const float2 *__restrict__ pts, int n, uint8_t *frame, size_t pitch, int w, int h, int channels,
    int ro, int go, int bo)
{
  const long total = (long) n * kCornerMarkerPixels;
  for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < total; i += (long) gridDim.x * blockDim.x) {
    const int c = (int) (i / kCornerMarkerPixels), k = (int) (i - (long) c * kCornerMarkerPixels);
    int dx, dy;
    corner_marker_offset (k, &dx, &dy);
    const int x = (int) pts[c].x + dx, y = (int) pts[c].y + dy;
    if (x < 0 || y < 0 || x >= w || y >= h)
      continue;
    paint_marker_pixel (frame + (size_t) y * pitch + (size_t) x * channels, channels, ro, go, bo);
  }
}

KernelTraits
make_traits (const char *name, BlockShape shape, bool two_d, unsigned ipt_y, bool fixed, unsigned load_bytes = 4,
    unsigned store_bytes = 4)
{
  KernelTraits t;
  t.name = name;
  t.static_block = shape;
  t.two_d = two_d;
  t.items_per_thread_y = ipt_y;
  t.fixed_block = fixed;
  t.load_bytes_per_item = load_bytes;
  t.store_bytes_per_item = store_bytes;
  return t;
}

template <int KSIZE, typename Source>
CudaStatus
launch_response (Source src, const ResponseArgs & args, const LaunchPolicy & policy, cudaStream_t stream)
{
  auto kernel = corner_response_kernel<KSIZE, Source>;
  const LaunchConfig c = policy.choose (corner_response_traits (), cached_resources (kernel), args.width, args.height);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src, args);
  CV_CUDA_TRY_LAUNCH ("corner_response_kernel");
  return {};
}

template <typename Source>
CudaStatus
launch_response_ksize (Source src, int ksize, const ResponseArgs & args, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  switch (ksize) {
    case 3: return launch_response<3> (src, args, policy, stream);
    case 5: return launch_response<5> (src, args, policy, stream);
    default: return launch_response<7> (src, args, policy, stream);
  }
}

}  // namespace

const KernelTraits &
corner_response_traits ()
{
  /* Fixed: the shared-memory tiles are sized for 32x8 threads owning a
   * 32x32 tile (4 rows per thread). */
  static const KernelTraits t = make_traits ("harris.response", { kResponseThreadsX, kResponseThreadsY }, true,
      kTileH / kResponseThreadsY, true);
  return t;
}

const KernelTraits &
corner_candidates_traits ()
{
  /* A float response in (its 3x3 neighbours are the next threads' items,
   * cache hits); a key out only for the rare candidate. */
  static const KernelTraits t = make_traits ("harris.candidates", { 32, 8 }, true, 1, false, 4, 0);
  return t;
}

const KernelTraits &
corner_normalize_traits ()
{
  /* A float response in, a byte out. */
  static const KernelTraits t = make_traits ("harris.normalize", { 32, 8 }, true, 1, false, 4, 1);
  return t;
}

const KernelTraits &
corner_draw_traits ()
{
  static const KernelTraits t = make_traits ("harris.draw", { 256, 1 }, false, 1, false);
  return t;
}

CudaStatus
corner_response (const CornerInput & in, ImageF dst, const CornerParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, uint32_t * max_ordered)
{
  if (in.image.width <= 0 || in.image.height <= 0)
    return {};
  if (!corner_params_valid (p))
    return { cudaErrorInvalidValue, "corner_response: block size 2..7, aperture 3, 5 or 7" };
  ResponseArgs args;
  args.width = in.image.width;
  args.height = in.image.height;
  args.block = p.block_size;
  args.scale = (float) corner_deriv_scale (p.aperture, p.block_size);
  args.method = p.method;
  args.k = (float) p.k;
  args.out = dst.data;
  args.out_pitch = dst.pitch;
  args.max_ordered = max_ordered;
  if (in.gray)
    return launch_response_ksize (GraySource { in.image.data, in.image.pitch }, p.aperture, args, policy, stream);
  const PackedRgbLayout l = packed_rgb_layout (in.layout);
  if (l.channels != 4)
    return { cudaErrorInvalidValue, "corner_response: 3-byte RGB is not supported" };
  return launch_response_ksize (Packed4Source { in.image.data, in.image.pitch, l.r, l.g, l.b }, p.aperture, args,
      policy, stream);
}

CudaStatus
corner_normalize (ImageView<const float> response, const uint32_t * max_ordered, Image8 dst,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  if (response.width <= 0 || response.height <= 0)
    return {};
  const LaunchConfig c = policy.choose (corner_normalize_traits (), cached_resources (corner_normalize_kernel),
      response.width, response.height);
  corner_normalize_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (response.data, response.pitch, max_ordered,
      dst.data, dst.pitch, response.width, response.height);
  CV_CUDA_TRY_LAUNCH ("corner_normalize_kernel");
  return {};
}

static CudaStatus
ensure_pinned (PinnedBuffer & b, size_t bytes)
{
  return bytes <= b.size () ? CudaStatus {} : b.allocate (bytes);
}

CudaStatus
CornerDetector::detect (const CornerInput & in, const CornerDetectParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, std::vector<Corner> * corners)
{
  corners->clear ();
  candidates_ = 0;
  const int w = in.image.width, h = in.image.height;
  response_view_ = {};
  if (w <= 0 || h <= 0)
    return {};

  const size_t pitch = aligned_pitch ((size_t) w * sizeof (float));
  CudaStatus s = response_.ensure (pitch * h);
  if (s.ok ())
    s = scalars_.ensure (2 * sizeof (uint32_t));
  if (s.ok ())
    s = ensure_pinned (host_scalars_, 2 * sizeof (uint32_t));
  if (!s.ok ())
    return s;
  response_view_ = { response_.as<float> (), pitch, w, h };
  uint32_t *scalars = scalars_.as<uint32_t> ();
  CV_CUDA_TRY (cudaMemsetAsync (scalars, 0, 2 * sizeof (uint32_t), stream));
  s = corner_response (in, response_view_, p.corner, policy, stream, scalars);
  if (!s.ok () || w < 3 || h < 3) /* goodFeaturesToTrack looks at interior pixels only */
    return s;

  /* Every interior pixel may be a candidate (plateaus): size for that. */
  const size_t capacity = (size_t) (w - 2) * (h - 2);
  using Key = unsigned long long;
  if (capacity > key_capacity_) {
    size_t temp = 0;
    CV_CUDA_TRY (cub::DeviceRadixSort::SortKeysDescending (nullptr, temp, (const Key *) nullptr, (Key *) nullptr,
        (int) capacity, 0, 64, stream));
    s = keys_.allocate (capacity * sizeof (Key));
    if (s.ok ())
      s = sorted_.allocate (capacity * sizeof (Key));
    if (s.ok ())
      s = sort_temp_.ensure (temp);
    if (!s.ok ())
      return s;
    key_capacity_ = capacity;
    sort_temp_bytes_ = sort_temp_.size ();
  }

  const LaunchConfig c = policy.choose (corner_candidates_traits (), cached_resources (corner_candidates_kernel),
      w - 2, h - 2);
  corner_candidates_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (response_view_.data, pitch, w, h, scalars,
      p.quality_level, keys_.as<Key> (), scalars + 1);
  CV_CUDA_TRY_LAUNCH ("corner_candidates_kernel");

  /* Wait 1: the sort needs the count on the host. */
  uint32_t *host = static_cast<uint32_t *> (host_scalars_.get ());
  CV_CUDA_TRY (cudaMemcpyAsync (host, scalars, 2 * sizeof (uint32_t), cudaMemcpyDeviceToHost, stream));
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  const size_t n = std::min<size_t> (host[1], capacity);
  candidates_ = n;
  if (n == 0)
    return {};

  size_t temp = sort_temp_bytes_;
  CV_CUDA_TRY (cub::DeviceRadixSort::SortKeysDescending (sort_temp_.get (), temp, keys_.as<Key> (),
      sorted_.as<Key> (), (int) n, 0, 64, stream));
  s = ensure_pinned (host_keys_, n * sizeof (Key));
  if (!s.ok ())
    return s;
  /* Wait 2: the sorted list, for the greedy min-distance pass. */
  CV_CUDA_TRY (cudaMemcpyAsync (host_keys_.get (), sorted_.get (), n * sizeof (Key), cudaMemcpyDeviceToHost, stream));
  CV_CUDA_TRY (cudaStreamSynchronize (stream));

  const Key *keys = static_cast<const Key *> (host_keys_.get ());
  std::vector<Corner> sorted (n);
  for (size_t i = 0; i < n; i++) {
    const uint32_t idx = corner_key_index (keys[i]);
    sorted[i] = { (float) (idx % (uint32_t) w), (float) (idx / (uint32_t) w), corner_key_value (keys[i]) };
  }
  *corners = select_corners (sorted.data (), n, w, h, p.min_distance, p.max_corners);
  return {};
}

CudaStatus
CornerDetector::normalized_response (Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const
{
  if (!response_view_.data)
    return {};
  return corner_normalize ({ response_view_.data, response_view_.pitch, response_view_.width, response_view_.height },
      scalars_.as<const uint32_t> (), dst, policy, stream);
}

CudaStatus
CornerDetector::draw (Image8 frame, bool gray, PackedRgb layout, const std::vector<Corner> & corners,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  if (corners.empty () || frame.width <= 0 || frame.height <= 0)
    return {};
  const size_t bytes = corners.size () * sizeof (float2);
  CudaStatus s = ensure_pinned (host_draw_, bytes);
  if (s.ok ())
    s = draw_list_.ensure (bytes);
  if (!s.ok ())
    return s;
  float2 *pts = static_cast<float2 *> (host_draw_.get ());
  for (size_t i = 0; i < corners.size (); i++)
    pts[i] = make_float2 (corners[i].x, corners[i].y);
  CV_CUDA_TRY (cudaMemcpyAsync (draw_list_.get (), pts, bytes, cudaMemcpyHostToDevice, stream));

  const PackedRgbLayout l = gray ? PackedRgbLayout { 1, 0, 0, 0 } : packed_rgb_layout (layout);
  const long total = (long) corners.size () * kCornerMarkerPixels;
  const LaunchConfig c = policy.choose (corner_draw_traits (), cached_resources (corner_draw_kernel), total, 1);
  corner_draw_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (draw_list_.as<const float2> (),
      (int) corners.size (), frame.data, frame.pitch, frame.width, frame.height, l.channels, l.r, l.g, l.b);
  CV_CUDA_TRY_LAUNCH ("corner_draw_kernel");
  return {};
}

void
CornerDetector::release ()
{
  response_.reset ();
  scalars_.reset ();
  keys_.reset ();
  sorted_.reset ();
  sort_temp_.reset ();
  draw_list_.reset ();
  host_scalars_.reset ();
  host_keys_.reset ();
  host_draw_.reset ();
  key_capacity_ = 0;
  sort_temp_bytes_ = 0;
  response_view_ = {};
  candidates_ = 0;
}

}  // namespace cudavision
