/* cudavision — the latency-frames hold queue (see gstcvholdqueue.h). */
#include "gstcvholdqueue.h"

/* The base class's category: these are its frames. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

void
gst_cv_base_filter_class_install_latency_frames (GObjectClass * klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint ("latency-frames", "Latency in frames",
          "Frames an output waits for its results: 0 = each frame leaves with its results (the streaming thread "
          "waits for the GPU), 1 = a frame leaves when the next one has been queued (no wait on the GPU, one "
          "frame of latency; GPU with device memory on both pads only)",
          0, 1, GST_CV_DEFAULT_LATENCY_FRAMES, GST_CV_PARAM_RW_READY));
}

GstFlowReturn
GstCvHoldQueue::drain (GstCvBaseFilter * self, bool push)
{
  GstBuffer *out = held_out_, *in = held_in_;
  held_out_ = held_in_ = nullptr;
  if (!out)
    return GST_FLOW_OK;
  GstFlowReturn ret = finish_ (self, in, out);
  gst_clear_buffer (&in);
  if (ret != GST_FLOW_OK || !push) {
    gst_buffer_unref (out);
    return ret;
  }
  GST_LOG_OBJECT (self, "pushing the held frame %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (out)));
  ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "held frame pushed: %s", gst_flow_get_name (ret));
  return ret;
}

GstFlowReturn
GstCvHoldQueue::generate_output (GstCvBaseFilter * self, GstBaseTransformClass * parent, bool hold,
    GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  if (!hold) {
    GstFlowReturn ret = drain (self, true);
    return ret != GST_FLOW_OK ? ret : parent->generate_output (trans, outbuf);
  }
  GstBuffer *in = trans->queued_buf ? gst_buffer_ref (trans->queued_buf) : nullptr;
  GstBuffer *out = nullptr;
  hold_this_ = true;
  GstFlowReturn ret = parent->generate_output (trans, &out);
  hold_this_ = false;
  if (ret != GST_FLOW_OK || !out || !in) {
    /* an error (the caller drops `out`), a QoS drop, or no input */
    gst_clear_buffer (&in);
    *outbuf = out;
    return ret;
  }
  GstBuffer *prev_out = held_out_, *prev_in = held_in_;
  held_out_ = out;
  held_in_ = in;
  *outbuf = nullptr;
  if (!prev_out)
    return GST_FLOW_OK;
  ret = finish_ (self, prev_in, prev_out);
  gst_buffer_unref (prev_in);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (prev_out);
    return ret;
  }
  *outbuf = prev_out;
  return GST_FLOW_OK;
}

void
GstCvHoldQueue::add_frame_latency (GstQuery * query, const GstVideoInfo * info)
{
  if (info->fps_n <= 0)
    return;
  gboolean live = FALSE;
  GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
  gst_query_parse_latency (query, &live, &min, &max);
  const GstClockTime frame = gst_util_uint64_scale_int (GST_SECOND, info->fps_d, info->fps_n);
  gst_query_set_latency (query, live, min + frame, GST_CLOCK_TIME_IS_VALID (max) ? max + frame : max);
}
