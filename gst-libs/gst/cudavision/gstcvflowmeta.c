/* cudavision — GstCvFlowMeta (see gstcvflowmeta.h). */
#include "gstcvflowmeta.h"

#include <gst/video/video.h>

static GstCvFlowVector *
gst_cv_flow_vector_copy (const GstCvFlowVector * vector)
{
  return g_memdup2 (vector, sizeof (GstCvFlowVector));
}

G_DEFINE_BOXED_TYPE (GstCvFlowVector, gst_cv_flow_vector, gst_cv_flow_vector_copy, g_free);

GType
gst_cv_flow_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, NULL };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCvFlowMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cv_flow_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  m->n = 0;
  m->vectors = NULL;
  m->grid_step = m->grid_cols = m->grid_rows = 0;
  m->notify = NULL;
  m->user_data = NULL;
  return TRUE;
}

static void
gst_cv_flow_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  if (m->notify)
    m->notify (m->user_data);
  else
    g_free (m->vectors);
  m->notify = NULL;
  m->user_data = NULL;
  m->vectors = NULL;
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

/* Copies keep the vectors (in an array of their own, even when the source
 * borrows its vectors: gst_buffer_add_cv_flow_meta copies); a scale maps
 * both ends into the new frame size (the grid fields then describe the
 * source frame's grid); any other transform is refused so no wrong points
 * leak. */
static gboolean
gst_cv_flow_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer, GQuark type, gpointer data)
{
  const GstCvFlowMeta *src = (const GstCvFlowMeta *) meta;
  if (GST_META_TRANSFORM_IS_COPY (type))
    return copy_to (dest, src) != NULL;
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
    GstCvFlowVector *v = &d->vectors[i];
    v->prev_x *= sx;
    v->x *= sx;
    v->prev_y *= sy;
    v->y *= sy;
  }
  return TRUE;
}

/**
 * gst_cv_flow_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCvFlowMeta
 */
const GstMetaInfo *
gst_cv_flow_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CV_FLOW_META_API_TYPE, "GstCvFlowMeta", sizeof (GstCvFlowMeta),
        gst_cv_flow_meta_init, gst_cv_flow_meta_free, gst_cv_flow_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_cv_flow_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the flow meta of @buffer (a buffer
 *     carries at most one), or %NULL
 */
GstCvFlowMeta *
gst_buffer_get_cv_flow_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCvFlowMeta *) gst_buffer_get_meta (buffer, GST_CV_FLOW_META_API_TYPE);
}

/* A new, empty flow meta on @buffer, in place of the one it carried (a
 * buffer carries at most one). */
static GstCvFlowMeta *
replace_meta (GstBuffer * buffer)
{
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (buffer);
  if (m)
    gst_buffer_remove_meta (buffer, (GstMeta *) m);
  return (GstCvFlowMeta *) gst_buffer_add_meta (buffer, GST_CV_FLOW_META_INFO, NULL);
}

/**
 * gst_buffer_add_cv_flow_meta:
 * @buffer: a writable #GstBuffer
 * @vectors: (array length=n) (nullable): the vectors
 * @n: number of vectors, may be 0
 *
 * Adds a meta holding a copy of @vectors to @buffer, replacing any flow
 * meta already there (a buffer carries at most one); the grid fields are 0.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL on failure
 */
GstCvFlowMeta *
gst_buffer_add_cv_flow_meta (GstBuffer * buffer, const GstCvFlowVector * vectors, guint n)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (vectors != NULL || n == 0, NULL);
  GstCvFlowMeta *m = replace_meta (buffer);
  if (!m)
    return NULL;
  m->n = n;
  m->vectors = n ? (GstCvFlowVector *) g_memdup2 (vectors, (gsize) n * sizeof (GstCvFlowVector)) : NULL;
  return m;
}

/**
 * gst_buffer_add_cv_flow_meta_full: (skip)
 * @buffer: a writable #GstBuffer
 * @vectors: (array length=n) (nullable): the vectors, lent to the meta
 * @n: number of vectors, may be 0
 * @notify: (nullable): called with @user_data when the meta no longer
 *     needs @vectors
 * @user_data: what @notify gets
 *
 * Like gst_buffer_add_cv_flow_meta (), without copying: the meta points at
 * @vectors, which must stay valid (and be written by no one else) until
 * @notify (@user_data) is called, once, when the meta is freed (with the
 * buffer, or replaced by another flow meta). If the meta cannot be added,
 * @notify is called before this returns. Copies of the buffer get a copy
 * of the vectors. For producers whose vectors already are in memory of
 * their own per frame (cudaflow: the page-locked block the GPU wrote);
 * with @notify %NULL the meta takes @vectors and g_free ()s it.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL on failure
 */
GstCvFlowMeta *
gst_buffer_add_cv_flow_meta_full (GstBuffer * buffer, GstCvFlowVector * vectors, guint n, GDestroyNotify notify,
    gpointer user_data)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (vectors != NULL || n == 0, NULL);
  GstCvFlowMeta *m = replace_meta (buffer);
  if (!m) {
    if (notify)
      notify (user_data);
    else
      g_free (vectors);
    return NULL;
  }
  m->n = n;
  m->vectors = vectors;
  m->notify = notify;
  m->user_data = user_data;
  return m;
}

/**
 * gst_cv_flow_meta_get_vectors:
 * @meta: a #GstCvFlowMeta
 * @n: (out): number of vectors
 *
 * The vectors of the meta, for bindings (C reads @meta->vectors directly).
 *
 * Returns: (array length=n) (transfer none) (nullable): the vectors, owned
 *     by @meta; %NULL when there are none
 */
const GstCvFlowVector *
gst_cv_flow_meta_get_vectors (const GstCvFlowMeta * meta, guint * n)
{
  g_return_val_if_fail (meta != NULL && n != NULL, NULL);
  *n = meta->n;
  return meta->vectors;
}

/**
 * gst_cv_flow_meta_get_n:
 * @meta: a #GstCvFlowMeta
 *
 * The number of vectors of the meta: its `n`, which bindings can read but
 * never set (C reads @meta->n directly).
 *
 * Returns: the number of vectors
 */
guint
gst_cv_flow_meta_get_n (const GstCvFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);
  return meta->n;
}
