/* cudavision — Canny edge detection of GRAY8 frames on the GPU (cudacanny).
 *
 * Fidelity: the result is cv::Canny (src, dst, low, high, aperture, L2)
 * (OpenCV 4.6, canny_math.h has the arithmetic), after cv::GaussianBlur
 * when a pre-blur is asked for (the blur arithmetic of blur.h). Everything
 * is integer, the hysteresis is exact connectivity: the output is meant to
 * be identical to OpenCV's, not merely close.
 *
 * Steps of one frame (canny), all on the device, asynchronous on the
 * caller's stream, no host round trip. Tiles are 30 x 32 pixels: a tile
 * row is one 32-bit word, computed by a warp (lane = column) with a column
 * of halo on each side (canny_hysteresis.cuh has the bit-mask fills):
 *  0. (automatic thresholds) the caller's Otsu pass (CannyPrepasses), or canny.histogram
 *     and canny.median, leave the value in device memory; step 1 derives
 *     the thresholds from it, on the device.
 *  1. canny.tile: Sobel, magnitudes, non-maximum suppression and the double
 *     threshold of a tile, as a candidate word and a strong word per row.
 *     Sobel 3x3 without a fused pre-blur (the common case): lane =
 *     column, sliding down the rows with everything in registers; a warp
 *     per tile on large frames, and on frames of few tiles (camera sizes)
 *     a block of four warps per tile, each a band of 8 rows, so that the
 *     chain of dependent steps that sets the kernel's time is a band's
 *     12 rows rather than the tile's 36 (and there the four warps share
 *     the open components' fills below). Apertures 5 and 7 and the fused pre-blur (blur.h's fixed
 *     point, reflect-101, then the replicated border the Sobel of
 *     cv::Canny uses): a block per tile, staged in shared memory. Then one
 *     warp does the tile's hysteresis on the words: E = the candidates
 *     8-connected to a strong pixel inside the tile (final: 255); of the
 *     rest (W), the components that reach a tile border with a tile beyond
 *     are "open": each gets a node of a global union-find (one fill per
 *     component) and the tile's W and the components' pixels are kept.
 *     The other W pixels are final: 0. Every tile
 *     writes a record of its border lines (W, E, components). The frame is
 *     read once and written once.
 *  2. canny.merge: the border lines of every tile (64 items a tile, a
 *     thread each: the right and bottom lines' pixels, the two lower
 *     corners; the threads of a tile with nothing open end at their first
 *     loads): a W pixel unites its component with the open
 *     components next to it across the border, or with node 0 (strong)
 *     where it touches E (lock-free union-find: atomicMin on the parents,
 *     Playne & Hawick, path halving by compare-and-swap).
 *  3. canny.weak: a warp per open tile finds the root of each of its
 *     components (a component joined a strong pixel when that is node 0)
 *     and writes 255 on those components' pixels, which canny.tile's
 *     fills labelled (bit-sliced label planes: no fill again).
 * Steps 2 and 3 are programmatic launches (FrameLaunches::
 * programmatic_kernel): each is launched while the step before it still
 * runs and waits for its end on the device, so that a small frame does not
 * pay two launch gaps.
 * A fixed number of launches whatever the edges look like: an edge that
 * snakes across the whole frame costs one union per tile border it
 * crosses, not one iteration per tile (which is what propagation schemes
 * pay). Steps 2 and 3 touch only the open tiles and their neighbours'
 * border records.
 *
 * Pre-blur variants (CannyVariant), selectable for benchmarks: Fused (the
 * blur inside step 1) and Separate (gaussian_blur into a scratch frame,
 * then step 1 without blur). Auto picks Separate, the faster (canny ()). Both
 * give the same pixels (the GPU tests compare them on every bundled image).
 *
 * No GStreamer here: plain pointers, pitches, sizes and a stream. */
#pragma once

#include "../../core/canny/canny_math.h"
#include "../../core/canny/canny_params.h"
#include "../../core/gaussian_taps.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../common/frame_graph.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>

