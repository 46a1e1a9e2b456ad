/* cudavision — launchers of the face detector's kernels (internal to
 * cuda/; FaceDetector in facedetect.cpp drives them). Each asks the launch
 * policy for its shape, calls the hook around the launch and checks it. */
#pragma once

#include "../common/cuda_check.h"
#include "face_levels.h"
#include "facedetect.h"
#include "haar_eval.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

namespace cudavision {
namespace facedetect {

/* Who is launching: the hook and the level, passed to every launcher. */
struct HookContext {
  const FaceKernelHook *hook = nullptr;
  int level = -1;
};

/* Integral rows 0..h: row 0 zero, row r the prefix sums (pixel and square)
 * along level row r-1 of `src` resized to w x h; column 0 zero. */
CudaStatus launch_rows (ConstImage8 src, int w, int h, uint32_t *sum, uint32_t *sq, size_t pitch,
    const LaunchPolicy & policy, cudaStream_t stream, const HookContext & hc);

/* Turns the row prefix sums of rows 1..h, columns 0..w into the integral. */
CudaStatus launch_cols (uint32_t *sum, uint32_t *sq, size_t pitch, int w, int h, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

/* Evaluates every window of a level and appends the accepted ones, in
 * frame pixels, to `list` (count at list[0].x, rectangles from list[1]). */
CudaStatus launch_cascade (const haar::CascadeView & cascade, bool stumps, const uint32_t *sum, const uint32_t *sq,
    size_t pitch, const FaceLevel & level, int4 *list, unsigned capacity, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

/* Draws the borders of `n` device boxes (x, y, w, h) on a 4-byte frame;
 * `max_border` is the largest border pixel count of any box. */
CudaStatus launch_draw (Image8 frame, const int4 *boxes, int n, int max_border, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

}  // namespace facedetect
}  // namespace cudavision
