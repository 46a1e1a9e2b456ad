/* cudavision — cudablur: Gaussian smoothing. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BLUR (gst_cuda_blur_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaBlur, gst_cuda_blur, GST, CUDA_BLUR, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudablur);

G_END_DECLS
