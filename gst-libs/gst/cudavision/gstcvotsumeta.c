/* cudavision — GstCvOtsuMeta (see gstcvotsumeta.h). */
#include "gstcvotsumeta.h"

GType
gst_cv_otsu_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCvOtsuMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cv_otsu_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  ((GstCvOtsuMeta *) meta)->threshold = 0;
  return TRUE;
}

/* A scalar property of the content: copied on every transform (buffer
 * copies, GstBaseTransform's metadata copy, scaling). */
static gboolean
gst_cv_otsu_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer, GQuark type, gpointer data)
{
  return gst_buffer_add_cv_otsu_meta (dest, ((GstCvOtsuMeta *) meta)->threshold) != NULL;
}

/**
 * gst_cv_otsu_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCvOtsuMeta
 */
const GstMetaInfo *
gst_cv_otsu_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CV_OTSU_META_API_TYPE, "GstCvOtsuMeta",
        sizeof (GstCvOtsuMeta), gst_cv_otsu_meta_init, NULL, gst_cv_otsu_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_cv_otsu_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the Otsu meta of @buffer (a buffer
 *     carries at most one), or %NULL
 */
GstCvOtsuMeta *
gst_buffer_get_cv_otsu_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCvOtsuMeta *) gst_buffer_get_meta (buffer, GST_CV_OTSU_META_API_TYPE);
}

/**
 * gst_buffer_add_cv_otsu_meta:
 * @buffer: a writable #GstBuffer
 * @threshold: the frame's Otsu threshold
 *
 * Adds the meta to @buffer, or updates the one already there (a buffer
 * carries at most one).
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL on failure
 */
GstCvOtsuMeta *
gst_buffer_add_cv_otsu_meta (GstBuffer * buffer, guint8 threshold)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  GstCvOtsuMeta *m = gst_buffer_get_cv_otsu_meta (buffer);
  if (!m)
    m = (GstCvOtsuMeta *) gst_buffer_add_meta (buffer, GST_CV_OTSU_META_INFO, NULL);
  if (m)
    m->threshold = threshold;
  return m;
}
