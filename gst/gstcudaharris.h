/* cudavision — cudaharris: Harris and Shi-Tomasi corners. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HARRIS (gst_cuda_harris_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaHarris, gst_cuda_harris, GST, CUDA_HARRIS, GstCvBaseFilter)

typedef enum {
  GST_CUDA_HARRIS_METHOD_HARRIS = 0,
  GST_CUDA_HARRIS_METHOD_SHI_TOMASI = 1,
} GstCudaHarrisMethod;

#define GST_TYPE_CUDA_HARRIS_METHOD (gst_cuda_harris_method_get_type ())
GType gst_cuda_harris_method_get_type (void);

typedef enum {
  GST_CUDA_HARRIS_OUTPUT_PASSTHROUGH = 0,
  GST_CUDA_HARRIS_OUTPUT_RESPONSE = 1,
} GstCudaHarrisOutput;

#define GST_TYPE_CUDA_HARRIS_OUTPUT (gst_cuda_harris_output_get_type ())
GType gst_cuda_harris_output_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudaharris);

G_END_DECLS
