/* cudavision — GstCvKeypointsMeta: points of interest found in a frame
 * (cudaharris's corners; cudaflow can take them as the points to track),
 * attached to the frame the detector outputs.
 *
 * Coordinates are pixels of the frame the meta is attached to (x right,
 * y down, origin at the top-left pixel's centre, as OpenCV's). The meta is
 * tagged "video", "size" and "orientation": elements that keep the frame
 * geometry (GstVideoFilter-based ones) copy it; scalers that announce
 * GST_VIDEO_META_TRANSFORM_IS_SCALE get the points scaled; others drop it.
 * Buffer copies copy it. */
#pragma once

#include <gst/cudavision/cudavision-prelude.h>

G_BEGIN_DECLS

/**
 * GstCvKeypoint:
 * @x: column in pixels
 * @y: row in pixels
 * @score: detector strength (cudaharris: the Harris or Shi-Tomasi response
 *     at the point, as cv::cornerHarris / cv::cornerMinEigenVal give it)
 *
 * One point of interest. A boxed type, so that bindings copy the points
 * they hand out and never point into a meta that went away with its buffer.
 */
typedef struct {
  gfloat x;
  gfloat y;
  gfloat score;
} GstCvKeypoint;

#define GST_TYPE_CV_KEYPOINT (gst_cv_keypoint_get_type ())
GST_CUDA_VISION_API
GType gst_cv_keypoint_get_type (void);

typedef struct _GstCvKeypointsMeta GstCvKeypointsMeta;

/**
 * GstCvKeypointsMeta:
 * @meta: the parent #GstMeta
 * @points: (array length=n): the points, strongest first; owned by the meta
 *     (PyGObject cannot read an array field sized by another field: use
 *     gst_cv_keypoints_meta_get_points ())
 *
 * The points a detector found in the frame the meta is attached to. From C,
 * read the fields, `n` (the number of points) included:
 *
 * |[
 * GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (buf);
 * for (guint i = 0; m && i < m->n; i++)
 *   use (m->points[i].x, m->points[i].y, m->points[i].score);
 * ]|
 *
 * `n` bounds `points` and is read-only: it is private to the bindings,
 * which cannot set it (a larger `n` would let
 * gst_cv_keypoints_meta_get_points () read past the array) and read it with
 * gst_cv_keypoints_meta_get_n (); the points with
 * gst_cv_keypoints_meta_get_points ().
 */
struct _GstCvKeypointsMeta {
  GstMeta meta;
  /*< private >*/
  guint n;  /* number of points; read-only (gst_cv_keypoints_meta_get_n ()) */
  /*< public >*/
  GstCvKeypoint *points;
};

GST_CUDA_VISION_API
GType gst_cv_keypoints_meta_api_get_type (void);
#define GST_CV_KEYPOINTS_META_API_TYPE (gst_cv_keypoints_meta_api_get_type ())

GST_CUDA_VISION_API
const GstMetaInfo *gst_cv_keypoints_meta_get_info (void);
#define GST_CV_KEYPOINTS_META_INFO (gst_cv_keypoints_meta_get_info ())

GST_CUDA_VISION_API
GstCvKeypointsMeta *gst_buffer_get_cv_keypoints_meta (GstBuffer * buffer);

GST_CUDA_VISION_API
GstCvKeypointsMeta *gst_buffer_add_cv_keypoints_meta (GstBuffer * buffer, const GstCvKeypoint * points, guint n);

GST_CUDA_VISION_API
const GstCvKeypoint *gst_cv_keypoints_meta_get_points (const GstCvKeypointsMeta * meta, guint * n);

GST_CUDA_VISION_API
guint gst_cv_keypoints_meta_get_n (const GstCvKeypointsMeta * meta);

G_END_DECLS
