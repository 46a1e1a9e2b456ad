/* cudavision — Viola-Jones face detection with OpenCV Haar cascades on the
 * GPU (cudafacedetect).
 *
 * FaceDetector::detect runs cv::CascadeClassifier::detectMultiScale's
 * algorithm on a device GRAY8 image. The pyramid's levels are searched in
 * batches (face_batches.h: every level at once unless the frame is huge),
 * each batch with six launches whatever its number of levels:
 *   facedetect.tiles    resize (INTER_LINEAR_EXACT, fused) of every level
 *                       in 128x32 tiles, each tile's row and column sums of
 *                       the pixels and their squares;
 *   facedetect.carries  the sums between tiles (scans over a level's tiles);
 *   facedetect.integral the integral and squared integral images, tile by
 *                       tile (uint32, wrapping like OpenCV's);
 *   facedetect.cascade  one thread per window of every level: variance
 *                       normalization and the first stages; survivors are
 *                       compacted into a list;
 *   facedetect.stages   one thread per survivor, the next stages, compacted
 *                       again;
 *   facedetect.deep     the remaining stages of the few windows left (a
 *                       warp per window), accepted windows appended to the
 *                       result list in frame pixels;
 * then, once per frame, the raw list sorted (CUB) and facedetect.group,
 * which finds the grouping's classes (face_grouping.cu).
 * An element's frame goes in whole (enqueue_frame): its luma and its copy
 * to the output in one kernel first (luma_and_copy, facedetect.input) and
 * the grouped faces' boxes drawn on the copy last, inside the same graph,
 * the frame's pointers read on the device from a small block the host
 * writes (so one graph serves every frame: one launch a frame).
 * Every launch asks the launch policy with the frame's size. Nothing waits
 * on the host until the frame's end: the result list (with the lists'
 * counters) comes back in one copy per frame, waited for in collect ()
 * (which the element may call a frame later). The grouping
 * (groupRectangles semantics, face_grouping.h) averages and filters the
 * classes on the device too (merge_kernel, face_grouping.cu).
 *
 * Fidelity: the raw windows are OpenCV 4.x's, bit for bit (the arithmetic
 * lives in haar_eval.h and is tested against OpenCV on the CPU; only the
 * order of the work differs from OpenCV's, and the warp-parallel stage sums
 * are used only where haar::stage_sums_exact proves them identical). */
#pragma once

#include "../../core/draw/canvas.h"
#include "../common/captured_graphs.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "face_batches.h"
#include "face_levels.h"
#include "../../core/face/face_types.h"
#include "../../core/face/haar_cascade.h"
#include "../../core/image.h"
#include "../common/luma.h"
#include "../../core/policy/launch_policy.h"

#include <functional>
#include <vector>

namespace cudavision {

/* The kernels' traits, for the tuner and the benchmarks. */
const KernelTraits & facedetect_tiles_traits ();
const KernelTraits & facedetect_carries_traits ();
const KernelTraits & facedetect_integral_traits ();
const KernelTraits & facedetect_cascade_traits ();
const KernelTraits & facedetect_stages_traits ();
const KernelTraits & facedetect_deep_traits ();
const KernelTraits & facedetect_group_traits ();
const KernelTraits & facedetect_draw_traits ();

/* The windows one pass of a facedetect.stages round takes in blocks of
 * `threads` (the default cascade and schedule) on `dev`: a list longer
 * than that takes a second pass, which costs nearly a window's whole
 * stages however few windows it holds (docs/BLOCK-SIZING.md, 640x480). The
 * tuner prefers, among shapes it cannot tell apart, the one that holds
 * the most. Needs the device (an occupancy query). */
unsigned facedetect_round_pass_threads (unsigned threads, const DeviceDescription & dev);
const KernelTraits & facedetect_input_traits ();

/* One kernel launch, as the per-kernel hook sees it. */
struct FaceKernelLaunch {
  const char *kernel = "";  /* the traits' name, e.g. "facedetect.cascade" */
  int batch = -1;           /* batch of levels (face_batches.h), -1 for per-frame kernels */
  long width = 0, height = 0;  /* the work size given to the policy: the frame's */
  LaunchConfig config;      /* what the policy chose (grid as launched) */
};

/* Called on the calling thread right before (end = false) and right after
 * (end = true) every kernel launch, with the stream it goes on: a benchmark
 * records CUDA events here to time each kernel of each level under each
 * block-sizing mode. */
using FaceKernelHook = std::function<void (const FaceKernelLaunch &, bool end, cudaStream_t)>;

/* Schedule::patch_from's value for "never". */
constexpr int kFaceNoPatch = 1 << 20;

class FaceDetector {
public:
  struct Result {
    std::vector<FaceRect> faces;   /* grouped and clipped, as detectMultiScale */
    /* per face, the raw windows it groups: detectMultiScale's numDetections
     * (1 each with min_neighbors 0, where nothing is grouped) */
    std::vector<int> neighbors;
    std::vector<FaceRect> raw;     /* every accepted window, sorted (set_raw_windows) */
    size_t raw_count = 0;          /* how many there were */
    std::vector<FaceLevel> levels; /* the pyramid that was searched */
    int batches = 0;               /* launch batches it took */
    bool drawn = false;            /* enqueue_frame's boxes are on its copy already */
  };