namespace cudavision {

/* Device scratch of one detector (one element, one stream), grown as
 * frames need and kept between frames; create, use and release it with
 * the same CUDA context current. */
struct CannyScratch {
  DeviceBuffer labels;  /* int32 union-find parents: node 0, 64 per tile (sparse use) */
  DeviceBuffer lists;   /* tile records, open tiles' data */
  DeviceBuffer state;   /* the automatic value, the median's histogram */
  DeviceBuffer otsu;    /* the Otsu pass's state (CannyAuto::Otsu) */
  DeviceBuffer blurred; /* CannyVariant::Separate: the pre-blurred frame */
  bool state_ready = false;
  bool otsu_ready = false;
  long tiles = 0; /* the last frame's tiles (canny_read_counts) */
  /* Replay the frame's launches as one CUDA graph where the policy allows
   * (not block-sizing=auto, not a device-computed threshold;
   * common/frame_graph.h). The element turns it on: its host time per
   * frame is the point. Direct callers (the tuner, which times launches
   * under forced shapes) keep launching each kernel. */
  bool graphs = false;
  FrameLaunches launches;
  FrameGraph graph;

  void release ();
};

enum class CannyVariant { Auto, Fused, Separate };

/* The two passes Canny takes from other algorithms, given by the caller
 * so that this folder builds on no other algorithm's: the separate
 * pre-blur of CannyVariant::Separate (a bit-exact Gaussian of `taps`,
 * GRAY8, src to dst of the same size) and the Otsu threshold of
 * CannyAuto::Otsu (into a device word, `*value`; `state` and `ready` are
 * the pass's own scratch in CannyScratch, kept between frames). Both
 * asynchronous on `stream`. cuda/compose/canny_prepasses.h gives
 * cudablur's and cudaotsu's; a pass left null fails the frames that need
 * it. */
struct CannyPrepasses {
  CudaStatus (*blur) (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy,
      cudaStream_t stream) = nullptr;
  CudaStatus (*otsu) (ConstImage8 src, DeviceBuffer * state, bool * ready, const LaunchPolicy & policy,
      cudaStream_t stream, const uint32_t ** value) = nullptr;
};
const char *canny_variant_name (CannyVariant v);

/* Detects the edges of `src` into `dst` (GRAY8, same size, 0 or 255).
 * Device pointers; `dst` must not alias `src` (it holds intermediate
 * states until the last step). Asynchronous on `stream`. With an automatic
 * mode, `auto_value` >= 0 is the value to use (a GstCvOtsuMeta's
 * threshold, known on the host); -1 computes it on the device from `src`.
 * Every launch asks `policy`; the result does not depend on the shapes.
 * This is also the benchmark hook. */
CudaStatus canny (ConstImage8 src, Image8 dst, const CannyParams & p, CannyScratch * scratch,
    const CannyPrepasses & pre, const LaunchPolicy & policy, cudaStream_t stream, int auto_value = -1,
    CannyVariant variant = CannyVariant::Auto);

/* What the last detection left in `scratch`, for tests and logs: the open
 * components (weak, not joined to a strong pixel inside their tile, and
 * reaching a tile border: the global steps' work), their pixels (resolved
 * by steps 2-4), and the automatic value computed on the device (0 when
 * none was). Waits for `stream`. */
struct CannyCounts {
  uint32_t open_components = 0;
  uint32_t unresolved = 0;
  uint32_t auto_value = 0;
};
CudaStatus canny_read_counts (const CannyScratch & scratch, cudaStream_t stream, CannyCounts * out);

/* The kernels' traits. canny.tile is fixed 32x8 (its shared-memory tiles,
 * or eight warps of one tile each), canny.weak 32x4 (a warp per tile),
 * canny.median one warp (8 bins a lane); the others take any shape. */
const KernelTraits & canny_tile_traits ();
const KernelTraits & canny_merge_traits ();
const KernelTraits & canny_weak_traits ();
const KernelTraits & canny_histogram_traits ();
const KernelTraits & canny_median_traits ();

/* canny.tile's tiles, in pixels: a row of a tile is one 32-bit word. */
constexpr int kCannyTileW = 30;
constexpr int kCannyTileH = 32;

}  // namespace cudavision
