/* cudavision — cudagray: colour to GRAY8. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAY (gst_cuda_gray_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGray, gst_cuda_gray, GST, CUDA_GRAY, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudagray);

G_END_DECLS