  /* A frame as an element has it (enqueue_frame). */
  struct FrameInput {
    ConstImage8 frame;             /* plane 0: the luma (GRAY8, NV12's or I420's Y), or packed RGB of `layout` */
    bool gray = true;
    PackedRgb layout = PackedRgb::RGBA;
    Image8 copy {};                /* where plane 0 is copied (the output's plane 0), data null: nowhere */
    /* With `draw`, the faces boxed on the copy in the frame's graph where
     * the canvas is single-plane (GRAY8 or packed RGB; its plane pointer
     * is the copy's, its format and colour this one's); else collect ()
     * leaves Result::drawn false and the caller draws (draw ()). */
    bool draw = false;
    Canvas canvas {};
  };

  /* Which stages each cascade kernel evaluates: facedetect.cascade stages
   * [0, ends[0]), then one facedetect.stages launch (a round) for each
   * further end, stages [ends[i - 1], ends[i]), each compacting its
   * survivors, with `round_lanes` lanes per window, and facedetect.deep
   * the rest, `lanes` lanes per window (1, 2, 4, 8, 16 or 32; more than
   * one only where the cascade allows it, haar::stage_sums_exact, else 1).
   * Ends past the cascade are dropped. Every schedule gives the same
   * windows. The default, stages 0-3 in the first kernel (which compacts
   * its block's survivors after each) and no round, was the fastest or
   * within 1% of it at every input and size (docs/PERFORMANCE.md "Why the
   * kernels are built as they are"); the elements launch no round. */
  struct Schedule {
    std::vector<int> ends { 4 };
    int lanes = 32;
    int round_lanes = 1;
    /* facedetect.deep with 32 lanes: the stage from which a window is
     * read from a copy of its integral corners in shared memory
     * (facedetect_kernels.h); 0: from the kernel's first stage,
     * kFaceNoPatch: never. Copying at the deep kernel's first stage was
     * the fastest on every input and size, from stage 8 on slower than no
     * copy (docs/PERFORMANCE.md "Why the kernels are built as they are"). */
    int patch_from = 0;
    /* facedetect.deep: the warps take their windows from a queue (a
     * counter) after their first, instead of by the grid's stride
     * (face_cascade.cu's list_kernel): faster or equal on every input and
     * size; in the rounds it changed nothing, so they keep the stride
     * (docs/PERFORMANCE.md "Why the kernels are built as they are"). */
    bool queue = true;
    /* facedetect.stages: a list shorter than the grid spread over all its
     * blocks (face_cascade.cu's list_kernel): faster or equal at every size
     * and block (docs/PERFORMANCE.md "Why the kernels are built as they are"). */
    bool round_spread = true;
  };

  FaceDetector () = default;
  FaceDetector (const FaceDetector &) = delete;
  FaceDetector & operator= (const FaceDetector &) = delete;

  /* Copies a parsed cascade to the device (synchronizes `stream`; done
   * once, not per frame). */
  CudaStatus set_cascade (const HaarCascade & cascade, cudaStream_t stream);
  bool has_cascade () const { return nstages_ > 0; }
  /* Whether the loaded cascade's stage sums may be split over a warp. */
  bool stage_sums_exact () const { return sums_exact_; }

