/* cudavision — FaceDetector: buffers, the batch loop, the one read-back per
 * frame (queued by enqueue, waited for by collect) and the host grouping
 * (see facedetect.h). */
#include "facedetect.h"

#include "../../core/draw/face_draw.h"
#include "face_grouping.h"
#include "facedetect_kernels.h"
#include "../common/graph_io.h"

#include <algorithm>
#include <cstring>

namespace cudavision {

namespace {

/* The raw-window list starts this large and grows when a frame overflows
 * it (the frame searched again). Its keys are sorted over the whole
 * capacity: up to CUB's single tile (64-bit keys on sm_90 and sm_100: 256
 * threads x 9 keys = 2304) DeviceRadixSort is one kernel, past it onesweep
 * passes with a memset each, and past kBlockGroupMax (8192) the grouping
 * takes three kernels more, each a node of the frame graph. Real frames
 * rarely hold more (the LFW mosaic at 1080p, 5511 raw windows, grows it
 * once).
 * 25-53 us less GPU time a frame than 16 384: docs/PERFORMANCE.md "Why the kernels are built as they are" */
constexpr unsigned kInitialFaceCapacity = 2048;
/* The similar pairs of the device grouping, likewise (the LFW mosaic at
 * 1080p has about 110 000 among its 5511 raw windows). */
constexpr unsigned kInitialEdgeCapacity = 1u << 18;
/* The window lists start at these fractions of the largest batch's windows
 * (grown, with another search of that frame, when a frame passes them:
 * uniform noise sends about half of the windows past the first stage). */
constexpr unsigned kListDivisor[2] = { 2, 4 };
constexpr unsigned kMinListCapacity = 4096;

template <typename T>
CudaStatus
upload (DeviceBuffer & buf, const std::vector<T> & v, cudaStream_t stream)
{
  const size_t bytes = std::max<size_t> (v.size () * sizeof (T), 16);
  CudaStatus s = buf.ensure (bytes);
  if (!s.ok ())
    return s;
  /* From pageable memory: the call returns once the bytes are staged, so
   * `v` may change afterwards (CUDA's documented behaviour). */
  if (!v.empty ())
    CV_CUDA_TRY (cudaMemcpyAsync (buf.get (), v.data (), v.size () * sizeof (T), cudaMemcpyHostToDevice, stream));
  return {};
}

bool
same_params (const FaceDetectParams & a, const FaceDetectParams & b)
{
  return a.scale_factor == b.scale_factor && a.min_width == b.min_width && a.min_height == b.min_height &&
      a.max_width == b.max_width && a.max_height == b.max_height;
}

/* What a list must grow to for `needed` entries. */
unsigned
grown (unsigned needed)
{
  const unsigned long long g = (unsigned long long) needed + needed / 2 + 1;
  return (unsigned) std::min<unsigned long long> (g, 0xffffffffull / 2);
}

}  // namespace

CudaStatus
FaceDetector::set_cascade (const HaarCascade & cascade, cudaStream_t stream)
{
  nstages_ = 0;
  const haar::CompiledCascade c = haar::compile_cascade (cascade);
  CudaStatus s = upload (nodes_, c.node_words, stream);
  if (s.ok ())
    s = upload (stages_, c.stages, stream);
  if (s.ok ())
    s = upload (roots_, c.roots, stream);
  if (s.ok ())
    s = upload (leaves_, c.leaves, stream);
  if (s.ok ())
    s = upload (patch_nodes_, c.patch_words, stream);
  if (!s.ok ())
    return s;
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  stumps_ = c.stumps;
  sums_exact_ = c.sums_exact;
  window_width_ = c.window_width;
  window_height_ = c.window_height;
  patch_pitch_ = c.patch_pitch;
  patch_leaves_word_ = c.patch_leaves_word;
  patch_rect2_word_ = c.patch_rect2_word;
  nstages_ = (int) c.stages.size ();
  plan_.levels.clear ();  /* the window size may have changed */
  return {};
}

CudaStatus
FaceDetector::prepare (ConstImage8 gray, const std::vector<FaceLevel> & levels, cudaStream_t stream)
{
  if (plan_.levels.empty () || plan_width_ != gray.width || plan_height_ != gray.height) {
    plan_ = facedetect::plan_face_batches (levels, gray.width, gray.height, batch_cap_);
    plan_width_ = gray.width;
    plan_height_ = gray.height;
    CudaStatus s = upload (levels_, plan_.descs, stream);
    if (!s.ok ()) {
      plan_.levels.clear ();
      return s;
    }
  }
  const size_t bytes = plan_.max_integral_elements * sizeof (uint32_t);
  CudaStatus s = sum_.ensure (bytes);
  if (s.ok ())
    s = sq_.ensure (bytes);
  if (s.ok ())
    s = image_.ensure (plan_.max_integral_elements);
  if (s.ok ())
    s = carries_.ensure (std::max<size_t> (plan_.max_carry_elements, 1) * sizeof (uint2));
  if (!s.ok ())
    return s;
  const unsigned windows = (unsigned) std::min<long> (plan_.max_batch_windows, 0x7fffffff);
  for (int k = 0; k < 2; k++)
    list_capacity_[k] = std::max ({ list_capacity_[k], windows / kListDivisor[k], kMinListCapacity });
  face_capacity_ = std::max (face_capacity_, kInitialFaceCapacity);
  edge_capacity_ = std::max (edge_capacity_, kInitialEdgeCapacity);
  /* the schedule, clamped: increasing ends inside the cascade, at least
   * one stage in the first kernel */
  ends_.clear ();
  for (int e : schedule_.ends)
    if (e > (ends_.empty () ? 0 : ends_.back ()) && e <= nstages_)
      ends_.push_back (e);
  if (ends_.empty ())
    ends_.push_back (1);
  return ensure_lists ();
}

CudaStatus
FaceDetector::ensure_lists ()
{
  for (int k = 0; k < 2; k++) {
    CudaStatus s = lists_[k].ensure ((size_t) list_capacity_[k] * sizeof (facedetect::WindowEntry));
    if (!s.ok ())
      return s;
  }
  /* the counters: 4, a list count per kernel but the deep one (ends_) and
   * batch, the deep kernel's queue per batch */
  state_header_words_ = (4 + (ends_.size () + 1) * plan_.batches.size () + 3) / 4 * 4;
  const size_t bytes = neighbors_offset () + (size_t) face_capacity_ * sizeof (int);
  if (bytes > state_.size ()) {
    CudaStatus s = state_.allocate (bytes);
    if (s.ok ())
      s = host_state_.allocate (bytes);
    if (!s.ok ()) {
      face_capacity_ = 0;
      return s;
    }
    /* pinned memory is mapped (unified addressing): the device's address
     * of it, for the publishing kernel */
    const cudaError_t e = cudaHostGetDevicePointer (&host_state_device_, host_state_.get (), 0);
    if (e != cudaSuccess) {
      face_capacity_ = 0;
      host_state_.reset ();
      return { e, "face detection: mapped read-back buffer" };
    }
  }
  const size_t key_bytes = (size_t) face_capacity_ * sizeof (facedetect::FaceKey);
  if (key_bytes > keys_.size ()) {
    CudaStatus s = keys_.allocate (key_bytes);
    if (s.ok ())
      s = parent_.allocate ((size_t) face_capacity_ * sizeof (int));
    if (s.ok ())
      s = rects_.allocate ((size_t) face_capacity_ * sizeof (int4));
    if (s.ok ())
      s = merge_.allocate ((size_t) face_capacity_ * (4 * sizeof (int4) + 2 * sizeof (int)));
    if (s.ok ())
      s = facedetect::sort_faces_scratch_bytes (face_capacity_, &sort_scratch_bytes_);
    if (s.ok ())
      s = sort_scratch_.ensure (std::max<size_t> (sort_scratch_bytes_, 16));
    if (!s.ok ()) {
      face_capacity_ = 0;
      return s;
    }
  }
  CudaStatus s = edges_.ensure ((size_t) edge_capacity_ * sizeof (uint2));
  if (!s.ok ())
    return s;
  return {};
}

CudaStatus
FaceDetector::frame_input (const FrameIo & io, Image8 luma, const LaunchPolicy & policy, cudaStream_t stream)
{
  /* the arguments are on the device already: the reset brought them */
  return luma_and_copy ({}, dargs_.as<LumaCopyArgs> (), io.gray, io.layout, io.copy, luma, facedetect_input_traits (),
      policy, stream);
}

CudaStatus
FaceDetector::run_frame (ConstImage8 gray, const LaunchPolicy & policy, cudaStream_t stream,
    const FaceKernelHook & hook, const FrameIo * io)
{
  using namespace facedetect;
  uint32_t *header = state_.as<uint32_t> ();
  FaceKey *sorted = reinterpret_cast<FaceKey *> (header + state_header_words_);
  /* the counters zero, unused keys all ones (they sort last), and the
   * frame's arguments, where enqueue_frame wrote them, on the device for
   * the luma kernel and the boxes */
  const FrameArgsCopy args = io ? FrameArgsCopy { dargs_.get (), args_.get (), sizeof (LumaCopyArgs) } : FrameArgsCopy {};
  CudaStatus rs = launch_reset_results (header, (unsigned) state_header_words_, keys_.as<FaceKey> (), face_capacity_,
      args, stream);
  if (!rs.ok ())
    return rs;
  if (io) {
    /* the luma is the detector's own buffer (enqueue_frame) */
    const CudaStatus r = frame_input (*io, { const_cast<uint8_t *> (gray.data), gray.pitch, gray.width, gray.height },
        policy, stream);
    if (!r.ok ())
      return r;
  }
  const haar::CascadeView arrays { nodes_.as<haar::NodeWord> (), stages_.as<haar::Stage> (), roots_.as<int> (),
    leaves_.as<float> (), nstages_, window_width_, window_height_, patch_pitch_, nullptr, nullptr, nullptr };
  const haar::CascadeView view = haar::with_patch_arrays (arrays, patch_nodes_.as<haar::NodeWord> (),
      patch_leaves_word_, patch_rect2_word_);
  const RectList faces { keys_.as<FaceKey> (), header, face_capacity_ };
  /* lanes per window: a power of two up to a warp, one where the
   * cascade's stage sums could round differently in another order */
  auto lanes_for = [this] (int asked) {
    int lanes = 1;
    while (sums_exact_ && lanes < 32 && lanes * 2 <= asked)
      lanes *= 2;
    return lanes;
  };
  const int lanes = lanes_for (schedule_.lanes), round_lanes = lanes_for (schedule_.round_lanes);
  const size_t slots = ends_.size ();
  for (size_t bi = 0; bi < plan_.batches.size (); bi++) {
    const FaceBatch & batch = plan_.batches[bi];
    const BatchView b { &plan_, &batch, levels_.as<LevelDesc> () + batch.first, sum_.as<uint32_t> (),
      sq_.as<uint32_t> (), image_.as<uint8_t> (), carries_.as<uint2> () };
    const HookContext hc { &hook, (int) bi, gray.width, gray.height };
    /* list k of this batch: written by the first kernel (k = 0) or round k */
    auto list = [&] (size_t k) {
      return WindowList { lists_[k % 2].as<WindowEntry> (), header + 4 + slots * bi + k, list_capacity_[k % 2] };
    };
    CudaStatus s = launch_integrals (gray, b, policy, stream, hc);
    if (s.ok ())
      s = launch_front (view, stumps_, b, ends_[0], list (0), policy, stream, hc);
    for (size_t k = 1; s.ok () && k < slots; k++)
      s = launch_stages (view, stumps_, round_lanes, b, list (k - 1), ends_[k - 1], ends_[k], list (k),
          schedule_.round_spread, policy, stream, hc);
    uint32_t *queue = schedule_.queue ? header + 4 + slots * plan_.batches.size () + bi : nullptr;
    if (s.ok ())
      s = launch_deep (view, stumps_, lanes, b, list (slots - 1), ends_.back (), schedule_.patch_from, faces, queue,
          policy, stream, hc);
    if (!s.ok ())
      return s;
  }
  const bool group = groups_on_device ();
  const GroupScratch scratch { sort_scratch_.get (), sort_scratch_bytes_, rects_.as<int4> (), edges_.as<uint2> (),
    header + 1, edge_capacity_, parent_.as<int> () };
  CudaStatus s = launch_sort_and_group (faces.items, sorted, header, face_capacity_, plan_.key.end_bit, group,
      levels_.as<LevelDesc> (), scratch, policy, stream, { &hook, -1, gray.width, gray.height });
  if (!s.ok ())
    return s;
  uint32_t *host = static_cast<uint32_t *> (host_state_device_);
  /* the merged faces on the device, in merge_ after its scratch: their
   * rectangles, then after the class counts their neighbour counts */
  MergedFaces merged;
  if (group) {
    int4 *m = merge_.as<int4> ();
    const size_t cap = face_capacity_;
    int *members = reinterpret_cast<int *> (m + 4 * cap);
    merged = { m + 3 * cap, members + cap };
    const MergeScratch merge { m, members, m + cap, m + 2 * cap };
    s = launch_merge_classes (sorted, header, face_capacity_, min_neighbors_, scratch, merge, header + 2, merged,
        stream);
    if (!s.ok ())
      return s;
  }
  /* One read-back: the counters, the merged faces and the keys together,
   * written by a kernel into the mapped pinned buffer. The keys only where
   * the host decodes them: raw windows asked for, or the grouping done on
   * the host. */
  const unsigned keys = raw_windows_ || !group ? face_capacity_ : 0u;
  /* ... and last the word collect () reads instead of querying the
   * event: the results are the host's once it is set (the boxes may
   * still be drawn; the output's own event covers them) */
  uint8_t *host_bytes = reinterpret_cast<uint8_t *> (host);
  const MergedFaces host_merged { reinterpret_cast<int4 *> (host_bytes + merged_offset ()),
    reinterpret_cast<int *> (host_bytes + neighbors_offset ()) };
  s = launch_publish_results (header, (unsigned) state_header_words_, sorted, keys, host,
      reinterpret_cast<FaceKey *> (host + state_header_words_), merged, face_capacity_, host_merged,
      (unsigned) kDoneWord, stream);
  /* the boxes on the frame's copy, from the merged faces where they are */
  if (s.ok () && io && io->draw && group)
    s = launch_draw_merged (header + 2, merged.rects, face_capacity_, dargs_.as<LumaCopyArgs> (), io->canvas, policy,
        stream);
  return s;
}

bool
FaceDetector::groups_on_device () const
{
  return grouping_ && device_grouping_ && face_capacity_ <= facedetect::kMaxGroupedFaces;
}

/* run_frame, replayed as one graph where it can be; collect () waits on
 * the done word its publish kernel sets. */
CudaStatus
FaceDetector::search (ConstImage8 gray, const LaunchPolicy & policy, cudaStream_t stream, const FaceKernelHook & hook,
    bool replay, const FrameIo * io)
{
  /* The frame's 10-20 launches replayed as one graph where this luma, the
   * pyramid, the schedule and the list sizes were seen before
   * (captured_graphs.h): the host time per frame is what the element adds
   * to a pipeline. Not with a per-kernel hook (benchmarks time each launch)
   * nor where the policy's choices may change or each launch is timed
   * (block-sizing=auto, cudavision-tune). */
  CapturedGraphs::Key key;
  key.add (gray.data).add (gray.pitch).add (gray.width).add (gray.height);
  key.add (plan_params_.scale_factor).add (plan_params_.min_width).add (plan_params_.min_height);
  key.add (plan_params_.max_width).add (plan_params_.max_height).add (grouping_).add (device_grouping_);
  key.add (raw_windows_);
  key.add (min_neighbors_);
  for (int e : ends_)
    key.add (e);
  key.add (schedule_.lanes).add (schedule_.round_lanes).add (schedule_.patch_from).add (schedule_.queue);
  key.add (schedule_.round_spread);
  key.add (batch_cap_);
  key.add (list_capacity_[0]).add (list_capacity_[1]).add (face_capacity_).add (edge_capacity_);
  key.add (state_header_words_).add (host_state_.get ());
  /* enqueue_frame's: the luma and copy first, the boxes last */
  const FrameIo none;
  const FrameIo & f = io ? *io : none;
  key.add (io != nullptr).add (f.gray).add (f.layout).add (f.copy).add (f.draw);
  if (f.draw) {
    /* the boxes' format and colour are the draw kernel's parameters */
    key.add ((int) f.canvas.kind).add (f.canvas.bpp).add (f.canvas.width).add (f.canvas.height);
    for (int k = 0; k < 4; k++)
      key.add ((int) f.canvas.offset[k]).add ((int) f.canvas.value[k]);
  }
  const bool graphs = replay && !hook && policy.replays_allowed ();
  /* the done word is this frame's from here: an earlier search nobody
   * collected may still be going to set it */
  if (in_flight_) {
    const CudaStatus w = read_back ();
    if (!w.ok ())
      return w;
  }
  clear_done (static_cast<uint32_t *> (host_state_.get ()) + kDoneWord);
  /* no event node: collect () waits on the done word publish sets
   * (wait_done, graph_io.h) */
  CudaStatus s = graphs_.run (key, stream, graphs,
      [&] (cudaStream_t st) -> CudaStatus { return run_frame (gray, policy, st, hook, io); });
  if (!s.ok ())
    return s;
  read_stream_ = stream;
  in_flight_ = true;
  roots_on_device_ = groups_on_device ();
  drawn_ = io && io->draw && roots_on_device_;
  return {};
}

CudaStatus
FaceDetector::read_back ()
{
  /* With a frame held (latency-frames=1) the results are usually ready:
   * a word in pinned memory says so without a driver call. No search
   * queued (a frame too small to search): nothing to wait for. */
  if (!in_flight_)
    return {};
  const CudaStatus s = wait_done (static_cast<const uint32_t *> (host_state_.get ()) + kDoneWord, read_stream_);
  in_flight_ = false;
  return s;
}

bool
FaceDetector::grow_overflowed ()
{
  const uint32_t *h = static_cast<const uint32_t *> (host_state_.get ());
  bool grew = false;
  if (h[0] > face_capacity_) {
    face_capacity_ = grown (h[0]);
    grew = true;
  }
  if (h[1] > edge_capacity_) {
    edge_capacity_ = grown (h[1]);
    grew = true;
  }
  const size_t slots = ends_.size ();
  for (size_t b = 0; b < plan_.batches.size (); b++)
    for (size_t k = 0; k < slots; k++) {
      const uint32_t n = h[4 + slots * b + k];
      if (n > list_capacity_[k % 2]) {
        list_capacity_[k % 2] = grown (n);
        grew = true;
      }
    }
  return grew;
}

CudaStatus
FaceDetector::detect (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
    cudaStream_t stream, Result * result, const FaceKernelHook & hook)
{
  CudaStatus s = enqueue (gray, params, policy, stream, hook);
  if (!s.ok ())
    return s;
  return collect (result);
}

CudaStatus
FaceDetector::enqueue (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
    cudaStream_t stream, const FaceKernelHook & hook)
{
  return enqueue_impl (gray, params, policy, stream, hook, nullptr);
}

CudaStatus
FaceDetector::enqueue_frame (const FrameInput & in, const FaceDetectParams & params, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  const ConstImage8 & f = in.frame;
  const bool copy = in.copy.data != nullptr;
  const size_t pitch = aligned_pitch ((size_t) std::max (f.width, 1));
  CudaStatus s = luma_.ensure (std::max<size_t> (pitch * (size_t) std::max (f.height, 1), 16));
  if (!s.ok ())
    return s;
  const Image8 luma { luma_.as<uint8_t> (), pitch, f.width, f.height };
  const LumaCopyArgs args { f.data, f.pitch, copy ? in.copy.data : nullptr, copy ? in.copy.pitch : 0 };
  if (!luma_and_copy_vectorizable (args, in.gray, in.layout, copy)) {
    /* rows the luma kernel cannot take as words (a crop upstream, 3-byte
     * RGB): its launch apart (the copy and the luma in two), the boxes left
     * to the caller (drawn stays false) */
    s = luma_and_copy (args, nullptr, in.gray, in.layout, copy, luma, facedetect_input_traits (), policy, stream);
    if (!s.ok ())
      return s;
    return enqueue_impl ({ luma.data, luma.pitch, luma.width, luma.height }, params, policy, stream, {}, nullptr);
  }
  s = ensure_args_buffers (args_, dargs_, sizeof (LumaCopyArgs));
  if (!s.ok ())
    return s;
  /* a frame enqueued and never collected may not have read its
   * arguments yet */
  if (in_flight_) {
    s = read_back ();
    if (!s.ok ())
      return s;
  }
  *static_cast<LumaCopyArgs *> (args_.get ()) = args;
  FrameIo io;
  io.gray = in.gray;
  io.layout = in.layout;
  io.copy = copy;
  io.draw = in.draw && copy && in.canvas.single_plane ();
  io.canvas = in.canvas;
  io.canvas.width = f.width;
  io.canvas.height = f.height;
  return enqueue_impl ({ luma.data, luma.pitch, luma.width, luma.height }, params, policy, stream, {}, &io);
}

CudaStatus
FaceDetector::enqueue_impl (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
    cudaStream_t stream, const FaceKernelHook & hook, const FrameIo * io)
{
  Pending & f = pending_;
  drawn_ = false;
  f.active = false;
  f.levels.clear ();
  if (has_cascade ()) {
    if (!same_params (params, plan_params_)) {
      plan_.levels.clear ();
      plan_params_ = params;
    }
    /* the plan's levels while it holds (same size, parameters and window:
     * set_cascade drops it), so that a stream computes them once */
    const bool planned = !plan_.levels.empty () && plan_width_ == gray.width && plan_height_ == gray.height;
    f.levels = planned ? plan_.levels
                       : plan_face_levels (gray.width, gray.height, window_width_, window_height_, params);
  }
  if (f.levels.empty ()) {
    /* nothing to search (a frame smaller than the window): the copy alone */
    if (io && io->copy)
      return luma_and_copy (*static_cast<const LumaCopyArgs *> (args_.get ()), nullptr, io->gray, io->layout, true,
          { const_cast<uint8_t *> (gray.data), gray.pitch, gray.width, gray.height }, facedetect_input_traits (),
          policy, stream);
    return {};
  }
  /* what the device's keys can hold (face_batches.h) */
  if (gray.width > facedetect::kMaxFaceCoordinate || gray.height > facedetect::kMaxFaceCoordinate ||
      f.levels.size () > (size_t) facedetect::kMaxFaceLevels)
    return { cudaErrorInvalidValue, "face detection: frames up to 65535 pixels a side and 4096 pyramid levels" };
  grouping_ = params.min_neighbors > 0;
  min_neighbors_ = params.min_neighbors;

  CudaStatus s = prepare (gray, f.levels, stream);
  if (s.ok ())
    s = search (gray, policy, stream, hook, true, io);
  if (!s.ok ())
    return s;
  f = { true, gray, params, &policy, stream, hook, std::move (f.levels), io != nullptr, io ? *io : FrameIo {} };
  return {};
}

CudaStatus
FaceDetector::collect (Result * result)
{
  result->faces.clear ();
  result->neighbors.clear ();
  result->raw.clear ();
  result->raw_count = 0;
  result->batches = 0;
  result->drawn = false;
  Pending & f = pending_;
  result->levels = std::move (f.levels);
  f.levels.clear ();
  if (!f.active)
    return {};
  f.active = false;
  const ConstImage8 gray = f.gray;
  const FaceDetectParams & params = f.params;
  CudaStatus s = read_back ();
  /* A list overflowed (a pathological frame, or the first noisy one): grow
   * it and search again, so that no detection is lost. A list's count is
   * exact once the lists before it held everything, so each search
   * settles at least one more list (the window lists, the result list,
   * the similar pairs). */
  for (int retry = 0; s.ok () && grow_overflowed (); retry++) {
    if (retry > (int) ends_.size () + 1)
      return { cudaErrorUnknown, "face detection: the window lists kept overflowing" };
    s = ensure_lists ();
    if (s.ok ())
      s = search (gray, *f.policy, f.stream, f.hook, false, f.has_io ? &f.io : nullptr);
    if (s.ok ())
      s = read_back ();
  }
  if (!s.ok ())
    return s;
  result->batches = (int) plan_.batches.size ();
  result->drawn = drawn_;

  const uint8_t *host = static_cast<const uint8_t *> (host_state_.get ());
  const auto *keys = reinterpret_cast<const facedetect::FaceKey *> (host + state_header_words_ * sizeof (uint32_t));
  const unsigned n = std::min (reinterpret_cast<const uint32_t *> (host)[0], face_capacity_);
  result->raw_count = n;
  /* sorted on the device: the host's FaceRect order */
  const facedetect::FaceKeyLayout & kl = plan_.key;
  auto decode = [&] (std::vector<FaceRect> & out) {
    out.reserve (n);
    for (unsigned i = 0; i < n; i++) {
      const FaceLevel & l = plan_.levels[facedetect::key_level (keys[i], kl.x_shift)];
      out.push_back ({ facedetect::key_x (keys[i], kl.x_shift, kl.y_shift), facedetect::key_y (keys[i], kl.y_shift),
          l.win_width, l.win_height });
    }
  };
  if (raw_windows_)
    decode (result->raw);
  if (roots_on_device_) {
    /* grouped on the device (merge_kernel): the faces, in order */
    const uint32_t m = std::min (reinterpret_cast<const uint32_t *> (host)[2], face_capacity_);
    const int4 *merged = reinterpret_cast<const int4 *> (host + merged_offset ());
    const int *neighbors = reinterpret_cast<const int *> (host + neighbors_offset ());
    result->faces.reserve (m);
    for (uint32_t i = 0; i < m; i++)
      result->faces.push_back ({ merged[i].x, merged[i].y, merged[i].z, merged[i].w });
    result->neighbors.assign (neighbors, neighbors + m);
  } else {
    if (raw_windows_)
      result->faces = result->raw;
    else
      decode (result->faces);
    if (grouping_) {
      std::vector<int> labels;
      const int nclasses = partition_rectangles (result->faces, labels);
      merge_classes (result->faces, labels, nclasses, params.min_neighbors, kFaceGroupEps, &result->neighbors);
    } else {
      result->neighbors.assign (result->faces.size (), 1);
    }
  }
  clip_rectangles (result->faces, gray.width, gray.height, &result->neighbors);
  return {};
}

CudaStatus
FaceDetector::draw (const Canvas & canvas, const std::vector<FaceRect> & boxes, const LaunchPolicy & policy,
    cudaStream_t stream, const FaceKernelHook & hook)
{
  if (boxes.empty ())
    return {};
  int max_border = 0;
  for (const FaceRect & r : boxes)
    max_border =
        std::max (max_border, box_border (r.x, r.y, r.width, r.height, canvas.width, canvas.height).count ());
  const facedetect::HookContext hc { &hook, -1, canvas.width, canvas.height };
  const int n = (int) boxes.size ();
  if (n <= facedetect::kInlineBoxes) {
    /* the usual few: in the launch itself, no upload */
    facedetect::InlineBoxes in {};
    for (int i = 0; i < n; i++)
      in.box[i] = { boxes[i].x, boxes[i].y, boxes[i].width, boxes[i].height };
    return facedetect::launch_draw (canvas, in, n, max_border, policy, stream, hc);
  }
  std::vector<int4> v;
  for (const FaceRect & r : boxes)
    v.push_back ({ r.x, r.y, r.width, r.height });
  const CudaStatus s = upload (boxes_, v, stream);
  if (!s.ok ())
    return s;
  return facedetect::launch_draw (canvas, boxes_.as<const int4> (), n, max_border, policy, stream, hc);
}

void
FaceDetector::release ()
{
  for (DeviceBuffer *b :
      { &nodes_, &stages_, &roots_, &leaves_, &patch_nodes_, &levels_, &sum_, &sq_, &image_, &carries_, &lists_[0],
          &lists_[1], &keys_, &state_, &parent_, &sort_scratch_, &rects_, &edges_, &merge_, &boxes_, &luma_, &dargs_ })
    b->reset ();
  host_state_.reset ();
  args_.reset ();
  drawn_ = false;
  host_state_device_ = nullptr;
  read_stream_ = nullptr;
  in_flight_ = false;
  graphs_.clear ();
  pending_ = {};
  plan_ = {};
  list_capacity_[0] = list_capacity_[1] = face_capacity_ = edge_capacity_ = 0;
  state_header_words_ = 0;
  nstages_ = 0;
}

}  // namespace cudavision
