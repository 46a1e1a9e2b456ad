/* cudavision — cudafacedetect's faces as GstVideoRegionOfInterestMeta: one
 * per face, each with its own id and a "detection" parameter. */
#pragma once

#include <gst/video/video.h>

#include "../core/face/face_types.h"

#include <vector>

/* The structure name and fields of each face's parameter. */
#define GST_CV_FACE_PARAM_NAME "detection"
#define GST_CV_FACE_PARAM_NEIGHBORS "neighbors"
#define GST_CV_FACE_PARAM_SCALE "scale"

/* Adds a region of interest of type `roi_type` for each face, in order,
 * with ids following those of the region metas already on `buf` (0, 1, ...
 * when there are none), so that each is reached by id. Each gets a
 * "detection" structure: `neighbors` (gint, neighbors[i], the raw windows
 * grouped into the face) where known, and `scale` (gdouble, the face's
 * width over `window_width`, the cascade window's). */
void gst_cv_add_face_metas (GstBuffer * buf, GQuark roi_type, const std::vector<cudavision::FaceRect> & faces,
    const std::vector<int> & neighbors, int window_width);
