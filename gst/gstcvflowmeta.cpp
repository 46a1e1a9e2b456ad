/* cudavision — GstCvFlowMeta. */
#include "gstcvflowmeta.h"

#include <gst/video/video.h>

GType
gst_cv_flow_meta_api_get_type (void)
{
  static gsize type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, nullptr };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCvFlowMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static gboolean
gst_cv_flow_meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  m->n = 0;
  m->vectors = nullptr;
  m->grid_step = m->grid_cols = m->grid_rows = 0;
  return TRUE;
}

static void
gst_cv_flow_meta_free (GstMeta * meta, GstBuffer *)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  g_free (m->vectors);
  m->vectors = nullptr;
  m->n = 0;
}

static GstCvFlowMeta *
copy_to (GstBuffer * dest, const GstCvFlowMeta * src)
{
  GstCvFlowMeta *d = gst_buffer_add_cv_flow_meta (dest, src->vectors, src->n);
  if (d) {
    d->grid_step = src->grid_step;
    d->grid_cols = src->grid_cols;
    d->grid_rows = src->grid_rows;
  }
  return d;
}

/* Copies keep the vectors; a scale maps both ends into the new frame size
 * (the grid fields then describe the source frame's grid); any other
 * transform is refused so no wrong points leak. */
static gboolean
gst_cv_flow_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark type, gpointer data)
{
  const GstCvFlowMeta *src = (const GstCvFlowMeta *) meta;
  if (GST_META_TRANSFORM_IS_COPY (type))
    return copy_to (dest, src) != nullptr;
  if (!GST_VIDEO_META_TRANSFORM_IS_SCALE (type))
    return FALSE;
  const GstVideoMetaTransform *t = (const GstVideoMetaTransform *) data;
  const gint iw = GST_VIDEO_INFO_WIDTH (t->in_info), ih = GST_VIDEO_INFO_HEIGHT (t->in_info);
  if (iw <= 0 || ih <= 0)
    return FALSE;
  const gfloat sx = (gfloat) GST_VIDEO_INFO_WIDTH (t->out_info) / iw;
  const gfloat sy = (gfloat) GST_VIDEO_INFO_HEIGHT (t->out_info) / ih;
  GstCvFlowMeta *d = copy_to (dest, src);
  if (!d)
    return FALSE;
  for (guint i = 0; i < d->n; i++) {
    GstCvFlowVector & v = d->vectors[i];
    v.prev_x *= sx;
    v.x *= sx;
    v.prev_y *= sy;
    v.y *= sy;
  }
  return TRUE;
}

const GstMetaInfo *
gst_cv_flow_meta_get_info (void)
{
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CV_FLOW_META_API_TYPE, "GstCvFlowMeta", sizeof (GstCvFlowMeta),
        gst_cv_flow_meta_init, gst_cv_flow_meta_free, gst_cv_flow_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

GstCvFlowMeta *
gst_buffer_add_cv_flow_meta (GstBuffer * buffer, const GstCvFlowVector * vectors, guint n)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  g_return_val_if_fail (vectors != nullptr || n == 0, nullptr);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (buffer);
  if (m)
    gst_buffer_remove_meta (buffer, (GstMeta *) m);
  m = (GstCvFlowMeta *) gst_buffer_add_meta (buffer, GST_CV_FLOW_META_INFO, nullptr);
  if (!m)
    return nullptr;
  m->n = n;
  m->vectors = n ? (GstCvFlowVector *) g_memdup2 (vectors, (gsize) n * sizeof (GstCvFlowVector)) : nullptr;
  return m;
}
