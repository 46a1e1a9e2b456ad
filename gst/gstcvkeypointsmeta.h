/* cudavision — GstCvKeypointsMeta: points of interest found in a frame
 * (cudaharris's corners; cudaflow can take them as the points to track),
 * attached to the frame the detector outputs.
 *
 * |[
 * GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (buf);
 * for (guint i = 0; m && i < m->n; i++)
 *   use (m->points[i].x, m->points[i].y, m->points[i].score);
 * ]|
 *
 * Coordinates are pixels of the frame the meta is attached to (x right,
 * y down, origin at the top-left pixel's centre, as OpenCV's). The meta is
 * tagged "video", "size" and "orientation": elements that keep the frame
 * geometry (GstVideoFilter-based ones) copy it; scalers that announce
 * GST_VIDEO_META_TRANSFORM_IS_SCALE get the points scaled; others drop it.
 * Buffer copies copy it. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstCvKeypoint:
 * @x: column in pixels
 * @y: row in pixels
 * @score: detector strength (cudaharris: the Harris or Shi-Tomasi response
 *     at the point, as cv::cornerHarris / cv::cornerMinEigenVal give it)
 */
typedef struct {
  gfloat x;
  gfloat y;
  gfloat score;
} GstCvKeypoint;

typedef struct _GstCvKeypointsMeta GstCvKeypointsMeta;

/**
 * GstCvKeypointsMeta:
 * @meta: the parent #GstMeta
 * @n: number of points
 * @points: (array length=n): the points, strongest first; owned by the meta
 */
struct _GstCvKeypointsMeta {
  GstMeta meta;
  guint n;
  GstCvKeypoint *points;
};

GType gst_cv_keypoints_meta_api_get_type (void);
#define GST_CV_KEYPOINTS_META_API_TYPE (gst_cv_keypoints_meta_api_get_type ())

const GstMetaInfo *gst_cv_keypoints_meta_get_info (void);
#define GST_CV_KEYPOINTS_META_INFO (gst_cv_keypoints_meta_get_info ())

#define gst_buffer_get_cv_keypoints_meta(b) \
  ((GstCvKeypointsMeta *) gst_buffer_get_meta ((b), GST_CV_KEYPOINTS_META_API_TYPE))

/* Adds a meta holding a copy of `points` (n may be 0) to a writable
 * buffer, replacing any keypoints meta already there (a buffer carries at
 * most one). */
GstCvKeypointsMeta *gst_buffer_add_cv_keypoints_meta (GstBuffer * buffer, const GstCvKeypoint * points, guint n);

G_END_DECLS
