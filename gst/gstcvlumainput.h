/* cudavision — elements that analyse the luma of GRAY8 or packed RGB
 * frames and pass the frame itself on (cudaharris, cudaflow,
 * cudafacedetect): the negotiated layout, and the luma on either backend,
 * bit-exact to cv::cvtColor. */
#pragma once

#include "gstcvbasefilter.h"

#include "../cuda/common/cuda_raii.h"

#include <vector>

struct GstCvLumaInput {
  bool gray = true;                                            /* GRAY8, else `layout` */
  cudavision::PackedRgb layout = cudavision::PackedRgb::RGBA;
  int bpp = 1;                                                 /* bytes per pixel */
};

/* From negotiated caps; false for formats that are neither GRAY8 nor
 * packed RGB. */
bool gst_cv_luma_input_set (GstCvLumaInput * in, const GstVideoInfo * info);

/* Plane 0 copied from `src` to `dst` (host frames), whole pixels. */
void gst_cv_luma_input_copy_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src, cudavision::Image8 dst);

/* The luma of a host frame: the plane itself for GRAY8, else converted
 * into `scratch`. */
cudavision::ConstImage8 gst_cv_luma_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src,
    std::vector<uint8_t> * scratch);

/* The same for a device frame, converted on `stream` into `scratch`
 * (grown as needed, pitched); `*out` is the luma. With `copy` given (its
 * data not null: plane 0 of the output frame), the frame is also copied
 * there, in the same launch for colour frames. */
cudavision::CudaStatus gst_cv_luma_gpu (const GstCvLumaInput & in, cudavision::ConstImage8 src,
    cudavision::DeviceBuffer * scratch, const cudavision::LaunchPolicy & policy, cudaStream_t stream,
    cudavision::ConstImage8 * out, cudavision::Image8 copy = {});
