/* cudavision — element messages about one frame.
 *
 * Elements that report per-frame results on the bus (cudaotsu,
 * cudaharris, cudaflow, cudafacedetect) start the message structure here so the
 * timing fields are the same everywhere: the input buffer's `timestamp`
 * (PTS), `stream-time` and `running-time` (from the element's TIME segment)
 * and `duration`, all guint64, GST_CLOCK_TIME_NONE when unknown. */
#pragma once

#include <gst/base/gstbasetransform.h>

#include <cstddef>

#include "../core/face/face_types.h"

G_BEGIN_DECLS

/* A new structure `name` with the timing fields of `inbuf`; add the
 * results, then post it with gst_cv_post_frame_message. */
GstStructure *gst_cv_frame_message_new (GstBaseTransform * trans, const gchar * name, GstBuffer * inbuf);

/* Posts `s` (taken) as an element message of `trans`. */
void gst_cv_post_frame_message (GstBaseTransform * trans, GstStructure * s);

G_END_DECLS

/* gst-plugins-bad facedetect's message: "facedetect" with the timing
 * fields and `faces`, a list of structures "face" (x, y, width, height,
 * guint), one per face of `faces` (n of them). cudafacedetect's, and
 * cudavision-bench-message's, which times it. */
GstStructure *gst_cv_faces_message_new (GstBaseTransform * trans, GstBuffer * inbuf,
    const cudavision::FaceRect * faces, size_t n);
