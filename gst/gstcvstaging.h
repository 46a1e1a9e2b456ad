/* cudavision — allocation and staging: the buffer pools an element
 * proposes upstream and picks downstream, and the device frames one GPU
 * transform runs on: its input uploaded from system memory or mapped
 * where it lies, its output a staging frame downloaded at a system-memory
 * edge, or the output buffer itself. */
#pragma once

#include "gstcvbasefilter.h"

#include "../cuda/common/cuda_raii.h"

/* propose_allocation: the video meta, and where upstream sends our device
 * memory to an element on the GPU (`on_gpu`), a pool of ours in `ctx` for
 * it to write device frames straight into. */
gboolean gst_cv_propose_allocation (GstQuery * query, GstCudaContext * ctx, bool on_gpu);

/* decide_allocation: a pool for the output's memory (nvcodec's in `ctx`,
 * ours in `ctx`, or system memory), downstream's where it is one of that
 * kind and context. */
gboolean gst_cv_decide_allocation (GstElement * element, GstQuery * query, GstCudaContext * ctx);

/* prepare_output_buffer failed: the error that says which frame could not
 * be allocated, in which memory. */
void gst_cv_post_output_alloc_error (GstElement * element, const GstVideoInfo * info, GstCvMemoryKind kind);

/* memory:CUDAMemory out: GstCudaMemory (GStreamer 1.22) carries no stream
 * or event to order its readers, and nvcodec's elements read it at once
 * (cudadownload's host map copies on the context's default stream), so a
 * frame leaves with its work done: one host wait per frame on `stream`,
 * as at a system-memory edge. */
GstFlowReturn gst_cv_complete_cuda_memory_output (GstCvBaseFilter * self, const cudavision::Stream & stream);

/* The frames of one GPU transform mapped on the device, and the staging
 * buffers they hold, until the end of the transform. */
struct GstCvDeviceFrames {
  GstBuffer *dev_in = nullptr;   /* the input on the device (inbuf or staging) */
  GstBuffer *dev_out = nullptr;  /* the output on the device (outbuf or staging) */
  bool in_staged = false, out_staged = false;
  bool in_mapped = false, out_mapped = false;
  GstVideoFrame in, out;

  ~GstCvDeviceFrames () {
    if (out_mapped)
      gst_video_frame_unmap (&out);
    if (in_mapped)
      gst_video_frame_unmap (&in);
    if (in_staged)
      gst_buffer_unref (dev_in);
    if (out_staged)
      gst_buffer_unref (dev_out);
  }
};

/* An element's staging frames: device frames for its system-memory edges,
 * uploaded into and downloaded from, reused frame after frame. */
class GstCvStaging {
public:
  /* `inbuf` and `outbuf` as device frames of `self`'s negotiated formats,
   * its context pushed: the input uploaded (`in_kind` system memory) or
   * mapped where it lies, the output a staging frame (`out_kind` system
   * memory) or `outbuf`; the element's stream waits for their last users. */
  GstFlowReturn map (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf, GstCvMemoryKind in_kind,
      GstCvMemoryKind out_kind, GstCvDeviceFrames & f);

  /* The processed staging output of `f` downloaded into `outbuf` (system
   * memory), waiting for `stream`: the one host wait of the chain. */
  GstFlowReturn download (GstCvBaseFilter * self, GstCvDeviceFrames & f, GstBuffer * outbuf,
      const cudavision::Stream & stream);

  /* Drops the staging frames (new sizes, stop): rebuilt on first use. */
  void reset ();

private:
  GstFlowReturn upload_input (GstCvBaseFilter * self, GstBuffer * inbuf, GstCvDeviceFrames & f);

  GstBufferPool *upload_pool_ = nullptr;
  GstBufferPool *download_pool_ = nullptr;
};
