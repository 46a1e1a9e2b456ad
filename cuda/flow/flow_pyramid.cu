/* cudavision — cudaflow's pyramids: level 0 from the frame (cudagray's
 * kernel, luma_and_copy), pyrDown levels and the Scharr derivatives of
 * every level (flow.h step 1). A thread makes 4 adjacent pixels of a row
 * from aligned word loads (flow_pyramid4.h: the per-thread code, shared
 * with the CPU tests; flow_math.h the arithmetic). */
#include "flow.h"
#include "flow_pyramid4.h"
#include "../common/luma.h" /* level 0: luma_and_copy */
#include "../common/launch_util.cuh"

#include <algorithm>

namespace cudavision {
namespace {

__global__ void
pyrdown_kernel (const uint8_t *__restrict__ src, size_t sp, int sw, int sh, uint8_t *__restrict__ dst, size_t dp,
    int dw, int dh)
{
  const int x0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (x0 >= dw)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < dh; y += gridDim.y * blockDim.y) {
    const uint32_t out = pyr_down4_at (src, sp, sw, sh, x0, y);
    uint8_t *d = dst + (size_t) y * dp + x0;
    if (x0 + 4 <= dw) {
      *reinterpret_cast<uint32_t *> (d) = out;
    } else {
      for (int k = 0; k < dw - x0; k++)
        d[k] = (uint8_t) (out >> (8 * k));
    }
  }
}

__global__ void
scharr_kernel (const uint8_t *__restrict__ src, size_t sp, int w, int h, uint32_t *__restrict__ dst, size_t dp)
{
  const int x0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (x0 >= w)
    return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
    uint32_t out[4];
    scharr4_at (src, sp, w, h, x0, y, out);
    uint32_t *d = reinterpret_cast<uint32_t *> (reinterpret_cast<char *> (dst) + (size_t) y * dp) + x0;
    if (x0 + 4 <= w) {
      *reinterpret_cast<uint4 *> (d) = make_uint4 (out[0], out[1], out[2], out[3]); /* 16-byte aligned */
    } else {
      for (int k = 0; k < w - x0; k++)
        d[k] = out[k];
    }
  }
}

}  // namespace

const KernelTraits &
flow_input_traits ()
{
  /* luma_and_copy: cudagray's kernel, 4 pixels of one row a thread */
  static const KernelTraits t = luma_and_copy_traits ("flow.input");
  return t;
}

const KernelTraits &
flow_pyrdown_traits ()
{
  /* 4 pixels of a row a thread; 5 source rows of 2 bytes a pixel, mostly
   * from L1, counted as 4 bytes in */
  static const KernelTraits t = kernel_traits ("flow.pyrdown", { 32, 8 }, true).items (4).bytes (4, 1);
  return t;
}

const KernelTraits &
flow_scharr_traits ()
{
  /* 4 pixels of a row a thread; a byte in, the two 16-bit gradients out */
  static const KernelTraits t = kernel_traits ("flow.scharr", { 32, 8 }, true).items (4).bytes (1, 4);
  return t;
}

