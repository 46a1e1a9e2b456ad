/* cudavision — Canny edge detection of GRAY8 frames on the GPU (cudacanny).
 *
 * Fidelity: the result is cv::Canny (src, dst, low, high, aperture, L2)
 * (OpenCV 4.6, canny_math.h has the arithmetic), after cv::GaussianBlur
 * when a pre-blur is asked for (the blur arithmetic of blur.h). Everything
 * is integer, the hysteresis is exact connectivity: the output is meant to
 * be identical to OpenCV's, not merely close.
 *
 * Steps of one frame (canny), all on the device, asynchronous on the
 * caller's stream, no host round trip:
 *  0. (automatic thresholds) otsu_threshold (otsu.h), or canny.histogram
 *     and canny.median, leave the value in device memory; step 1 derives
 *     the thresholds from it, on the device.
 *  1. canny.tile: one block per 32x32 tile (fixed 32x8 threads: the
 *     shared-memory tiles and the labelling are built for it). It loads
 *     the source tile with its halo, blurs it in shared memory (the fused
 *     pre-blur: blur.h's fixed point, reflect-101 borders, then the
 *     replicated border the Sobel of cv::Canny uses), takes the Sobel
 *     derivatives (separable, exact integers), magnitudes, non-maximum
 *     suppression and the double threshold, then labels the tile's
 *     candidates (8-connected) with a union-find in shared memory. A local
 *     component that holds a strong pixel is final: 255 (whatever it joins
 *     elsewhere, it is an edge). One without, that does not reach the tile
 *     border, is final too: 0. The rest, components that reach the border,
 *     get a global union-find parent for their pixels (the pixel index of
 *     their local root); their local roots go to a list (flagged when
 *     strong), and the pixels of the weak ones to another, which are
 *     marked 1 in dst for now.
 *  2. canny.merge: one thread per tile-border pixel unites it with its
 *     8-neighbours across the border (lock-free union-find, atomicMin on
 *     the parents: Playne & Hawick's CUDA union-find, with path halving by
 *     compare-and-swap).
 *  3. canny.roots: each listed local root takes its final root as parent
 *     (full path compression), and marks it 255 if it is strong.
 *  4. canny.weak: each listed weak pixel takes 255 if its final root (its
 *     parent's parent now) is marked, else 0.
 * A fixed number of launches whatever the edges look like: an edge that
 * snakes across the whole frame costs one union per tile border it
 * crosses, not one iteration per tile (which is what propagation schemes
 * pay). Step 1 reads the frame once and writes it once; steps 2-4 touch
 * only tile borders and unresolved pixels.
 *
 * Pre-blur variants (CannyVariant), selectable for benchmarks: Fused (the
 * blur inside step 1) and Separate (gaussian_blur into a scratch frame,
 * then step 1 without blur). Auto picks Fused. Both give the same pixels.
 *
 * No GStreamer here: plain pointers, pitches, sizes and a stream. */
#pragma once

#include "canny_math.h"
#include "canny_params.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

#include <cstdint>

namespace cudavision {

/* Device scratch of one detector (one element, one stream), grown as
 * frames need and kept between frames; create, use and release it with
 * the same CUDA context current. */
struct CannyScratch {
  DeviceBuffer labels;  /* int32 union-find parent per pixel (sparse use) */
  DeviceBuffer lists;   /* open components' roots, unresolved weak pixels */
  DeviceBuffer state;   /* counters, the median's histogram */
  DeviceBuffer otsu;    /* OtsuDeviceState for CannyAuto::Otsu */
  DeviceBuffer blurred; /* CannyVariant::Separate: the pre-blurred frame */
  bool state_ready = false;
  bool otsu_ready = false;

  void release ();
};

enum class CannyVariant { Auto, Fused, Separate };
const char *canny_variant_name (CannyVariant v);

/* Detects the edges of `src` into `dst` (GRAY8, same size, 0 or 255).
 * Device pointers; `dst` must not alias `src` (it holds intermediate
 * states until the last step). Asynchronous on `stream`. With an automatic
 * mode, `auto_value` >= 0 is the value to use (a GstCudaOtsuMeta's
 * threshold, known on the host); -1 computes it on the device from `src`.
 * Every launch asks `policy`; the result does not depend on the shapes.
 * This is also the benchmark hook. */
CudaStatus canny (ConstImage8 src, Image8 dst, const CannyParams & p, CannyScratch * scratch,
    const LaunchPolicy & policy, cudaStream_t stream, int auto_value = -1,
    CannyVariant variant = CannyVariant::Auto);

/* What the last detection left in `scratch`, for tests and logs: the
 * components that reached a tile border (the global steps' work) and the
 * weak pixels among them resolved by step 4, and the automatic value
 * computed on the device (0 when none was). Waits for `stream`. */
struct CannyCounts {
  uint32_t open_components = 0;
  uint32_t unresolved = 0;
  uint32_t auto_value = 0;
};
CudaStatus canny_read_counts (const CannyScratch & scratch, cudaStream_t stream, CannyCounts * out);

/* The kernels' traits. canny.tile is fixed 32x8 (its shared-memory tiles
 * and labelling), canny.median one warp (8 bins a lane); the others take
 * any shape. */
enum class CannyKernel { Tile, Merge, Roots, Weak, Histogram, Median };
const KernelTraits & canny_traits (CannyKernel k);

/* Output tile side of canny.tile, in pixels. */
constexpr int kCannyTile = 32;

}  // namespace cudavision