  void set_schedule (const Schedule & s) { schedule_ = s; }
  /* Whether the grouping's classes are found on the device (default) or
   * on the host (partition_rectangles): the same classes either way. */
  void set_device_grouping (bool on) { device_grouping_ = on; }
  /* Whether Result::raw is filled (default). The grouped faces do not
   * need it where the device groups: an element that only reports faces
   * turns it off and spares the host decoding every window. */
  void set_raw_windows (bool on) { raw_windows_ = on; }
  const Schedule & schedule () const { return schedule_; }
  /* The memory cap of one batch's integral images (face_batches.h). */
  void set_batch_cap (size_t bytes) { batch_cap_ = bytes; plan_.levels.clear (); }

  /* Detects faces in a device GRAY8 image: enqueue, then collect. */
  CudaStatus detect (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
      cudaStream_t stream, Result * result, const FaceKernelHook & hook = {});

  /* Queues every kernel of the frame and the read-back of its list on
   * `stream`, and returns at once. `gray` must stay unchanged until
   * collect () returns (a frame that overflows a list is searched again
   * there). */
  CudaStatus enqueue (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
      cudaStream_t stream, const FaceKernelHook & hook = {});
  /* An element's frame: its luma (into the detector's own buffer, which
   * stays the frame's until collect () returns), the frame copied to
   * in.copy, the search, and with in.draw the faces boxed on the copy,
   * all in one graph launch where the rows allow the luma kernel's word
   * access (16-byte aligned for 4-byte pixels, 4 for GRAY8; else apart).
   * The boxes are drawn there when the device groups the faces
   * (min_neighbors > 0): collect () says so in Result::drawn, else the
   * caller draws them (draw ()). `in.frame` and `in.copy` must stay
   * until collect () returns (a list that overflows is searched again,
   * the copy and boxes made again with it). */
  CudaStatus enqueue_frame (const FrameInput & in, const FaceDetectParams & params, const LaunchPolicy & policy,
      cudaStream_t stream);
  /* Waits for the last enqueue's list (its done word, written with the
   * results into mapped memory) and groups it. */
  CudaStatus collect (Result * result);

  /* Draws the boxes (face_draw.h) on a device frame's canvas;
   * asynchronous. */
  CudaStatus draw (const Canvas & canvas, const std::vector<FaceRect> & boxes, const LaunchPolicy & policy,
      cudaStream_t stream, const FaceKernelHook & hook = {});

  /* Frees every device and pinned allocation (the context must be current). */
  void release ();

  /* The nodes of the last frame graph captured (tests). */
  const CapturedGraphs::Shape & graph_shape () const { return graphs_.last_shape (); }

private:
  /* enqueue_frame's frame as its graph reads it: the arguments the host
   * writes before each launch (args_), copied to the device by the
   * graph's first kernel (the reset, facedetect_kernels.h). */
  struct FrameIo {
    bool gray = true;
    PackedRgb layout = PackedRgb::RGBA;
    bool copy = false;
    bool draw = false;
    Canvas canvas {};  /* with draw: the copy's format and the colour */
  };
  CudaStatus enqueue_impl (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
      cudaStream_t stream, const FaceKernelHook & hook, const FrameIo * io);
  /* The frame's luma and copy from dargs_ (the reset copied args_
   * there); after the search the boxes: the graph's last launch. */
  CudaStatus frame_input (const FrameIo & io, Image8 luma, const LaunchPolicy & policy, cudaStream_t stream);
  CudaStatus prepare (ConstImage8 gray, const std::vector<FaceLevel> & levels, cudaStream_t stream);
  CudaStatus run_frame (ConstImage8 gray, const LaunchPolicy & policy, cudaStream_t stream,
      const FaceKernelHook & hook, const FrameIo * io);
  /* run_frame, replayed from a graph where it can be. */
  CudaStatus search (ConstImage8 gray, const LaunchPolicy & policy, cudaStream_t stream, const FaceKernelHook & hook,
      bool replay, const FrameIo * io);
  bool groups_on_device () const;
  /* Waits for run_frame's results: its counters and keys are then in the
   * mapped host buffer (wait_done on its done word, graph_io.h). */
  CudaStatus read_back ();
  CudaStatus ensure_lists ();
  /* Grows every list a frame overflowed; true when one did. */
  bool grow_overflowed ();