CudaStatus
FlowPyramid::allocate (int width, int height, int levels, cudaStream_t stream)
{
  size_t ib = 0, db = 0;
  int w = width, h = height;
  for (int l = 0; l < levels; l++) {
    ib += aligned_pitch ((size_t) w) * h;
    db += aligned_pitch ((size_t) w * 4) * h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  /* A new allocation is zeroed once: the tracker's 4-byte row loads read
   * up to 3 bytes of a level's row padding (never used in a sum), and
   * compute-sanitizer initcheck flags reads of bytes never written. */
  const bool new_images = ib > images_.size (), new_derivs = db > derivs_.size ();
  CudaStatus s = images_.ensure (ib);
  if (s.ok ())
    s = derivs_.ensure (db);
  if (!s.ok ())
    return s;
  if (new_images)
    CV_CUDA_TRY (cudaMemsetAsync (images_.get (), 0, images_.size (), stream));
  if (new_derivs)
    CV_CUDA_TRY (cudaMemsetAsync (derivs_.get (), 0, derivs_.size (), stream));
  uint8_t *ip = images_.as<uint8_t> ();
  char *dp = derivs_.as<char> ();
  w = width;
  h = height;
  for (int l = 0; l < levels; l++) {
    const size_t p = aligned_pitch ((size_t) w), q = aligned_pitch ((size_t) w * 4);
    level_[l] = { ip, p, w, h };
    deriv_[l] = { reinterpret_cast<uint32_t *> (dp), q, w, h };
    ip += p * h;
    dp += q * h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  return {};
}

CudaStatus
FlowPyramid::build (const LumaInput & frame, int window, int max_level, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  CudaStatus s = build_base (frame, window, max_level, policy, stream);
  return s.ok () ? build_levels (policy, stream) : s;
}

CudaStatus
FlowPyramid::prepare (const LumaInput & frame, int window, int max_level, cudaStream_t stream)
{
  levels_ = 0;
  const int w = frame.image.width, h = frame.image.height;
  if (w <= 0 || h <= 0)
    return {};
  if (window < kFlowMinWindow || window > kFlowMaxWindow)
    return { cudaErrorInvalidValue, "flow: window size 3..32" };
  const int levels = flow_pyramid_levels (w, h, window, std::min (std::max (max_level, 0), kFlowMaxLevel)) + 1;
  CudaStatus s = allocate (w, h, levels, stream);
  if (!s.ok ())
    return s;
  levels_ = levels;
  window_ = window;
  return {};
}

bool
FlowPyramid::input_vectorizable (const LumaInput & frame, const Image8 * copy)
{
  return luma_and_copy_vectorizable (input_args (frame, copy), frame.gray, frame.layout, copy != nullptr);
}

FlowInputArgs
FlowPyramid::input_args (const LumaInput & frame, const Image8 * copy)
{
  return { frame.image.data, frame.image.pitch, copy ? copy->data : nullptr, copy ? copy->pitch : 0 };
}

CudaStatus
FlowPyramid::build_input (const LumaInput & frame, const Image8 * copy, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (levels_ == 0)
    return {};
  /* one kernel reads the frame for level 0 and writes the copy (where the
   * rows do not allow its word access, luma_and_copy makes them apart) */
  return luma_and_copy (input_args (frame, copy), nullptr, frame.gray, frame.layout, copy != nullptr, level_[0],
      flow_input_traits (), policy, stream);
}

CudaStatus
FlowPyramid::build_input_from (const FlowInputArgs * args, bool gray, PackedRgb layout, bool copy,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  if (levels_ == 0)
    return {};
  return luma_and_copy ({}, args, gray, layout, copy, level_[0], flow_input_traits (), policy, stream);
}

CudaStatus
FlowPyramid::build_base (const LumaInput & frame, int window, int max_level, const LaunchPolicy & policy,
    cudaStream_t stream, const Image8 * copy)
{
  CudaStatus s = prepare (frame, window, max_level, stream);
  return s.ok () ? build_input (frame, copy, policy, stream) : s;
}

CudaStatus
FlowPyramid::build_levels (const LaunchPolicy & policy, cudaStream_t stream)
{
  /* the levels' rows are 4-byte aligned (aligned_pitch, one allocation):
   * the kernels' word loads and stores rely on it */
  for (int l = 1; l < levels_; l++) {
    const Image8 & src = level_[l - 1];
    const Image8 & dst = level_[l];
    const LaunchConfig c = policy.choose (flow_pyrdown_traits (), cached_resources (pyrdown_kernel), dst.width,
        dst.height);
    pyrdown_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height, dst.data,
        dst.pitch, dst.width, dst.height);
    CV_CUDA_TRY_LAUNCH ("pyrdown_kernel");
  }
  for (int l = 0; l < levels_; l++) {
    const Image8 & src = level_[l];
    const LaunchConfig c = policy.choose (flow_scharr_traits (), cached_resources (scharr_kernel), src.width,
        src.height);
    scharr_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height,
        deriv_[l].data, deriv_[l].pitch);
    CV_CUDA_TRY_LAUNCH ("scharr_kernel");
  }
  return {};
}

void
FlowPyramid::release ()
{
  images_.reset ();
  derivs_.reset ();
  levels_ = 0;
  window_ = 0;
}

}  // namespace cudavision
