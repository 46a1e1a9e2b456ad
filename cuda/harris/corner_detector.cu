/* cudavision — CornerDetector (harris.h describes the steps), and the
 * kernels that follow a detection: the normalized response map and the
 * corner marks. */
#include "../../core/draw/corner_marker.h"
#include "harris.h"
#include "../common/luma.h"
#include "../common/graph_io.h"
#include "../common/launch_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudavision {
namespace {

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
 * colour, so the races are benign. With `target`, the canvas's plane is
 * the copy those arguments name (single-plane canvases). */
__global__ void
corner_draw_kernel (const Corner *__restrict__ pts, const uint32_t *__restrict__ count, const Canvas format,
    const LumaCopyArgs *target)
{
  const Canvas canvas = target ? format.with_plane0 (target->copy, target->copy_pitch) : format;
  const long total = (long) *count * kCornerMarkerPixels;
  for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < total; i += (long) gridDim.x * blockDim.x) {
    const int c = (int) (i / kCornerMarkerPixels), k = (int) (i - (long) c * kCornerMarkerPixels);
    int dx, dy;
    corner_marker_offset (k, &dx, &dy);
    const int x = (int) pts[c].x + dx, y = (int) pts[c].y + dy;
    if (canvas.inside (x, y))
      canvas.paint (x, y);
  }
}

}  // namespace

const KernelTraits &
harris_normalize_traits ()
{
  /* A float response in, a byte out. */
  static const KernelTraits t = kernel_traits ("harris.normalize", { 32, 8 }, true).bytes (4, 1);
  return t;
}

const KernelTraits &
harris_draw_traits ()
{
  static const KernelTraits t = kernel_traits ("harris.draw", { 256, 1 }, false);
  return t;
}

