/* cudavision — Canny kernels, their launchers and the detection (canny.h
 * describes the steps, canny_math.h the arithmetic). */
#include "canny.h"
#include "canny_global.cuh"
#include "canny_tile.cuh"
#include "../common/launch_util.cuh"
#include "../common/warp_ops.cuh"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

namespace cudavision {
namespace {

using namespace canny_detail;

/* ------------------------------------------------------------ median */

/* The frame's histogram into st->hist: a shared histogram per block, one
 * global atomic per non-empty bin and block. Any block shape; each thread
 * counts 16 bytes of a row on every gridDim.y * blockDim.y-th row. */
__global__ void
canny_hist_kernel (const uint8_t *__restrict__ src, size_t pitch, int w, int h, DeviceState *st)
{
  __shared__ uint32_t s_hist[256];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < 256; i += nthreads)
    s_hist[i] = 0;
  __syncthreads ();
  const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (xb < w) {
    const int n = min (16, w - xb);
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
      const uint8_t *row = src + (size_t) y * pitch + xb;
      for (int k = 0; k < n; k++)
        atomicAdd (&s_hist[row[k]], 1u);
    }
  }
  __syncthreads ();
  for (int i = tid; i < 256; i += nthreads)
    if (s_hist[i])
      atomicAdd (&st->hist[i], s_hist[i]);
}

/* One warp: the lower median of st->hist into st->auto_value, and the
 * histogram zeroed for the next frame. Lane l owns bins 8l .. 8l + 7. */
__global__ void
canny_median_kernel (DeviceState *st)
{
  const int lane = threadIdx.x;
  uint32_t bins[8], own = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    bins[k] = st->hist[8 * lane + k];
    st->hist[8 * lane + k] = 0;
    own += bins[k];
  }
  const uint32_t incl = warp_inclusive_scan (own, lane); /* pixels in bins 0 .. 8 lane + 7 */
  const uint32_t total = __shfl_sync (kFull, incl, 31);
  const uint32_t rank = canny_median_rank (total);
  uint32_t below = incl - own; /* pixels in the bins before this lane's */
#pragma unroll
  for (int k = 0; k < 8; k++) {
    if (below <= rank && rank < below + bins[k])
      st->auto_value = (uint32_t) (8 * lane + k);
    below += bins[k];
  }
}

/* canny.tile's grid: one tile per block (generic), asked of the policy in
 * its terms (32 x 8 threads, 4 rows a thread: a 32 x 32 item span per
 * block). The Sobel 3x3 kernel (warp_blocks) asks the same for eight
 * tiles a block, and is launched with a warp a block, as many blocks
 * wide as there are tiles. */
template <typename Kernel>
CudaStatus
launch_tile (Kernel kernel, bool warp_blocks, const TileArgs & a, const LaunchPolicy & policy, FrameLaunches & stream)
{
  const int tiles_per_block = warp_blocks ? kWarps : 1;
  const long span_x = (long) ((a.hy.tiles_x + tiles_per_block - 1) / tiles_per_block) * kSpan;
  const long span_y = (long) a.hy.tiles_y * kSpan;
  const LaunchConfig c = policy.choose (canny_tile_traits (), cached_resources (kernel), span_x, span_y);
  if (warp_blocks)
    return stream.kernel (kernel, dim3 ((unsigned) a.hy.tiles_x, grid_dim (c).y), dim3 (32, 1), 0, a);
  return stream.kernel (kernel, grid_dim (c), block_dim (c), 0, a);
}

/* Whether the frame's tiles are few enough for the band kernel: over up
 * to three of its waves (eight tiles an SM), the kernel lasts a few
 * tiles' chains of dependent steps, which the bands shorten; with more
 * tiles it is bound by its instructions, which the bands' halo rows add
 * to. Faster at 720p and 1080p, slower at 4K: docs/PERFORMANCE.md "Why
 * the kernels are built as they are". */
constexpr int kBandTilesPerSm = 24;
bool
band_tiles (const TileArgs & a, const LaunchPolicy & policy)
{
  const long tiles = (long) a.hy.tiles_x * a.hy.tiles_y;
  return tiles <= (long) policy.device ().sm_count * kBandTilesPerSm;
}

/* The band kernel: a block of kBandWarps warps a tile; asked of the policy
 * as the warp kernel is (launch_tile), launched as the grid of tiles. */
