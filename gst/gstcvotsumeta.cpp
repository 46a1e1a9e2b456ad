/* cudavision — GstCudaOtsuMeta. */
#include "gstcvotsumeta.h"

GType
gst_cuda_otsu_meta_api_get_type (void)
{
  static gsize type = 0;
  static const gchar *tags[] = { nullptr };
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstCudaOtsuMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static gboolean
gst_cuda_otsu_meta_init (GstMeta * meta, gpointer, GstBuffer *)
{
  ((GstCudaOtsuMeta *) meta)->threshold = 0;
  return TRUE;
}

/* A scalar property of the content: copied on every transform (buffer
 * copies, GstBaseTransform's metadata copy, scaling). */
static gboolean
gst_cuda_otsu_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer *, GQuark, gpointer)
{
  return gst_buffer_add_cuda_otsu_meta (dest, ((GstCudaOtsuMeta *) meta)->threshold) != nullptr;
}

const GstMetaInfo *
gst_cuda_otsu_meta_get_info (void)
{
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CUDA_OTSU_META_API_TYPE, "GstCudaOtsuMeta",
        sizeof (GstCudaOtsuMeta), gst_cuda_otsu_meta_init, nullptr, gst_cuda_otsu_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

GstCudaOtsuMeta *
gst_buffer_add_cuda_otsu_meta (GstBuffer * buffer, guint8 threshold)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  GstCudaOtsuMeta *m = gst_buffer_get_cuda_otsu_meta (buffer);
  if (!m)
    m = (GstCudaOtsuMeta *) gst_buffer_add_meta (buffer, GST_CUDA_OTSU_META_INFO, nullptr);
  if (m)
    m->threshold = threshold;
  return m;
}
