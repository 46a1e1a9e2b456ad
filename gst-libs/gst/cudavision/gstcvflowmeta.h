/* cudavision — GstCvFlowMeta: the optical flow cudaflow measured between
 * the previous frame and the frame the meta is attached to.
 *
 * One entry per point tracked into this frame: its position in the
 * previous frame, its position in this one and whether it was tracked.
 * Coordinates are pixels (x right, y down, origin at the centre of the
 * top-left pixel, as OpenCV's). A frame with no previous frame (the first,
 * or the first after a reset) carries a meta with n = 0.
 *
 * Sparse mode lists the points followed from the previous frame (Shi-Tomasi
 * corners, re-detected from time to time), lost ones included with status
 * 0; dense mode lists every point of the grid, in raster order of its
 * `grid_cols` x `grid_rows` cells of `grid_step` pixels (all 0 in sparse
 * mode).
 *
 * The meta is tagged "video", "size" and "orientation": elements keeping
 * the frame geometry copy it; scalers announcing
 * GST_VIDEO_META_TRANSFORM_IS_SCALE get the points scaled; others drop it.
 * Buffer copies copy it, vectors included: a producer may lend the
 * meta its vectors (gst_buffer_add_cv_flow_meta_full (), what cudaflow
 * does with the array the GPU wrote), but a copy always owns its own. */
#pragma once

#include <gst/cudavision/cudavision-prelude.h>

G_BEGIN_DECLS

/**
 * GstCvFlowVector:
 * @prev_x: column in the previous frame
 * @prev_y: row in the previous frame
 * @x: column in this frame (meaningless when @status is 0)
 * @y: row in this frame
 * @status: 1 tracked, 0 lost (cv::calcOpticalFlowPyrLK's status, and 0
 *     when the point left the frame)
 *
 * The motion of one point. A boxed type, so that bindings copy the vectors
 * they hand out.
 */
typedef struct {
  gfloat prev_x;
  gfloat prev_y;
  gfloat x;
  gfloat y;
  guint8 status;
} GstCvFlowVector;

#define GST_TYPE_CV_FLOW_VECTOR (gst_cv_flow_vector_get_type ())
GST_CUDA_VISION_API
GType gst_cv_flow_vector_get_type (void);

typedef struct _GstCvFlowMeta GstCvFlowMeta;

/**
 * GstCvFlowMeta:
 * @meta: the parent #GstMeta
 * @vectors: (array length=n): the vectors; owned by the meta, or lent to
 *     it until it is freed (gst_buffer_add_cv_flow_meta_full ()); either
 *     way valid as long as the meta (PyGObject cannot read an array field
 *     sized by another field: use gst_cv_flow_meta_get_vectors ())
 * @grid_step: dense mode: the grid's cell size in pixels; 0 in sparse mode
 * @grid_cols: dense mode: cells across (n = grid_cols * grid_rows)
 * @grid_rows: dense mode: cells down
 *
 * The flow into the frame the meta is attached to. From C, read the
 * fields, `n` (the number of vectors) included:
 *
 * |[
 * GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (buf);
 * for (guint i = 0; m && i < m->n; i++)
 *   if (m->vectors[i].status)
 *     use (m->vectors[i].prev_x, m->vectors[i].prev_y, m->vectors[i].x, m->vectors[i].y);
 * ]|
 *
 * `n` bounds `vectors` and is read-only: it is private to the bindings,
 * which cannot set it (a larger `n` would let gst_cv_flow_meta_get_vectors ()
 * read past the array) and read it with gst_cv_flow_meta_get_n (); the
 * vectors with gst_cv_flow_meta_get_vectors ().
 */
struct _GstCvFlowMeta {
  GstMeta meta;
  /*< private >*/
  guint n;  /* number of vectors; read-only (gst_cv_flow_meta_get_n ()) */
  /*< public >*/
  GstCvFlowVector *vectors;
  guint grid_step;
  guint grid_cols;
  guint grid_rows;

  /*< private >*/
  GDestroyNotify notify; /* frees @vectors when set, else g_free () does */
  gpointer user_data;
};

GST_CUDA_VISION_API
GType gst_cv_flow_meta_api_get_type (void);
#define GST_CV_FLOW_META_API_TYPE (gst_cv_flow_meta_api_get_type ())

GST_CUDA_VISION_API
const GstMetaInfo *gst_cv_flow_meta_get_info (void);
#define GST_CV_FLOW_META_INFO (gst_cv_flow_meta_get_info ())

GST_CUDA_VISION_API
GstCvFlowMeta *gst_buffer_get_cv_flow_meta (GstBuffer * buffer);

GST_CUDA_VISION_API
GstCvFlowMeta *gst_buffer_add_cv_flow_meta (GstBuffer * buffer, const GstCvFlowVector * vectors, guint n);

GST_CUDA_VISION_API
GstCvFlowMeta *gst_buffer_add_cv_flow_meta_full (GstBuffer * buffer, GstCvFlowVector * vectors, guint n,
    GDestroyNotify notify, gpointer user_data);

GST_CUDA_VISION_API
const GstCvFlowVector *gst_cv_flow_meta_get_vectors (const GstCvFlowMeta * meta, guint * n);

GST_CUDA_VISION_API
guint gst_cv_flow_meta_get_n (const GstCvFlowMeta * meta);

G_END_DECLS
