/* cudavision — cudacanny's pre-blur and Otsu passes (canny_prepasses.h). */
#include "canny_prepasses.h"

#include "../blur/blur.h"
#include "../otsu/otsu.h"

namespace cudavision {
namespace {

CudaStatus
pre_blur (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy, cudaStream_t stream)
{
  return gaussian_blur (src, dst, 1, taps, policy, stream, nullptr, BlurVariant::Fused);
}

CudaStatus
otsu_value (ConstImage8 src, DeviceBuffer * state, bool * ready, const LaunchPolicy & policy, cudaStream_t stream,
    const uint32_t ** value)
{
  if (!state->get ()) {
    CV_CUDA_TRY (state->allocate (sizeof (OtsuDeviceState)).err);
    *ready = false;
  }
  auto *ot = state->as<OtsuDeviceState> ();
  if (!*ready) {
    CV_CUDA_TRY (otsu_state_init (ot, stream).err);
    *ready = true;
  }
  /* a failure may leave the histogram half merged: clean it next time */
  *ready = false;
  CV_CUDA_TRY (otsu_threshold (src, ot, policy, stream).err);
  *ready = true;
  *value = &ot->threshold;
  return {};
}

}  // namespace

const CannyPrepasses &
canny_prepasses ()
{
  static const CannyPrepasses p { pre_blur, otsu_value };
  return p;
}

}  // namespace cudavision
