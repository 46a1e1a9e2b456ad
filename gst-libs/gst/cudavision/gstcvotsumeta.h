/* cudavision — GstCvOtsuMeta: the Otsu threshold cudaotsu computed for a
 * frame, attached to the frame it outputs.
 *
 * The meta has no tags: GstBaseTransform-based elements (our own included)
 * copy it to their output. It describes the frame cudaotsu received, so an
 * element that changes the pixels afterwards carries a threshold of the
 * earlier content. Buffer copies copy it. */
#pragma once

#include <gst/cudavision/cudavision-prelude.h>

G_BEGIN_DECLS

typedef struct _GstCvOtsuMeta GstCvOtsuMeta;

/**
 * GstCvOtsuMeta:
 * @meta: the parent #GstMeta
 * @threshold: the Otsu threshold of the frame, 0..254, identical to what
 *     cv::threshold (frame, dst, 0, 255, THRESH_BINARY | THRESH_OTSU)
 *     returns: pixels strictly above it are the foreground class (255 in
 *     cudaotsu's binarize mode, 0 with invert=true).
 *
 * Downstream elements (cudacanny's automatic thresholds, applications in a
 * pad probe) read it with gst_buffer_get_cv_otsu_meta ():
 *
 * |[
 * GstCvOtsuMeta *m = gst_buffer_get_cv_otsu_meta (buf);
 * if (m)
 *   use (m->threshold);
 * ]|
 */
struct _GstCvOtsuMeta {
  GstMeta meta;
  guint8 threshold;
};

GST_CUDA_VISION_API
GType gst_cv_otsu_meta_api_get_type (void);
#define GST_CV_OTSU_META_API_TYPE (gst_cv_otsu_meta_api_get_type ())

GST_CUDA_VISION_API
const GstMetaInfo *gst_cv_otsu_meta_get_info (void);
#define GST_CV_OTSU_META_INFO (gst_cv_otsu_meta_get_info ())

GST_CUDA_VISION_API
GstCvOtsuMeta *gst_buffer_get_cv_otsu_meta (GstBuffer * buffer);

GST_CUDA_VISION_API
GstCvOtsuMeta *gst_buffer_add_cv_otsu_meta (GstBuffer * buffer, guint8 threshold);

G_END_DECLS