template <typename Kernel>
CudaStatus
launch_band (Kernel kernel, const TileArgs & a, const LaunchPolicy & policy, FrameLaunches & stream)
{
  const long span_x = (long) ((a.hy.tiles_x + kWarps - 1) / kWarps) * kSpan;
  const long span_y = (long) a.hy.tiles_y * kSpan;
  const LaunchConfig c = policy.choose (canny_tile_traits (), cached_resources (kernel), span_x, span_y);
  return stream.kernel (kernel, dim3 ((unsigned) a.hy.tiles_x, grid_dim (c).y), dim3 (32, kBandWarps), 0, a);
}

CudaStatus
launch_tile_for (const CannyParams & p, bool fused_blur, const TileArgs & a, const LaunchPolicy & policy,
    FrameLaunches & stream)
{
  if (fused_blur) {
    switch (p.aperture) {
      case 3:
        return launch_tile (canny_blur_tile_kernel<3>, false, a, policy, stream);
      case 5:
        return launch_tile (canny_blur_tile_kernel<5>, false, a, policy, stream);
      default:
        return launch_tile (canny_blur_tile_kernel<7>, false, a, policy, stream);
    }
  }
  switch (p.aperture) {
    case 3:
      if (band_tiles (a, policy))
        return p.l2_gradient ? launch_band (canny_tile3_band_kernel<true>, a, policy, stream)
                             : launch_band (canny_tile3_band_kernel<false>, a, policy, stream);
      return p.l2_gradient ? launch_tile (canny_tile3_kernel<true>, true, a, policy, stream)
                           : launch_tile (canny_tile3_kernel<false>, true, a, policy, stream);
    case 5:
      return launch_tile (canny_tile_kernel<5>, false, a, policy, stream);
    default:
      return launch_tile (canny_tile_kernel<7>, false, a, policy, stream);
  }
}

/* Where the OpenTiles start in CannyScratch::lists, after the records
 * (16-byte aligned). */
size_t
open_tiles_offset (long tiles)
{
  return ((size_t) tiles * sizeof (TileRecord) + 15) & ~(size_t) 15;
}

CudaStatus
ensure_state (CannyScratch * s, cudaStream_t stream)
{
  if (!s->state.get ()) {
    CV_CUDA_TRY (s->state.allocate (sizeof (DeviceState)).err);
    s->state_ready = false;
  }
  if (!s->state_ready) {
    CV_CUDA_TRY (cudaMemsetAsync (s->state.get (), 0, sizeof (DeviceState), stream));
    s->state_ready = true;
  }
  return {};
}

/* The device word an automatic mode's value lands in. */
CudaStatus
auto_value_on_device (ConstImage8 src, CannyAuto mode, CannyScratch * s, const CannyPrepasses & pre,
    const LaunchPolicy & policy, cudaStream_t stream, const uint32_t ** out)
{
  DeviceState *st = s->state.as<DeviceState> ();
  if (mode == CannyAuto::Otsu) {
    if (!pre.otsu)
      return { cudaErrorInvalidValue, "canny: no Otsu pass given (CannyPrepasses)" };
    return pre.otsu (src, &s->otsu, &s->otsu_ready, policy, stream, out);
  }
  /* each launch right after its choice: block-sizing=auto times a launch
   * from its choice to the next one */
  s->state_ready = false; /* until the median kernel cleans the histogram */
  auto hist = canny_hist_kernel;
  const LaunchConfig c = policy.choose (canny_histogram_traits (), cached_resources (hist), src.width,
      src.height);
  hist<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height, st);
  CV_CUDA_TRY_LAUNCH ("canny_hist_kernel");
  auto median = canny_median_kernel;
  const LaunchConfig cm = policy.choose (canny_median_traits (), cached_resources (median), 32, 1);
  median<<<grid_dim (cm), block_dim (cm), 0, stream>>> (st);
  CV_CUDA_TRY_LAUNCH ("canny_median_kernel");
  s->state_ready = true;
  *out = &st->auto_value;
  return {};
}

}  // namespace

void
CannyScratch::release ()
{
  /* the graph's nodes point into the buffers below */
  graph.reset ();
  labels.reset ();
  lists.reset ();
  state.reset ();
  otsu.reset ();
  blurred.reset ();
  state_ready = otsu_ready = false;
  tiles = 0;
}

const char *
canny_variant_name (CannyVariant v)
{
  switch (v) {
    case CannyVariant::Auto: return "auto";
    case CannyVariant::Fused: return "fused";
    case CannyVariant::Separate: return "separate";
  }
  return "unknown";
}

const KernelTraits &
canny_tile_traits ()
{
  /* a 32 x 32 span for 32 x 8 threads: a tile per block, or per warp for
   * Sobel 3x3 (launched a warp a block) */
  static const KernelTraits t = kernel_traits ("canny.tile", { 32, 8 }, true).fixed ().items (1, kPixPerThread);
  return t;
}

