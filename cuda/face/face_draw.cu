/* cudavision — the face boxes drawn on a device frame (face_draw.h has
 * the border geometry shared with the CPU backend), and the hook call
 * shared by every face kernel launcher. One thread per border pixel, one
 * grid row per box; from the device's grouped faces inside the frame's
 * graph, a bounded grid that strides over both. */
#include "../../core/draw/face_draw.h"
#include "facedetect_kernels.h"
#include "../../core/draw/canvas.h"
#include "../common/launch_util.cuh"

namespace cudavision {

namespace {

/* The boxes from device memory, or (a frame's usual few) in the launch's
 * own parameters: no upload before the launch. */
template <typename Boxes>
__global__ void
draw_kernel (const Canvas canvas, const Boxes boxes, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int b = blockIdx.y * blockDim.y + threadIdx.y; b < n; b += gridDim.y * blockDim.y) {
    const int4 r = boxes[b];
    const BoxBorder border = box_border (r.x, r.y, r.z, r.w, canvas.width, canvas.height);
    if (i >= border.count ())
      continue;
    int x, y;
    border.pixel (i, &x, &y);
    canvas.paint (x, y);
  }
}

/* The grouped faces as the device left them (their number too), on the
 * frame whose pointer the graph's arguments hold (a single-plane canvas):
 * a bounded grid striding over the boxes (y) and their border pixels (x). */
__global__ void
draw_merged_kernel (const uint32_t *count, const int4 *__restrict__ faces, unsigned capacity,
    const LumaCopyArgs *args, const Canvas format)
{
  const int n = (int) min (*count, capacity);
  const Canvas canvas = format.with_plane0 (args->copy, args->copy_pitch);
  for (int b = blockIdx.y * blockDim.y + threadIdx.y; b < n; b += gridDim.y * blockDim.y) {
    const int4 r = faces[b];
    const BoxBorder border = box_border (r.x, r.y, r.z, r.w, canvas.width, canvas.height);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < border.count (); i += gridDim.x * blockDim.x) {
      int x, y;
      border.pixel (i, &x, &y);
      canvas.paint (x, y);
    }
  }
}

/* The bounded grid's work size for the policy: border pixels a pass, box
 * rows a pass (a 1080p frame's faces have borders of a few hundred to a
 * few thousand pixels, and a frame a handful of faces). */
constexpr int kMergedDrawPixels = 2048;
constexpr int kMergedDrawBoxes = 16;

}  // namespace

const KernelTraits &
facedetect_draw_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.draw", { 256, 1 }, false);
  return t;
}

const KernelTraits &
facedetect_input_traits ()
{
  /* luma_and_copy (gray.h): the frame's luma and its copy to the output
   * from the same loads, as cudaflow's flow.input */
  static const KernelTraits t = luma_and_copy_traits ("facedetect.input");
  return t;
}

namespace facedetect {

void
hook_call (const HookContext & hc, const KernelTraits & t, long w, long h, const LaunchConfig & c, bool end,
    cudaStream_t stream)
{
  if (hc.hook && *hc.hook) {
    FaceKernelLaunch l;
    l.kernel = t.name;
    l.batch = hc.batch;
    l.width = w;
    l.height = h;
    l.config = c;
    (*hc.hook) (l, end, stream);
  }
}

template <typename Boxes>
CudaStatus
launch_draw (const Canvas & canvas, const Boxes & boxes, int n, int max_border, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  if (n <= 0 || max_border <= 0)
    return {};
  const KernelTraits & t = facedetect_draw_traits ();
  const LaunchConfig c = policy.choose (t, cached_resources (draw_kernel<Boxes>), max_border, n);
  hook_call (hc, t, max_border, n, c, false, stream);
  draw_kernel<Boxes><<<grid_dim (c), block_dim (c), 0, stream>>> (canvas, boxes, n);
  CV_CUDA_TRY_LAUNCH ("facedetect draw_kernel");
  hook_call (hc, t, max_border, n, c, true, stream);
  return {};
}

CudaStatus
launch_draw_merged (const uint32_t *count, const int4 *faces, unsigned capacity, const LumaCopyArgs *args,
    const Canvas & format, const LaunchPolicy & policy, cudaStream_t stream)
{
  if (format.width <= 0 || format.height <= 0 || capacity == 0)
    return {};
  if (!format.single_plane ())
    return { cudaErrorInvalidValue, "face boxes from a graph: single-plane frames only" };
  const LaunchConfig c = policy.choose (facedetect_draw_traits (), cached_resources (draw_merged_kernel),
      kMergedDrawPixels, kMergedDrawBoxes);
  draw_merged_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (count, faces, capacity, args, format);
  CV_CUDA_TRY_LAUNCH ("facedetect draw_merged_kernel");
  return {};
}

template CudaStatus launch_draw<const int4 *> (const Canvas &, const int4 * const &, int, int, const LaunchPolicy &,
    cudaStream_t, const HookContext &);
template CudaStatus launch_draw<InlineBoxes> (const Canvas &, const InlineBoxes &, int, int, const LaunchPolicy &,
    cudaStream_t, const HookContext &);

}  // namespace facedetect
}  // namespace cudavision
