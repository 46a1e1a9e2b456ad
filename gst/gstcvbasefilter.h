/* cudavision — GstCvBaseFilter, the base class of every cudavision element.
 *
 * A GstBaseTransform (not a GstVideoFilter, which maps frames to host
 * memory). It owns what every element shares:
 *  - the device (`device-id`) and the GstCudaContext shared with other
 *    elements through GStreamer's context mechanism;
 *  - one CUDA stream per element instance;
 *  - the backend (`backend`: auto, cuda, cpu) and the CPU fallback;
 *  - the launch policy (`block-sizing`, `block-size`, `tuning-table`);
 *  - caps features: device frames (memory:CudaVisionMemory) between our
 *    elements, nvcodec's memory:CUDAMemory in and out, and system memory
 *    at the edges, uploaded or downloaded once;
 *  - allocation: our buffer pool downstream and upstream;
 *  - every frame's layout checked against its buffer before anything maps
 *    it (a GstVideoMeta's strides at least a row, every plane inside one
 *    memory of the buffer, the meta's format and size the caps'): an
 *    element error otherwise. Bottom-up input (negative strides) in
 *    system memory is copied once into top-down rows, for every element
 *    and both backends; in device memory and in outputs it is refused.
 * Subclasses say how formats map (transform_video_caps) and process one
 * frame on each backend, given frames already mapped where they run.
 *
 * The class is the glue; each job has its unit: caps (gstcvcaps.h),
 * frame views and layout checks (gstcvframe.h), allocation and staging
 * (gstcvstaging.h), the latency-frames hold queue (gstcvholdqueue.h),
 * the launch policy, its tuning table and auto-tuner (gstcvtuning.h),
 * and the messages about the backend it could not have
 * (gstcvfallback.h, gstcvnotices.h). */
#pragma once

#include "gstcvcaps.h"
#include "gstcvenums.h"
#include "gstcvframe.h"
#include "gstcvmemory.h"

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "../cuda/common/cuda_check.h"

namespace cudavision {
class LaunchPolicy;
}  // namespace cudavision

G_BEGIN_DECLS

/* Flags of every element property: read-write, static strings, and the
 * latest state in which a change takes effect (PLAYING: on the next frame;
 * READY: it shapes negotiation or device state). */
#define GST_CV_PARAM_RW_PLAYING \
  ((GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING))
#define GST_CV_PARAM_RW_READY ((GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY))

#define GST_TYPE_CV_BASE_FILTER (gst_cv_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCvBaseFilter, gst_cv_base_filter, GST, CV_BASE_FILTER, GstBaseTransform)

struct _GstCvBaseFilterClass {
  GstBaseTransformClass parent_class;

  /* Format mapping, on caps without features: caps on `direction`'s pad
   * to caps on the other pad (the template then restricts). Default:
   * identity. */
  GstCaps *(*transform_video_caps) (GstCvBaseFilter * self, GstPadDirection direction, GstCaps * caps);

  /* Negotiated formats; return FALSE to refuse. Optional. */
  gboolean (*set_info) (GstCvBaseFilter * self, const GstVideoInfo * in, const GstVideoInfo * out);

  /* One frame on the GPU: frames are mapped with device pointers, and the
   * work goes on self's stream (gst_cv_base_filter_stream) through the launch
   * policy (gst_cv_base_filter_policy). Must not synchronize. */
  GstFlowReturn (*process_gpu) (GstCvBaseFilter * self, GstBuffer * inbuf, GstVideoFrame * in,
      GstVideoFrame * out);

  /* One frame on the CPU backend: host-mapped frames, checked and
   * top-down (positive strides). Catches what OpenCV throws into an
   * element error: an exception must not unwind through GStreamer. */
  GstFlowReturn (*process_cpu) (GstCvBaseFilter * self, GstBuffer * inbuf, GstVideoFrame * in,
      GstVideoFrame * out);

  /* Called in stop() with the context pushed: free per-stream device state
   * (scratch buffers) here. Optional. */
  void (*release_device) (GstCvBaseFilter * self);

  /* A frame's results onto its output buffer (metas, messages, boxes drawn
   * from them): called once for every frame whose transform succeeded, in
   * order, on the streaming thread, with the context pushed on the GPU (a
   * frame whose process succeeded but whose download then failed is never
   * finished: GstCvPendingResults::begin_gpu_frame drops its results).
   * `inbuf` is the frame's input. With latency-frames=0 (and on the CPU,
   * or at a system-memory edge) it runs right after the frame's process;
   * with latency-frames=1 once the next frame's work is queued, so that
   * the wait for the GPU finds the results ready, or when the held frame
   * is drained (a serialized event, new caps, a drain query, a flush,
   * stop): gstcvholdqueue.h. An element with results sets it and calls
   * gst_cv_base_filter_class_install_latency_frames (). Optional. */
  GstFlowReturn (*finish_frame) (GstCvBaseFilter * self, GstBuffer * inbuf, GstBuffer * outbuf);
};

/* TRUE when the element runs on the GPU (known after start()). */
gboolean gst_cv_base_filter_on_gpu (GstCvBaseFilter * self);
cudaStream_t gst_cv_base_filter_stream (GstCvBaseFilter * self);
/* The element's CUDA context (transfer none; NULL on the CPU backend). */
GstCudaContext *gst_cv_base_filter_context (GstCvBaseFilter * self);
const GstVideoInfo *gst_cv_base_filter_in_info (GstCvBaseFilter * self);
const GstVideoInfo *gst_cv_base_filter_out_info (GstCvBaseFilter * self);

/* The "latency-frames" property, for elements with finish_frame: installed
 * on the element's class with `prop_id`, whose set/get_property pass it to
 * gst_cv_base_filter_{set,get}_latency_frames. */
void gst_cv_base_filter_class_install_latency_frames (GObjectClass * klass, guint prop_id);
void gst_cv_base_filter_set_latency_frames (GstCvBaseFilter * self, const GValue * value);
void gst_cv_base_filter_get_latency_frames (GstCvBaseFilter * self, GValue * value);

/* Whether the frame being processed will be finished one frame later
 * (latency-frames=1 on the GPU with device memory on both pads): the
 * element then keeps this frame's results apart from the next one's. */
gboolean gst_cv_base_filter_holds_results (GstCvBaseFilter * self);

/* `buf` (an output frame of ours) mapped for writing on the device, to
 * draw on it in finish_frame; unmap records the stream on it, so that
 * readers wait for the drawing. */
gboolean gst_cv_base_filter_map_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame);
void gst_cv_base_filter_unmap_device_output (GstCvBaseFilter * self, GstBuffer * buf, GstVideoFrame * frame);

G_END_DECLS

/* The element's launch policy (on the GPU, between start and stop). */
const cudavision::LaunchPolicy & gst_cv_base_filter_policy (GstCvBaseFilter * self);

/* Turns a failed CUDA status into a GStreamer error on the bus (out of
 * memory as RESOURCE/NO_SPACE_LEFT); returns GST_FLOW_ERROR, or GST_FLOW_OK
 * for success. */
GstFlowReturn gst_cv_base_filter_check (GstCvBaseFilter * self, const cudavision::CudaStatus & s,
    const gchar * what);