const KernelTraits &
canny_merge_traits ()
{
  /* one item (a pixel of a border line, or a corner) a thread */
  static const KernelTraits t = kernel_traits ("canny.merge", { 256, 1 }, false);
  return t;
}

const KernelTraits &
canny_weak_traits ()
{
  /* a warp per tile, 4 a block */
  static const KernelTraits t = kernel_traits ("canny.weak", { 32, 4 }, true).fixed ();
  return t;
}

const KernelTraits &
canny_histogram_traits ()
{
  /* 16 bytes on about 8 rows a thread: few blocks to merge */
  static const KernelTraits t = kernel_traits ("canny.histogram", { 32, 8 }, true).items (16, 8);
  return t;
}

const KernelTraits &
canny_median_traits ()
{
  /* one warp, 8 bins a lane */
  static const KernelTraits t = kernel_traits ("canny.median", { 32, 1 }, false).fixed ();
  return t;
}

CudaStatus
canny (ConstImage8 src, Image8 dst, const CannyParams & p, CannyScratch * scratch, const CannyPrepasses & pre,
    const LaunchPolicy & policy, cudaStream_t stream, int auto_value, CannyVariant variant)
{
  if (!canny_params_valid (p))
    return { cudaErrorInvalidValue, "canny: aperture 3, 5 or 7; blur kernel odd 3..31 with sigma > 0, or none" };
  if (!scratch)
    return { cudaErrorInvalidValue, "canny: no scratch" };
  if (src.width != dst.width || src.height != dst.height)
    return { cudaErrorInvalidValue, "canny: src and dst differ in size" };
  const int w = src.width, h = src.height;
  if (w <= 0 || h <= 0)
    return {};
  if ((long long) w * h > INT_MAX)
    return { cudaErrorInvalidValue, "canny: frames up to 2^31 pixels" };

  const int tiles_x = (w + kTileW - 1) / kTileW, tiles_y = (h + kTileH - 1) / kTileH;
  const long tiles = (long) tiles_x * tiles_y;
  CV_CUDA_TRY (ensure_state (scratch, stream).err);
  CV_CUDA_TRY (scratch->labels.ensure ((size_t) tile_node (tiles, 0) * sizeof (int)).err);
  /* lists: the records, then the open tiles' data */
  const size_t off_rec = 0;
  const size_t off_ot = open_tiles_offset (tiles);
  CV_CUDA_TRY (scratch->lists.ensure (off_ot + (size_t) tiles * sizeof (OpenTile)).err);
  DeviceState *st = scratch->state.as<DeviceState> ();
  uint8_t *lists = scratch->lists.as<uint8_t> ();

  TileArgs a {};
  a.src = src.data;
  a.spitch = src.pitch;
  a.l2 = p.l2_gradient;
  HystArgs &hy = a.hy;
  hy.dst = dst.data;
  hy.dpitch = dst.pitch;
  hy.w = w;
  hy.h = h;
  hy.tiles_x = tiles_x;
  hy.tiles_y = tiles_y;
  hy.parent = scratch->labels.as<int> ();
  hy.records = reinterpret_cast<TileRecord *> (lists + off_rec);
  hy.open_tiles = reinterpret_cast<OpenTile *> (lists + off_ot);
  hy.state = st;

  static_assert (offsetof (DeviceState, auto_value) == 0, "the value leads DeviceState");
  static_assert (offsetof (OpenTile, pixels) == offsetof (OpenTile, components) + sizeof (uint32_t),
      "canny_read_counts copies the two together");
  scratch->tiles = tiles;
  /* the thresholds: given, from the host's automatic value, or on the device */
  const bool device_auto = p.auto_threshold != CannyAuto::Off && auto_value < 0;

  /* The frame's own launches (the tile, merge and weak kernels) go
   * through `fl`: one graph launch a frame where replays are on
   * (frame_graph.h), else each launched as it comes. A device-computed
   * threshold comes from launches of its own, so that path launches
   * directly, in its order. */
  FrameLaunches & fl = scratch->launches;
  const bool graph = scratch->graphs && !device_auto && frame_graphs_enabled () && policy.mode () != BlockSizing::Auto;
  if (graph)
    fl.reset_collect ();
  else
    fl.reset_launch_now (stream);

  if (p.auto_threshold == CannyAuto::Off)
    a.th = canny_thresholds (p.low_threshold, p.high_threshold, p.aperture, p.l2_gradient);
  else if (!device_auto)
    a.th = canny_auto_thresholds ((unsigned) auto_value, p.aperture, p.l2_gradient);
  else
    CV_CUDA_TRY (auto_value_on_device (src, p.auto_threshold, scratch, pre, policy, stream, &a.auto_value).err);

  /* the pre-blur: fused into the tile kernel, or a separate pass (launched
   * directly: it reads src and writes its own buffer, before the graph in
   * the stream's order) */
  const bool blur = p.blur_ksize > 1;
  /* Auto: Separate, so the tile kernel keeps to its register-only Sobel
   * 3x3 path.
   * 5x5 at 4K 108.7 us against 246.2 fused (H100): docs/PERFORMANCE.md "Why the kernels are built as they are" */
  if (variant == CannyVariant::Auto)
    variant = CannyVariant::Separate;
  BlurTaps taps;
  if (blur)
    taps = make_blur_taps (p.blur_ksize, p.blur_ksize, p.blur_sigma, p.blur_sigma);
  if (blur && variant == CannyVariant::Separate) {
    const size_t bpitch = aligned_pitch ((size_t) w);
    CV_CUDA_TRY (scratch->blurred.ensure (bpitch * h).err);
    Image8 b { scratch->blurred.as<uint8_t> (), bpitch, w, h };
    if (!pre.blur)
      return { cudaErrorInvalidValue, "canny: no pre-blur pass given (CannyPrepasses)" };
    CV_CUDA_TRY (pre.blur (src, b, taps, policy, stream).err);
    a.src = b.data;
    a.spitch = bpitch;
  }
  const bool fused_blur = blur && variant == CannyVariant::Fused;
  if (fused_blur) {
    a.blur_r = taps.radius_x ();
    for (int d = 0; d <= a.blur_r; d++) {
      a.taps_x[d] = taps.x[d];
      a.taps_y[d] = taps.y[d];
    }
  }
  CV_CUDA_TRY (launch_tile_for (p, fused_blur, a, policy, fl).err);

  /* one tile: no component reaches a border with a tile beyond, nothing
   * is left open */
  if (tiles > 1) {
    /* canny.merge: 64 items a tile, a thread each (those of the tiles
     * that are not open end at their first loads) */
    const long work = tiles * kMergeItems;
    auto merge = canny_merge_kernel;
    const LaunchConfig c = policy.choose (canny_merge_traits (), cached_resources (merge), work, 1);
    CV_CUDA_TRY (
        fl.programmatic_kernel (merge, grid_dim (c), block_dim (c), 0, hy.records, tiles_x, tiles_y, hy.parent).err);
    /* canny.weak (with the roots of the open components): a warp per
     * tile, 4 warps a block (32 x 4 items a block) */
    auto weak = canny_weak_kernel;
    const long blocks = std::min<long> ((tiles + 3) / 4, 4096);
    const LaunchConfig cw =
        policy.choose (canny_weak_traits (), cached_resources (weak), blocks * 32, 4);
    CV_CUDA_TRY (fl.programmatic_kernel (weak, grid_dim (cw), block_dim (cw), 0, hy.dst, hy.dpitch, tiles_x,
                       (int) tiles, hy.open_tiles, hy.parent)
                     .err);
  }
  if (graph)
    CV_CUDA_TRY (scratch->graph.run (fl, stream).err);
  return {};
}

