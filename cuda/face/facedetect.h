/* cudavision — Viola-Jones face detection with OpenCV Haar cascades on the
 * GPU (cudafacedetect).
 *
 * FaceDetector::detect runs cv::CascadeClassifier::detectMultiScale's
 * algorithm on a device GRAY8 image, per pyramid level:
 *   facedetect.rows     resize (INTER_LINEAR_EXACT, fused) + row prefix sums
 *                       of the pixels and their squares; one warp per row;
 *   facedetect.cols     column prefix sums: the integral and squared
 *                       integral images (uint32, wrapping like OpenCV's);
 *   facedetect.cascade  one thread per window: variance normalization and
 *                       the stages, leaving at the first stage that rejects;
 *                       accepted windows are appended to a list with one
 *                       atomic each (the compaction).
 * Every launch asks the launch policy with that level's size. The raw list
 * comes back to the host in one copy and one stream synchronization per
 * frame; the grouping (groupRectangles semantics, face_grouping.h) runs on
 * the host over those few hundred rectangles.
 *
 * Fidelity: the raw windows are OpenCV 4.x's, bit for bit (the arithmetic
 * lives in haar_eval.h and is tested against OpenCV on the CPU). */
#pragma once

#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "face_levels.h"
#include "face_types.h"
#include "haar_cascade.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

#include <functional>
#include <vector>

namespace cudavision {

/* The kernels' traits, for the tuner and the benchmarks. */
const KernelTraits & facedetect_rows_traits ();
const KernelTraits & facedetect_cols_traits ();
const KernelTraits & facedetect_cascade_traits ();
const KernelTraits & facedetect_draw_traits ();

/* One kernel launch, as the per-kernel hook sees it. */
struct FaceKernelLaunch {
  const char *kernel = "";  /* the traits' name, e.g. "facedetect.cascade" */
  int level = -1;           /* pyramid level, -1 for per-frame kernels */
  long width = 0, height = 0;  /* the work size given to the policy */
  LaunchConfig config;      /* what the policy chose (grid as launched) */
};

/* Called on the calling thread right before (end = false) and right after
 * (end = true) every kernel launch, with the stream it goes on: a benchmark
 * records CUDA events here to time each kernel of each level under each
 * block-sizing mode. */
using FaceKernelHook = std::function<void (const FaceKernelLaunch &, bool end, cudaStream_t)>;

class FaceDetector {
public:
  struct Result {
    std::vector<FaceRect> faces;   /* grouped and clipped, as detectMultiScale */
    std::vector<FaceRect> raw;     /* every accepted window, sorted */
    std::vector<FaceLevel> levels; /* the pyramid that was searched */
  };

  FaceDetector () = default;
  FaceDetector (const FaceDetector &) = delete;
  FaceDetector & operator= (const FaceDetector &) = delete;

  /* Copies a parsed cascade to the device (synchronizes `stream`; done
   * once, not per frame). */
  CudaStatus set_cascade (const HaarCascade & cascade, cudaStream_t stream);
  bool has_cascade () const { return nstages_ > 0; }

  /* Detects faces in a device GRAY8 image. Enqueues every kernel on
   * `stream` and synchronizes it once, to read the raw list back. */
  CudaStatus detect (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
      cudaStream_t stream, Result * result, const FaceKernelHook & hook = {});

  /* Draws the boxes (face_draw.h) on a device frame of 4-byte pixels
   * (RGBA, BGRA, RGBx, BGRx); asynchronous. */
  CudaStatus draw (Image8 frame, const std::vector<FaceRect> & boxes, const LaunchPolicy & policy,
      cudaStream_t stream, const FaceKernelHook & hook = {});

  /* Frees every device and pinned allocation (the context must be current). */
  void release ();

private:
  CudaStatus run_levels (ConstImage8 gray, const std::vector<FaceLevel> & levels, const LaunchPolicy & policy,
      cudaStream_t stream, const FaceKernelHook & hook, unsigned *count);
  CudaStatus ensure_capacity (unsigned rects, cudaStream_t stream);

  /* the cascade */
  DeviceBuffer nodes_, stages_, roots_, leaves_;
  int nstages_ = 0;
  bool stumps_ = true;
  int window_width_ = 0, window_height_ = 0;

  /* per-frame scratch, grown on demand */
  DeviceBuffer sum_, sq_;
  size_t integral_pitch_ = 0;  /* in elements */
  DeviceBuffer list_;          /* counter (16 bytes) then int4 rectangles */
  PinnedBuffer host_list_;
  unsigned capacity_ = 0;
  DeviceBuffer boxes_;
};

}  // namespace cudavision
