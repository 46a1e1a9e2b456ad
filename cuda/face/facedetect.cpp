/* cudavision — FaceDetector: buffers, the level loop, the one read-back per
 * frame and the host grouping (see facedetect.h). */
#include "facedetect.h"

#include "face_draw.h"
#include "face_grouping.h"
#include "facedetect_kernels.h"

#include <algorithm>
#include <cstring>

namespace cudavision {

namespace {

/* The list starts this large and doubles when a frame overflows it. */
constexpr unsigned kInitialCapacity = 16384;
/* Rectangles read back with the counter in the first copy; a frame with
 * more raw detections takes a second copy. */
constexpr unsigned kFirstChunk = 1024;

template <typename T>
CudaStatus
upload (DeviceBuffer & buf, const std::vector<T> & v, cudaStream_t stream)
{
  const size_t bytes = std::max<size_t> (v.size () * sizeof (T), 16);
  CudaStatus s = buf.ensure (bytes);
  if (!s.ok ())
    return s;
  if (!v.empty ())
    CV_CUDA_TRY (cudaMemcpyAsync (buf.get (), v.data (), v.size () * sizeof (T), cudaMemcpyHostToDevice, stream));
  return {};
}

}  // namespace

CudaStatus
FaceDetector::set_cascade (const HaarCascade & cascade, cudaStream_t stream)
{
  nstages_ = 0;
  const haar::CompiledCascade c = haar::compile_cascade (cascade);
  CudaStatus s = upload (nodes_, c.nodes, stream);
  if (s.ok ())
    s = upload (stages_, c.stages, stream);
  if (s.ok ())
    s = upload (roots_, c.roots, stream);
  if (s.ok ())
    s = upload (leaves_, c.leaves, stream);
  if (!s.ok ())
    return s;
  /* The host vectors die here: the copies must be done. */
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  stumps_ = c.stumps;
  window_width_ = c.window_width;
  window_height_ = c.window_height;
  nstages_ = (int) c.stages.size ();
  return {};
}

CudaStatus
FaceDetector::ensure_capacity (unsigned rects, cudaStream_t stream)
{
  if (rects <= capacity_ && list_.get ())
    return {};
  const unsigned cap = std::max (rects, kInitialCapacity);
  const size_t bytes = (size_t) (cap + 1) * sizeof (int4);
  CudaStatus s = list_.allocate (bytes);
  if (s.ok ())
    s = host_list_.allocate (bytes);
  if (!s.ok ()) {
    capacity_ = 0;
    return s;
  }
  /* The read-back copies a fixed first chunk, beyond the rectangles
   * written: let it be defined memory (compute-sanitizer's initcheck). */
  CV_CUDA_TRY (cudaMemsetAsync (list_.get (), 0, bytes, stream));
  capacity_ = cap;
  return {};
}

CudaStatus
FaceDetector::run_levels (ConstImage8 gray, const std::vector<FaceLevel> & levels, const LaunchPolicy & policy,
    cudaStream_t stream, const FaceKernelHook & hook, unsigned *count)
{
  const haar::CascadeView view { nodes_.as<haar::Node> (), stages_.as<haar::Stage> (), roots_.as<int> (),
    leaves_.as<float> (), nstages_, window_width_, window_height_ };
  int4 *list = list_.as<int4> ();
  uint32_t *sum = sum_.as<uint32_t> (), *sq = sq_.as<uint32_t> ();
  CV_CUDA_TRY (cudaMemsetAsync (list, 0, sizeof (int4), stream));
  for (size_t i = 0; i < levels.size (); i++) {
    const FaceLevel & l = levels[i];
    const facedetect::HookContext hc { &hook, (int) i };
    CudaStatus s = facedetect::launch_rows (gray, l.width, l.height, sum, sq, integral_pitch_, policy, stream, hc);
    if (s.ok ())
      s = facedetect::launch_cols (sum, sq, integral_pitch_, l.width, l.height, policy, stream, hc);
    if (s.ok ())
      s = facedetect::launch_cascade (view, stumps_, sum, sq, integral_pitch_, l, list, capacity_, policy, stream, hc);
    if (!s.ok ())
      return s;
  }
  /* One read-back: the counter and the first rectangles together. */
  int4 *host = static_cast<int4 *> (host_list_.get ());
  const unsigned first = std::min (capacity_, kFirstChunk);
  CV_CUDA_TRY (cudaMemcpyAsync (host, list, (first + 1) * sizeof (int4), cudaMemcpyDeviceToHost, stream));
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  *count = (unsigned) host[0].x;
  const unsigned n = std::min (*count, capacity_);
  if (n > first) {
    CV_CUDA_TRY (cudaMemcpyAsync (host + 1 + first, list + 1 + first, (n - first) * sizeof (int4),
        cudaMemcpyDeviceToHost, stream));
    CV_CUDA_TRY (cudaStreamSynchronize (stream));
  }
  return {};
}

CudaStatus
FaceDetector::detect (ConstImage8 gray, const FaceDetectParams & params, const LaunchPolicy & policy,
    cudaStream_t stream, Result * result, const FaceKernelHook & hook)
{
  result->faces.clear ();
  result->raw.clear ();
  result->levels = has_cascade ()
      ? plan_face_levels (gray.width, gray.height, window_width_, window_height_, params)
      : std::vector<FaceLevel> ();
  if (result->levels.empty ())
    return {};

  /* Every level reuses the level-0 integral buffers: the stream orders them. */
  const size_t pitch_bytes = aligned_pitch ((size_t) (gray.width + 1) * sizeof (uint32_t));
  const size_t bytes = pitch_bytes * (size_t) (gray.height + 1);
  CudaStatus s = sum_.ensure (bytes);
  if (s.ok ())
    s = sq_.ensure (bytes);
  if (s.ok ())
    s = ensure_capacity (capacity_, stream);
  if (!s.ok ())
    return s;
  integral_pitch_ = pitch_bytes / sizeof (uint32_t);

  unsigned count = 0;
  s = run_levels (gray, result->levels, policy, stream, hook, &count);
  if (s.ok () && count > capacity_) {
    /* More raw windows than the list holds (a pathological frame): grow
     * it and search again, so no detection is lost. */
    s = ensure_capacity (count + count / 2, stream);
    if (s.ok ())
      s = run_levels (gray, result->levels, policy, stream, hook, &count);
  }
  if (!s.ok ())
    return s;

  const int4 *host = static_cast<const int4 *> (host_list_.get ()) + 1;
  const unsigned n = std::min (count, capacity_);
  result->raw.reserve (n);
  for (unsigned i = 0; i < n; i++)
    result->raw.push_back ({ host[i].x, host[i].y, host[i].z, host[i].w });
  /* Atomics append in any order: sort, so results are reproducible. */
  std::sort (result->raw.begin (), result->raw.end ());
  result->faces = result->raw;
  group_rectangles (result->faces, params.min_neighbors);
  clip_rectangles (result->faces, gray.width, gray.height);
  return {};
}

CudaStatus
FaceDetector::draw (Image8 frame, const std::vector<FaceRect> & boxes, const LaunchPolicy & policy,
    cudaStream_t stream, const FaceKernelHook & hook)
{
  if (boxes.empty ())
    return {};
  std::vector<int4> v;
  int max_border = 0;
  for (const FaceRect & r : boxes) {
    v.push_back ({ r.x, r.y, r.width, r.height });
    max_border = std::max (max_border, box_border (r.x, r.y, r.width, r.height, frame.width, frame.height).count ());
  }
  const CudaStatus s = upload (boxes_, v, stream);
  if (!s.ok ())
    return s;
  /* No wait for `v`: an asynchronous copy from pageable memory returns once
   * the bytes are staged (CUDA's documented behaviour). */
  return facedetect::launch_draw (frame, boxes_.as<int4> (), (int) v.size (), max_border, policy, stream,
      { &hook, -1 });
}

void
FaceDetector::release ()
{
  for (DeviceBuffer * b : { &nodes_, &stages_, &roots_, &leaves_, &sum_, &sq_, &list_, &boxes_ })
    b->reset ();
  host_list_.reset ();
  capacity_ = 0;
  nstages_ = 0;
}

}  // namespace cudavision
