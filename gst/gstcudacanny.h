/* cudavision — cudacanny: Canny edge detection. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

typedef enum {
  GST_CUDA_CANNY_AUTO_OFF = 0,
  GST_CUDA_CANNY_AUTO_OTSU = 1,
  GST_CUDA_CANNY_AUTO_MEDIAN = 2,
} GstCudaCannyAutoThreshold;

#define GST_TYPE_CUDA_CANNY_AUTO_THRESHOLD (gst_cuda_canny_auto_threshold_get_type ())
GType gst_cuda_canny_auto_threshold_get_type (void);

#define GST_TYPE_CUDA_CANNY (gst_cuda_canny_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCanny, gst_cuda_canny, GST, CUDA_CANNY, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudacanny);

G_END_DECLS
