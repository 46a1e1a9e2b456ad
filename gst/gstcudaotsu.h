/* cudavision — cudaotsu: Otsu binarization, and the threshold reported. */
#pragma once

#include "gstcvbasefilter.h"
#include "gstcvotsumeta.h"

G_BEGIN_DECLS

typedef enum {
  GST_CUDA_OTSU_MODE_BINARIZE = 0,
  GST_CUDA_OTSU_MODE_THRESHOLD_ONLY = 1,
} GstCudaOtsuMode;

#define GST_TYPE_CUDA_OTSU_MODE (gst_cuda_otsu_mode_get_type ())
GType gst_cuda_otsu_mode_get_type (void);

#define GST_TYPE_CUDA_OTSU (gst_cuda_otsu_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOtsu, gst_cuda_otsu, GST, CUDA_OTSU, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudaotsu);

G_END_DECLS
