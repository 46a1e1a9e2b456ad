/* cudavision — a buffer pool of device frames (GstCvMemory), one memory per
 * buffer, with GstVideoMeta carrying the pitched strides and offsets. */
#pragma once

#include "gstcvmemory.h"

G_BEGIN_DECLS

#define GST_TYPE_CV_BUFFER_POOL (gst_cv_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCvBufferPool, gst_cv_buffer_pool, GST, CV_BUFFER_POOL, GstBufferPool)

GstBufferPool *gst_cv_buffer_pool_new (GstCudaContext * context);
GstCudaContext *gst_cv_buffer_pool_get_context (GstCvBufferPool * pool);

G_END_DECLS