CudaStatus
canny_read_counts (const CannyScratch & scratch, cudaStream_t stream, CannyCounts * out)
{
  *out = {};
  if (!scratch.state.get ())
    return {};
  uint32_t value = 0;
  CV_CUDA_TRY (cudaMemcpyAsync (&value, scratch.state.get (), sizeof (uint32_t), cudaMemcpyDeviceToHost, stream));
  /* the counts: each tile's components and their pixels (the kernels sum
   * nothing: one counter for all tiles would queue their atomics) */
  const long tiles = scratch.tiles;
  std::vector<uint32_t> per (tiles > 1 ? 2 * (size_t) tiles : 0);
  if (tiles > 1) {
    const OpenTile *ot = reinterpret_cast<const OpenTile *> (scratch.lists.as<uint8_t> () + open_tiles_offset (tiles));
    CV_CUDA_TRY (cudaMemcpy2DAsync (per.data (), 2 * sizeof (uint32_t), &ot->components, sizeof (OpenTile),
        2 * sizeof (uint32_t), (size_t) tiles, cudaMemcpyDeviceToHost, stream));
  }
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  for (long t = 0; t < tiles && tiles > 1; t++)
    if (per[2 * t] > 0) {
      out->open_components += per[2 * t];
      out->unresolved += per[2 * t + 1];
    }
  out->auto_value = value;
  return {};
}

}  // namespace cudavision
