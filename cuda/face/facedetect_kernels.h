/* cudavision — launchers of the face detector's kernels (internal to
 * cuda/; FaceDetector in facedetect.cpp drives them). Each asks the launch
 * policy for its shape with the frame's size, calls the hook around the
 * launch and checks it. All of them are asynchronous and need no count
 * from the host: the window lists' kernels run a grid sized to fill the
 * GPU and read their list's length on the device.
 *
 *   face_integral.cu  facedetect.tiles, facedetect.carries, facedetect.integral
 *                     (a batch's integrals)
 *   face_cascade.cu   facedetect.cascade, facedetect.stages, facedetect.deep
 *   face_grouping.cu  the raw list sorted, facedetect.group, the merge
 *   face_draw.cu      facedetect.draw */
#pragma once

#include <algorithm>

#include "../common/cuda_check.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"
#include "face_batches.h"
#include "facedetect.h"
#include "haar_eval.h"

#include <cstdint>

namespace cudavision {
namespace facedetect {

/* Who is launching, passed to every launcher: the hook, the batch (-1 for
 * per-frame kernels) and the frame size every choice is keyed by. */
struct HookContext {
  const FaceKernelHook *hook = nullptr;
  int batch = -1;
  long frame_width = 0, frame_height = 0;
};

/* A batch's device view: its levels' descriptions (device array), the
 * two integral buffers they index, and the integrals' scratch: the level
 * images (a byte per integral element, at the same offsets) and the
 * carries between tiles (LevelCarries). */
struct BatchView {
  const FacePlan *plan = nullptr;
  const FaceBatch *batch = nullptr;
  const LevelDesc *levels = nullptr;  /* device: plan->descs[batch->first ...] */
  uint32_t *sum = nullptr, *sq = nullptr;
  uint8_t *image = nullptr;
  uint2 *carries = nullptr;
};

/* A window waiting for more stages: its index among the batch's windows
 * (BatchMap of window counts) and its normalization factor's bits. */
using WindowEntry = uint2;

/* A list of windows on the device; `count` may pass `capacity` (entries
 * past it are dropped and the host grows the list). */
struct WindowList {
  WindowEntry *items = nullptr;
  uint32_t *count = nullptr;
  unsigned capacity = 0;
};

/* The accepted windows (face_batches.h's keys). */
struct RectList {
  FaceKey *items = nullptr;
  uint32_t *count = nullptr;
  unsigned capacity = 0;
};

/* The integral images of every level of the batch: row 0 and column 0
 * zero, then the prefix sums (pixel and square) of `src` resized to the
 * level (INTER_LINEAR_EXACT, fused). In 32x32 tiles: the level images and
 * each tile's row and column sums, the carries between tiles, then the
 * integrals (face_integral.cu). */
CudaStatus launch_integrals (ConstImage8 src, const BatchView & b, const LaunchPolicy & policy, cudaStream_t stream,
    const HookContext & hc);

/* facedetect.cascade: one thread per window of every level of the batch,
 * the variance normalization and stages [0, last); the windows that pass
 * go to `out`. */
CudaStatus launch_front (const haar::CascadeView & cascade, bool stumps, const BatchView & b, int last,
    const WindowList & out, const LaunchPolicy & policy, cudaStream_t stream, const HookContext & hc);

/* facedetect.stages: stages [first, last) of every listed window, `lanes`
 * lanes per window (as launch_deep); the windows that pass go to `out`.
 * `spread`: a list no longer than the grid's threads is spread over all
 * its blocks (warp w of every block first) rather than the first. */
CudaStatus launch_stages (const haar::CascadeView & cascade, bool stumps, int lanes, const BatchView & b,
    const WindowList & in, int first, int last, const WindowList & out, bool spread, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

/* facedetect.deep: stages [first, nstages) of the listed windows, `lanes`
 * lanes per window (1, 2, 4, 8, 16 or 32; more than 1 only for cascades
 * whose stage sums are exact in any order, haar::stage_sums_exact); those
 * that pass and that OpenCV's scan evaluates (haar::evaluated_by_opencv)
 * are appended to `faces` in frame pixels. With 32 lanes, a window still
 * in at stage `patch_from` is read from a copy of its integral corners in
 * shared memory from then on (kNoPatch: never; windows up to 31 pixels
 * wide, blocks whose patches fit 48 KiB). `queue`: a counter at 0 (nullptr:
 * the grid stride) from which the warps take their windows after their
 * first, so that none idles while others hold several long windows. */
constexpr int kNoPatch = kFaceNoPatch;
CudaStatus launch_deep (const haar::CascadeView & cascade, bool stumps, int lanes, const BatchView & b,
    const WindowList & in, int first, int patch_from, const RectList & faces, uint32_t *queue,
    const LaunchPolicy & policy, cudaStream_t stream, const HookContext & hc);

/* The device grouping's scratch: CUB's sort storage, each window's
 * rectangle, the similar pairs (their count may pass the capacity: the
 * host grows the list) and, for lists too long for one block, the
 * union-find's parents. */
struct GroupScratch {
  void *sort = nullptr;
  size_t sort_bytes = 0;
  int4 *rects = nullptr;
  uint2 *edges = nullptr;
  uint32_t *edge_count = nullptr;
  unsigned edge_capacity = 0;
  int *parent = nullptr;
};

/* Sorts the `capacity` keys (unused ones all ones) into `sorted` with
 * CUB's radix sort, on bits [kFaceKeySortBit, end_bit) (FaceKeyLayout); with `group`, then writes each of the `count` windows'
 * class root (its first similar window, cv::partition's numbering) into
 * its key's low bits (face_grouping.cu). */
CudaStatus sort_faces_scratch_bytes (unsigned capacity, size_t *bytes);
/* A frame's arguments to bring from their page-locked block (graph_io.h)
 * to the device: whole 4-byte words, both ends aligned; none where
 * `bytes` is 0. */
struct FrameArgsCopy {
  void *device = nullptr;
  const void *host = nullptr;
  size_t bytes = 0;
};
/* Before a frame's search: `words` counters zero, `capacity` keys all
 * ones, and `args` copied (before any kernel after this one reads
 * them). */
CudaStatus launch_reset_results (uint32_t *header, unsigned words, FaceKey *keys, unsigned capacity,
    const FrameArgsCopy & args, cudaStream_t stream);
/* The device grouping's faces: each one's rectangle and the number of raw
 * windows it groups (its class's members, OpenCV's numDetections), one
 * entry per face in both. */
struct MergedFaces {
  int4 *rects = nullptr;
  int *neighbors = nullptr;
};
/* After the sort: the `words` counters and the first min (count, capacity)
 * sorted keys to the host (mapped pinned memory, device pointers); with
 * `merged.rects` (the device grouping's faces, min (header[2],
 * merged_capacity) of them) those and their neighbour counts too, into
 * `host_merged`; last,
 * host_header[done_word] set to 1 (done_seen, graph_io.h). header
 * [done_word] counts the kernel's blocks: zero from the reset, unused
 * otherwise. */
CudaStatus launch_publish_results (uint32_t *header, unsigned words, const FaceKey *sorted, unsigned capacity,
    uint32_t *host_header, FaceKey *host_keys, const MergedFaces & merged, unsigned merged_capacity,
    const MergedFaces & host_merged, unsigned done_word, cudaStream_t stream);
CudaStatus launch_sort_and_group (const FaceKey *keys, FaceKey *sorted, const uint32_t *count, unsigned capacity,
    int end_bit, bool group, const LevelDesc *levels, const GroupScratch & scratch, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

/* merge_classes' scratch on the device, `capacity` entries each. */
struct MergeScratch {
  int4 *sums = nullptr;      /* each class's summed rectangle, at its root */
  int *members = nullptr;    /* each class's member count, at its root */
  int4 *kept = nullptr;      /* the kept classes' means, in class order */
  int4 *kept_info = nullptr; /* their counts and containment margins */
};
/* After launch_sort_and_group with `group`: face_grouping.cpp's
 * merge_classes over the `count` sorted keys' classes, the grouped faces
 * (unclipped) and their neighbour counts into `out` and their number into
 * *out_count (face_grouping.cu). */
CudaStatus launch_merge_classes (const FaceKey *sorted, const uint32_t *count, unsigned capacity, int min_neighbors,
    const GroupScratch & scratch, const MergeScratch & merge, uint32_t *out_count, const MergedFaces & out,
    cudaStream_t stream);

/* Up to this many boxes travel in the draw launch's parameters. */
constexpr int kInlineBoxes = 32;
struct InlineBoxes {
  int4 box[kInlineBoxes];
  __host__ __device__ const int4 & operator[] (int i) const { return box[i]; }
};

/* Draws the borders of `n` boxes (x, y, w, h) on a canvas: `boxes` a
 * device array (const int4 *) or InlineBoxes (n <= kInlineBoxes);
 * `max_border` is the largest border pixel count of any box. */
template <typename Boxes>
CudaStatus launch_draw (const Canvas & canvas, const Boxes & boxes, int n, int max_border, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc);

/* Draws the grouped faces where they are on the device: min (*count,
 * capacity) boxes at `faces`, on a single-plane canvas of `format` whose
 * frame pointer and pitch the kernel reads from `args` (copy, copy_pitch).
 * For a graph replayed with every frame's pointers: the number of boxes
 * and their sizes are only known on the device, so the grid is bounded
 * and strides over both. */
CudaStatus launch_draw_merged (const uint32_t *count, const int4 *faces, unsigned capacity, const LumaCopyArgs *args,
    const Canvas & format, const LaunchPolicy & policy, cudaStream_t stream);

/* Calls the hook (if any) around a launch. */
void hook_call (const HookContext & hc, const KernelTraits & t, long w, long h, const LaunchConfig & c, bool end,
    cudaStream_t stream);

/* Blocks of `threads` threads that fill the device for `kernel` (its
 * occupancy at that block size and dynamic shared memory times the SM
 * count), at least 1. */
unsigned filling_grid (const void *kernel, unsigned threads, const DeviceDescription & dev, size_t shared_bytes = 0);
/* The list kernels' block: the policy's thread count rounded up to whole
 * warps, so that a group of lanes never straddles two. */
inline unsigned
list_block_threads (unsigned threads)
{
  return std::max (32u, (threads + 31) / 32 * 32);
}
/* The blocks a round of facedetect.stages launches in blocks of `threads`. */
unsigned round_grid (const void *kernel, unsigned threads, const DeviceDescription & dev);

}  // namespace facedetect
}  // namespace cudavision
