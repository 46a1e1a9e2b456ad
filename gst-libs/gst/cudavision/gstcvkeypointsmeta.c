/* cudavision — GstCvKeypointsMeta (see gstcvkeypointsmeta.h). */
#include "gstcvkeypointsmeta.h"

#include <gst/video/video.h>

static GstCvKeypoint *
gst_cv_keypoint_copy (const GstCvKeypoint * point)
{
  return g_memdup2 (point, sizeof (GstCvKeypoint));
}

G_DEFINE_BOXED_TYPE (GstCvKeypoint, gst_cv_keypoint, gst_cv_keypoint_copy, g_free);

GType
gst_cv_keypoints_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, NULL };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCvKeypointsMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cv_keypoints_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCvKeypointsMeta *m = (GstCvKeypointsMeta *) meta;
  m->n = 0;
  m->points = NULL;
  return TRUE;
}

static void
gst_cv_keypoints_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCvKeypointsMeta *m = (GstCvKeypointsMeta *) meta;
  g_free (m->points);
  m->points = NULL;
  m->n = 0;
}

/* Copies keep the points; a scale maps them into the new frame size; any
 * other transform (crops, rotations) is refused so no wrong points leak. */
static gboolean
gst_cv_keypoints_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer, GQuark type,
    gpointer data)
{
  const GstCvKeypointsMeta *src = (const GstCvKeypointsMeta *) meta;
  if (GST_META_TRANSFORM_IS_COPY (type))
    return gst_buffer_add_cv_keypoints_meta (dest, src->points, src->n) != NULL;
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    const GstVideoMetaTransform *t = (const GstVideoMetaTransform *) data;
    const gint iw = GST_VIDEO_INFO_WIDTH (t->in_info), ih = GST_VIDEO_INFO_HEIGHT (t->in_info);
    if (iw <= 0 || ih <= 0)
      return FALSE;
    const gfloat sx = (gfloat) GST_VIDEO_INFO_WIDTH (t->out_info) / iw;
    const gfloat sy = (gfloat) GST_VIDEO_INFO_HEIGHT (t->out_info) / ih;
    GstCvKeypointsMeta *d = gst_buffer_add_cv_keypoints_meta (dest, src->points, src->n);
    if (!d)
      return FALSE;
    for (guint i = 0; i < d->n; i++) {
      d->points[i].x *= sx;
      d->points[i].y *= sy;
    }
    return TRUE;
  }
  return FALSE;
}

/**
 * gst_cv_keypoints_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCvKeypointsMeta
 */
const GstMetaInfo *
gst_cv_keypoints_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CV_KEYPOINTS_META_API_TYPE, "GstCvKeypointsMeta",
        sizeof (GstCvKeypointsMeta), gst_cv_keypoints_meta_init, gst_cv_keypoints_meta_free,
        gst_cv_keypoints_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_cv_keypoints_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the keypoints meta of @buffer (a
 *     buffer carries at most one), or %NULL
 */
GstCvKeypointsMeta *
gst_buffer_get_cv_keypoints_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCvKeypointsMeta *) gst_buffer_get_meta (buffer, GST_CV_KEYPOINTS_META_API_TYPE);
}

/**
 * gst_buffer_add_cv_keypoints_meta:
 * @buffer: a writable #GstBuffer
 * @points: (array length=n) (nullable): the points, strongest first
 * @n: number of points, may be 0
 *
 * Adds a meta holding a copy of @points to @buffer, replacing any keypoints
 * meta already there (a buffer carries at most one).
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL on failure
 */
GstCvKeypointsMeta *
gst_buffer_add_cv_keypoints_meta (GstBuffer * buffer, const GstCvKeypoint * points, guint n)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (points != NULL || n == 0, NULL);
  GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (buffer);
  if (m)
    gst_buffer_remove_meta (buffer, (GstMeta *) m);
  m = (GstCvKeypointsMeta *) gst_buffer_add_meta (buffer, GST_CV_KEYPOINTS_META_INFO, NULL);
  if (!m)
    return NULL;
  m->n = n;
  m->points = n ? (GstCvKeypoint *) g_memdup2 (points, (gsize) n * sizeof (GstCvKeypoint)) : NULL;
  return m;
}

/**
 * gst_cv_keypoints_meta_get_points:
 * @meta: a #GstCvKeypointsMeta
 * @n: (out): number of points
 *
 * The points of the meta, for bindings (C reads @meta->points directly).
 *
 * Returns: (array length=n) (transfer none) (nullable): the points,
 *     strongest first, owned by @meta; %NULL when there are none
 */
const GstCvKeypoint *
gst_cv_keypoints_meta_get_points (const GstCvKeypointsMeta * meta, guint * n)
{
  g_return_val_if_fail (meta != NULL && n != NULL, NULL);
  *n = meta->n;
  return meta->points;
}

/**
 * gst_cv_keypoints_meta_get_n:
 * @meta: a #GstCvKeypointsMeta
 *
 * The number of points of the meta: its `n`, which bindings can read but
 * never set (C reads @meta->n directly).
 *
 * Returns: the number of points
 */
guint
gst_cv_keypoints_meta_get_n (const GstCvKeypointsMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);
  return meta->n;
}
