/* cudavision — element messages about one frame. */
#include "gstcvframemessage.h"

GstStructure *
gst_cv_frame_message_new (GstBaseTransform * trans, const gchar * name, GstBuffer * inbuf)
{
  const GstClockTime ts = GST_BUFFER_PTS (inbuf);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE, running_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (trans);
  if (GST_CLOCK_TIME_IS_VALID (ts) && trans->segment.format == GST_FORMAT_TIME) {
    stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, ts);
    running_time = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, ts);
  }
  GST_OBJECT_UNLOCK (trans);
  return gst_structure_new (name, "timestamp", G_TYPE_UINT64, (guint64) ts, "stream-time", G_TYPE_UINT64,
      (guint64) stream_time, "running-time", G_TYPE_UINT64, (guint64) running_time, "duration", G_TYPE_UINT64,
      (guint64) GST_BUFFER_DURATION (inbuf), nullptr);
}

void
gst_cv_post_frame_message (GstBaseTransform * trans, GstStructure * s)
{
  gst_element_post_message (GST_ELEMENT (trans), gst_message_new_element (GST_OBJECT (trans), s));
}
