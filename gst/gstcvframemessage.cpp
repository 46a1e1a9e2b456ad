/* cudavision — element messages about one frame. */
#include "gstcvframemessage.h"

static GstStructure *
frame_message_new_id (GstBaseTransform * trans, GQuark name, GstBuffer * inbuf)
{
  const GstClockTime ts = GST_BUFFER_PTS (inbuf);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE, running_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (trans);
  if (GST_CLOCK_TIME_IS_VALID (ts) && trans->segment.format == GST_FORMAT_TIME) {
    stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, ts);
    running_time = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, ts);
  }
  GST_OBJECT_UNLOCK (trans);
  /* field names as quarks, looked up once (by string each lookup takes
   * GLib's quark lock) */
  static const GQuark q_ts = g_quark_from_static_string ("timestamp"),
                      q_stream = g_quark_from_static_string ("stream-time"),
                      q_running = g_quark_from_static_string ("running-time"),
                      q_duration = g_quark_from_static_string ("duration");
  return gst_structure_new_id (name, q_ts, G_TYPE_UINT64, (guint64) ts, q_stream,
      G_TYPE_UINT64, (guint64) stream_time, q_running, G_TYPE_UINT64, (guint64) running_time, q_duration,
      G_TYPE_UINT64, (guint64) GST_BUFFER_DURATION (inbuf), nullptr);
}

GstStructure *
gst_cv_frame_message_new (GstBaseTransform * trans, const gchar * name, GstBuffer * inbuf)
{
  return frame_message_new_id (trans, g_quark_from_string (name), inbuf);
}

void
gst_cv_post_frame_message (GstBaseTransform * trans, GstStructure * s)
{
  gst_element_post_message (GST_ELEMENT (trans), gst_message_new_element (GST_OBJECT (trans), s));
}

GstStructure *
gst_cv_faces_message_new (GstBaseTransform * trans, GstBuffer * inbuf, const cudavision::FaceRect * faces, size_t n)
{
  /* field names as quarks, looked up once (each lookup by string takes
   * GLib's quark lock: a per-frame cost otherwise) */
  static const GQuark q_face = g_quark_from_static_string ("face"), q_x = g_quark_from_static_string ("x"),
                      q_y = g_quark_from_static_string ("y"), q_width = g_quark_from_static_string ("width"),
                      q_height = g_quark_from_static_string ("height"),
                      q_facedetect = g_quark_from_static_string ("facedetect"),
                      q_faces = g_quark_from_static_string ("faces");
  GValue list = G_VALUE_INIT;
  g_value_init (&list, GST_TYPE_LIST);
  for (size_t i = 0; i < n; i++) {
    const cudavision::FaceRect & r = faces[i];
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new_id (q_face, q_x, G_TYPE_UINT, (guint) r.x, q_y, G_TYPE_UINT,
                                (guint) r.y, q_width, G_TYPE_UINT, (guint) r.width, q_height, G_TYPE_UINT,
                                (guint) r.height, nullptr));
    gst_value_list_append_and_take_value (&list, &v);
  }
  GstStructure *st = frame_message_new_id (trans, q_facedetect, inbuf);
  gst_structure_id_take_value (st, q_faces, &list);
  return st;
}
