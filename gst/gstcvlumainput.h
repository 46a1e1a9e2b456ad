/* cudavision — elements that analyse the luma of GRAY8 or packed RGB
 * frames and pass the frame itself on (cudaharris, cudaflow,
 * cudafacedetect): the negotiated layout, and the luma of a host frame,
 * bit-exact to cv::cvtColor (on the GPU each element's own launcher makes
 * its luma: gray.h's luma_and_copy). */
#pragma once

#include "gstcvbasefilter.h"

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