  /* the cascade */
  DeviceBuffer nodes_, stages_, roots_, leaves_;
  DeviceBuffer patch_nodes_; /* the deep kernel's (patch_pitch_ > 0): CompiledCascade::patch_words */
  /* where their leaf values and rectangles 2 start in it */
  size_t patch_leaves_word_ = 0, patch_rect2_word_ = 0;
  int nstages_ = 0;
  bool stumps_ = true;
  bool sums_exact_ = false;
  int window_width_ = 0, window_height_ = 0, patch_pitch_ = 0;
  Schedule schedule_;
  size_t batch_cap_ = facedetect::kBatchIntegralBytes;

  /* the pyramid of the last frame size (rebuilt when it changes) */
  facedetect::FacePlan plan_;
  int plan_width_ = 0, plan_height_ = 0;
  FaceDetectParams plan_params_;
  DeviceBuffer levels_;        /* plan_.descs on the device */

  /* per-frame scratch, grown on demand */
  DeviceBuffer sum_, sq_;      /* the current batch's integrals */
  DeviceBuffer image_, carries_; /* their scratch: level images, carries between tiles */
  /* The window lists, WindowEntry each: the first kernel writes list 0,
   * each round reads one and writes the other. */
  DeviceBuffer lists_[2];
  unsigned list_capacity_[2] = { 0, 0 };
  /* The schedule of the current frame, clamped to the cascade. */
  std::vector<int> ends_;
  /* The accepted windows (FaceKey), as the deep kernel appends them. */
  DeviceBuffer keys_;
  /* counters then the sorted keys: faces count, similar pairs count, the
   * merged faces' count, a spare word (in the host's copy: the frame's
   * done word, kDoneWord), then per batch one count per list written
   * (ends_.size ()); the keys start at a 16-byte boundary. The host's copy
   * (mapped) then holds the merged faces (int4) from merged_offset (), and
   * their neighbour counts (int) from neighbors_offset (). */
  static constexpr size_t kDoneWord = 3;
  DeviceBuffer state_;
  PinnedBuffer host_state_;
  void *host_state_device_ = nullptr; /* host_state_'s device address */
  size_t state_header_words_ = 0;
  size_t merged_offset () const
  {
    return (state_header_words_ * sizeof (uint32_t) + (size_t) face_capacity_ * sizeof (facedetect::FaceKey) + 15) /
        16 * 16;
  }
  size_t neighbors_offset () const { return merged_offset () + (size_t) face_capacity_ * sizeof (int4); }
  unsigned face_capacity_ = 0;
  /* the device grouping's scratch */
  bool device_grouping_ = true;
  bool grouping_ = false;        /* this frame groups (min_neighbors > 0) */
  bool roots_on_device_ = false; /* this frame's keys carry class roots and its faces are merged */
  bool raw_windows_ = true;
  DeviceBuffer parent_, sort_scratch_, rects_, edges_;
  DeviceBuffer merge_;          /* facedetect::MergeScratch, face_capacity_ entries */
  int min_neighbors_ = 0;       /* this frame's, for the device merge */
  size_t sort_scratch_bytes_ = 0;
  unsigned edge_capacity_ = 0;  /* similar pairs; grown like the lists */
  DeviceBuffer boxes_;
  /* enqueue_frame's luma, and the frame's pointers (LumaCopyArgs) as the
   * host writes them and as the graph copies them to the device */
  DeviceBuffer luma_;
  PinnedBuffer args_;
  DeviceBuffer dargs_;
  bool drawn_ = false;          /* the last search drew its faces */

  /* the enqueued frame, until collect () */
  struct Pending {
    bool active = false;
    ConstImage8 gray {};
    FaceDetectParams params;
    const LaunchPolicy *policy = nullptr;
    cudaStream_t stream = nullptr;
    FaceKernelHook hook;
    std::vector<FaceLevel> levels;
    bool has_io = false;
    FrameIo io;
  } pending_;
  cudaStream_t read_stream_ = nullptr;  /* the stream of the search in flight */
  /* a search was queued and read_back () has not seen its results (nor,
   * so, its graph's first kernel read args_: the reset) */
  bool in_flight_ = false;
  CapturedGraphs graphs_;
};

}  // namespace cudavision
