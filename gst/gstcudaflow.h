/* cudavision — cudaflow: pyramidal Lucas-Kanade optical flow. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FLOW (gst_cuda_flow_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFlow, gst_cuda_flow, GST, CUDA_FLOW, GstCvBaseFilter)

typedef enum {
  GST_CUDA_FLOW_MODE_SPARSE = 0,
  GST_CUDA_FLOW_MODE_DENSE = 1,
} GstCudaFlowMode;

#define GST_TYPE_CUDA_FLOW_MODE (gst_cuda_flow_mode_get_type ())
GType gst_cuda_flow_mode_get_type (void);

typedef enum {
  GST_CUDA_FLOW_OUTPUT_PASSTHROUGH = 0,
  GST_CUDA_FLOW_OUTPUT_FLOW_COLOR = 1,
} GstCudaFlowOutput;

#define GST_TYPE_CUDA_FLOW_OUTPUT (gst_cuda_flow_output_get_type ())
GType gst_cuda_flow_output_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudaflow);

G_END_DECLS