CudaStatus
corner_normalize (ImageView<const float> response, const uint32_t * max_ordered, Image8 dst,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  if (response.width <= 0 || response.height <= 0)
    return {};
  const LaunchConfig c = policy.choose (harris_normalize_traits (), cached_resources (corner_normalize_kernel),
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

/* Host list slots to start with: enough for most frames; collect () grows
 * it to what a frame needed. */
constexpr size_t kInitialHostCorners = 16384;

/* Marks the corners of `list` (its length on the device) on `canvas`, or,
 * with `target`, on the frame it names as its copy (read when the kernel
 * runs; `canvas` gives the format, size and colour). */
static CudaStatus launch_draw (const Canvas & canvas, const Corner * list, const uint32_t * count, size_t most,
    const LaunchPolicy & policy, cudaStream_t stream, const LumaCopyArgs * target = nullptr);

CudaStatus
CornerDetector::enqueue (const LumaInput & frame, const CornerDetectParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, const Image8 * copy, const Canvas * draw)
{
  drawn_ = false;
  /* the arguments of an enqueue never collected may not be read yet */
  if (args_busy_ && listed_.get ())
    CV_CUDA_TRY (cudaEventSynchronize (listed_.get ()));
  args_busy_ = false;
  pending_ = false;
  candidates_ = 0;
  response_view_ = {};
  const int w = frame.image.width, h = frame.image.height;
  if (w <= 0 || h <= 0)
    return {};
  LumaInput in = frame;
  if (!in.gray && packed_rgb_layout (in.layout).channels == 3) {
    /* 3-byte RGB: the response's tiles load 1- or 4-byte pixels, so the
     * luma first (and the copy from the same launch), then as GRAY8 */
    const size_t luma_pitch = aligned_pitch ((size_t) w);
    CudaStatus l = luma_.ensure (luma_pitch * h);
    if (l.ok ())
      l = rgb_to_gray (in.image, in.layout, { luma_.as<uint8_t> (), luma_pitch, w, h }, policy, stream,
          copy ? *copy : Image8 {});
    if (!l.ok ())
      return l;
    in = { { luma_.as<const uint8_t> (), luma_pitch, w, h }, true, PackedRgb::RGBA };
    copy = nullptr;
  }
  int copy_bytes = copy ? w * (in.gray ? 1 : 4) : 0;
  const size_t pitch = aligned_pitch ((size_t) w * sizeof (float));
  CudaStatus s = response_.ensure (pitch * h);
  if (s.ok ())
    s = scalars_.ensure (sizeof (uint32_t));
  if (!s.ok ())
    return s;
  response_view_ = { response_.as<float> (), pitch, w, h };
  s = prepare_list ();
  if (!s.ok ())
    return s;
  if (copy && empty_) {
    /* no list, so no event that collect () waits on: the copy apart */
    s = copy_plane (in.image, *copy, copy_bytes, stream);
    if (!s.ok ())
      return s;
    copy = nullptr;
    copy_bytes = 0;
  }
  if (copy) {
    s = ensure_args_buffers (args_, dargs_, sizeof (LumaCopyArgs));
    if (!s.ok ())
      return s;
    *static_cast<LumaCopyArgs *> (args_.get ()) = { in.image.data, in.image.pitch, copy->data, copy->pitch };
  }

  /* The frame's launches (a dozen: the response, the candidates, the
   * selection's rounds, the list) replayed as one graph where the input
   * frame, the sizes and the parameters were seen before
   * (captured_graphs.h): the host time per frame is what the element adds
   * to a pipeline. Not where the policy's choices may change or each
   * launch is timed (block-sizing=auto, cudavision-tune). */
  CapturedGraphs::Key key;
  key.add (in.image.data).add (in.image.pitch).add (w).add (h).add (in.gray).add (in.layout);
  key.add (p.corner.method).add (p.corner.block_size).add (p.corner.aperture).add (p.corner.k);
  key.add (p.quality_level).add (p.min_distance).add (p.max_corners);
  key.add (host_list_.get ()).add (host_capacity_).add (forced_order_).add (forced_path_);
  /* the marks on the copy, in the graph too (draw_detected then draws
   * nothing), where the copy is the whole frame */
  const bool draw_here = draw && copy_bytes > 0 && draw->single_plane ();
  key.add (copy_bytes).add (draw_here);
  if (draw_here) {
    /* the marks' format and colour are the draw kernel's parameters */
    key.add ((int) draw->kind).add (draw->bpp);
    for (int k = 0; k < 4; k++)
      key.add ((int) draw->offset[k]).add ((int) draw->value[k]);
  }
  s = graphs_.run (key, stream, policy.replays_allowed (), [&] (cudaStream_t st) -> CudaStatus {
    if (copy_bytes > 0) {
      /* the frame to the output first (the pointers of this frame, from
       * the pinned block, whichever buffers it is in) */
      CudaStatus c = copy_args (dargs_.get (), args_.get (), sizeof (LumaCopyArgs), st);
      if (c.ok ())
        c = copy_plane_from (dargs_.as<const LumaCopyArgs> (), copy_bytes, h, st);
      if (!c.ok ())
        return c;
    }
    CV_CUDA_TRY (cudaMemsetAsync (scalars_.get (), 0, sizeof (uint32_t), st));
    CudaStatus r = corner_response (in, response_view_, p.corner, policy, st, scalars_.as<uint32_t> ());
    if (r.ok ())
      r = launch_selection (p, policy, st);
    if (!r.ok () || empty_)
      return r;
    /* the event collect () waits for: a node of the graph */
    CudaStatus e = record_in_work (listed_.get (), st);
    if (!e.ok () || !draw_here)
      return e;
    Canvas format = *draw;
    format.width = w;
    format.height = h;
    return launch_draw (format, selection_.device_list (), selection_.device_count (), selection_.capacity (), policy,
        st, dargs_.as<const LumaCopyArgs> ());
  });
  if (!s.ok ())
    return s;
  args_busy_ = copy_bytes > 0;
  drawn_ = draw_here && !empty_;
  return list_queued (stream, false);
}

CudaStatus
CornerDetector::enqueue_selection (ImageView<const float> response, float max_response, const CornerDetectParams & p,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  pending_ = false;
  candidates_ = 0;
  response_view_ = { const_cast<float *> (response.data), response.pitch, response.width, response.height };
  if (response.width <= 0 || response.height <= 0)
    return {};
  CudaStatus s = scalars_.ensure (sizeof (uint32_t));
  if (!s.ok ())
    return s;
  s = ensure_pinned (host_draw_, sizeof (uint32_t));
  if (!s.ok ())
    return s;
  /* through pinned memory: the copy must not read a stack variable late */
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  *static_cast<uint32_t *> (host_draw_.get ()) = float_to_ordered (max_response);
  CV_CUDA_TRY (cudaMemcpyAsync (scalars_.get (), host_draw_.get (), sizeof (uint32_t), cudaMemcpyHostToDevice, stream));
  return enqueue_list (p, policy, stream);
}

/* The list's event and pinned buffer, before the launches that fill it. */
CudaStatus
CornerDetector::prepare_list ()
{
  empty_ = response_view_.width < 3 || response_view_.height < 3; /* goodFeaturesToTrack: interior pixels only */
  if (empty_)
    return {};
  if (!listed_.get ()) {
    CudaStatus s = listed_.create ();
    if (!s.ok ())
      return s;
  }
  if (host_capacity_ == 0) {
    CudaStatus s = host_list_.allocate (sizeof (CornerListHeader) + kInitialHostCorners * sizeof (Corner));
    if (!s.ok ())
      return s;
    host_capacity_ = kInitialHostCorners;
  }
  return {};
}

/* The selection's launches on the response map, into the pinned list
 * (none for a frame without interior pixels). */
CudaStatus
CornerDetector::launch_selection (const CornerDetectParams & p, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (empty_)
    return {};
  return selection_.enqueue ({ response_view_.data, response_view_.pitch, response_view_.width, response_view_.height },
      scalars_.as<const uint32_t> (), p, policy, stream, static_cast<CornerListHeader *> (host_list_.get ()),
      host_capacity_);
}

CudaStatus
CornerDetector::list_queued (cudaStream_t stream, bool record)
{
  stream_ = stream;
  if (record && !empty_)
    CV_CUDA_TRY (cudaEventRecord (listed_.get (), stream));
  pending_ = true;
  return {};
}

CudaStatus
CornerDetector::enqueue_list (const CornerDetectParams & p, const LaunchPolicy & policy, cudaStream_t stream)
{
  CudaStatus s = prepare_list ();
  if (s.ok ())
    s = launch_selection (p, policy, stream);
  return s.ok () ? list_queued (stream) : s;
}

CudaStatus
CornerDetector::collect (std::vector<Corner> * corners)
{
  corners->clear ();
  if (!pending_)
    return {};
  pending_ = false;
  if (empty_)
    return {};
  /* with the frame held (latency-frames=1) the list is usually ready: a
   * query costs the host less than a synchronize */
  if (cudaEventQuery (listed_.get ()) != cudaSuccess)
    CV_CUDA_TRY (cudaEventSynchronize (listed_.get ()));
  args_busy_ = false;
  const CornerListHeader head = *static_cast<const CornerListHeader *> (host_list_.get ());
  candidates_ = head.candidates;
  const size_t n = head.count;
  if (n > host_capacity_) {
    /* outgrown: a bigger buffer for the next frames, and this list copied */
    size_t cap = host_capacity_;
    while (cap < n)
      cap *= 2;
    host_list_.reset ();
    host_capacity_ = 0;
    CudaStatus s = host_list_.allocate (sizeof (CornerListHeader) + cap * sizeof (Corner));
    if (!s.ok ())
      return s;
    host_capacity_ = cap;
    CV_CUDA_TRY (cudaMemcpyAsync (static_cast<CornerListHeader *> (host_list_.get ()) + 1,
        selection_.device_list (), n * sizeof (Corner), cudaMemcpyDeviceToHost, stream_));
    CV_CUDA_TRY (cudaStreamSynchronize (stream_));
  }
  const Corner *list = reinterpret_cast<const Corner *> (static_cast<const CornerListHeader *> (host_list_.get ()) + 1);
  corners->assign (list, list + n);
  return {};
}

CudaStatus
CornerDetector::detect (const LumaInput & in, const CornerDetectParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, std::vector<Corner> * corners)
{
  corners->clear ();
  CudaStatus s = enqueue (in, p, policy, stream);
  if (!s.ok ())
    return s;
  return collect (corners);
}

CudaStatus
CornerDetector::normalized_response (Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const
{
  if (!response_view_.data)
    return {};
  return corner_normalize ({ response_view_.data, response_view_.pitch, response_view_.width, response_view_.height },
      scalars_.as<const uint32_t> (), dst, policy, stream);
}

static CudaStatus
launch_draw (const Canvas & canvas, const Corner * list, const uint32_t * count, size_t most,
    const LaunchPolicy & policy, cudaStream_t stream, const LumaCopyArgs * target)
{
  /* the grid for the most corners there can be, capped: it strides */
  const long total = std::min<long> ((long) most * kCornerMarkerPixels, 1L << 22);
  const LaunchConfig c = policy.choose (harris_draw_traits (), cached_resources (corner_draw_kernel), total, 1);
  corner_draw_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (list, count, canvas, target);
  CV_CUDA_TRY_LAUNCH ("corner_draw_kernel");
  return {};
}

CudaStatus
CornerDetector::draw_detected (const Canvas & canvas, const LaunchPolicy & policy, cudaStream_t stream)
{
  if (!pending_ || empty_ || drawn_ || canvas.width <= 0 || canvas.height <= 0)
    return {};
  return launch_draw (canvas, selection_.device_list (), selection_.device_count (), selection_.capacity (), policy,
      stream);
}

CudaStatus
CornerDetector::draw (const Canvas & canvas, const std::vector<Corner> & corners, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (corners.empty () || canvas.width <= 0 || canvas.height <= 0)
    return {};
  /* the count, padded to a Corner, then the corners */
  const size_t bytes = (corners.size () + 1) * sizeof (Corner);
  CudaStatus s = ensure_pinned (host_draw_, bytes);
  if (s.ok ())
    s = draw_list_.ensure (bytes);
  if (!s.ok ())
    return s;
  uint8_t *staging = static_cast<uint8_t *> (host_draw_.get ());
  const uint32_t n = (uint32_t) corners.size ();
  std::memcpy (staging, &n, sizeof n);
  std::memcpy (staging + sizeof (Corner), corners.data (), corners.size () * sizeof (Corner));
  CV_CUDA_TRY (cudaMemcpyAsync (draw_list_.get (), staging, bytes, cudaMemcpyHostToDevice, stream));
  const uint8_t *dev = draw_list_.as<const uint8_t> ();
  return launch_draw (canvas, reinterpret_cast<const Corner *> (dev + sizeof (Corner)),
      reinterpret_cast<const uint32_t *> (dev), corners.size (), policy, stream);
}

void
CornerDetector::release ()
{
  if (pending_ && !empty_ && listed_.get ())
    cudaEventSynchronize (listed_.get ()); /* the GPU may still write the pinned list */
  pending_ = false;
  graphs_.clear ();
  response_.reset ();
  scalars_.reset ();
  selection_.release ();
  host_list_.reset ();
  host_capacity_ = 0;
  args_.reset ();
  dargs_.reset ();
  args_busy_ = false;
  drawn_ = false;
  listed_.reset ();
  draw_list_.reset ();
  host_draw_.reset ();
  luma_.reset ();
  response_view_ = {};
  candidates_ = 0;
}

}  // namespace cudavision
