/* cudavision — cudafacedetect's region-of-interest metas (see
 * gstcvfacemeta.h). */
#include "gstcvfacemeta.h"

/* The first id after those of the region metas on `buf`: an upstream
 * region (a "person", a tracker's object) keeps its id, and no face
 * shadows it in a lookup by id. */
static gint
first_free_id (GstBuffer * buf)
{
  gint next = 0;
  gpointer state = nullptr;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const gint id = ((GstVideoRegionOfInterestMeta *) m)->id;
    if (id >= next)
      next = id == G_MAXINT ? id : id + 1;
  }
  return next;
}

void
gst_cv_add_face_metas (GstBuffer * buf, GQuark roi_type, const std::vector<cudavision::FaceRect> & faces,
    const std::vector<int> & neighbors, int window_width)
{
  if (faces.empty ())
    return;
  /* looked up once: a lookup by string takes GLib's quark lock, per face */
  static const GQuark name = g_quark_from_static_string (GST_CV_FACE_PARAM_NAME);
  static const GQuark neighbors_field = g_quark_from_static_string (GST_CV_FACE_PARAM_NEIGHBORS);
  static const GQuark scale_field = g_quark_from_static_string (GST_CV_FACE_PARAM_SCALE);
  gint id = first_free_id (buf);
  for (size_t i = 0; i < faces.size (); i++) {
    const cudavision::FaceRect & r = faces[i];
    GstVideoRegionOfInterestMeta *meta = gst_buffer_add_video_region_of_interest_meta_id (buf, roi_type,
        (guint) r.x, (guint) r.y, (guint) r.width, (guint) r.height);
    meta->id = id++;
    GstStructure *s = gst_structure_new_id_empty (name);
    if (i < neighbors.size ())
      gst_structure_id_set (s, neighbors_field, G_TYPE_INT, neighbors[i], nullptr);
    if (window_width > 0)
      gst_structure_id_set (s, scale_field, G_TYPE_DOUBLE, (double) r.width / window_width, nullptr);
    gst_video_region_of_interest_meta_add_param (meta, s);
  }
}
