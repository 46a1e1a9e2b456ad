/* cudavision — GstCudaOtsuMeta (see gstcvotsumeta.h). */
#include "gstcvotsumeta.h"

GType
gst_cuda_otsu_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCudaOtsuMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cuda_otsu_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  ((GstCudaOtsuMeta *) meta)->threshold = 0;
  return TRUE;
}

/* A scalar property of the content: copied on every transform (buffer
 * copies, GstBaseTransform's metadata copy, scaling). */
static gboolean
gst_cuda_otsu_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer, GQuark type, gpointer data)
{
  return gst_buffer_add_cuda_otsu_meta (dest, ((GstCudaOtsuMeta *) meta)->threshold) != NULL;
}

/**
 * gst_cuda_otsu_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCudaOtsuMeta
 */
const GstMetaInfo *
gst_cuda_otsu_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CUDA_OTSU_META_API_TYPE, "GstCudaOtsuMeta",
        sizeof (GstCudaOtsuMeta), gst_cuda_otsu_meta_init, NULL, gst_cuda_otsu_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_cuda_otsu_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the Otsu meta of @buffer (a buffer
 *     carries at most one), or %NULL
 */
GstCudaOtsuMeta *
gst_buffer_get_cuda_otsu_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCudaOtsuMeta *) gst_buffer_get_meta (buffer, GST_CUDA_OTSU_META_API_TYPE);
}

/**
 * gst_buffer_add_cuda_otsu_meta:
 * @buffer: a writable #GstBuffer
 * @threshold: the frame's Otsu threshold
 *
 * Adds the meta to @buffer, or updates the one already there (a buffer
 * carries at most one).
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL on failure
 */
GstCudaOtsuMeta *
gst_buffer_add_cuda_otsu_meta (GstBuffer * buffer, guint8 threshold)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  GstCudaOtsuMeta *m = gst_buffer_get_cuda_otsu_meta (buffer);
  if (!m)
    m = (GstCudaOtsuMeta *) gst_buffer_add_meta (buffer, GST_CUDA_OTSU_META_INFO, NULL);
  if (m)
    m->threshold = threshold;
  return m;
}
