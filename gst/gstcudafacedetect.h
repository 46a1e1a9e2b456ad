/* cudavision — cudafacedetect: Viola-Jones face detection with OpenCV Haar
 * cascades. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

/**
 * GstCudaFaceDetectUpdates:
 * @GST_CUDA_FACE_DETECT_UPDATES_EVERY_FRAME: a message for every frame
 * @GST_CUDA_FACE_DETECT_UPDATES_ON_CHANGE: when faces appear in a frame
 *   after one without, or vanish
 * @GST_CUDA_FACE_DETECT_UPDATES_ON_FACE: for every frame with faces
 * @GST_CUDA_FACE_DETECT_UPDATES_NONE: no messages
 *
 * When cudafacedetect posts its "facedetect" message (the values and nicks
 * of gst-plugins-bad's facedetect `updates`).
 */
typedef enum {
  GST_CUDA_FACE_DETECT_UPDATES_EVERY_FRAME = 0,
  GST_CUDA_FACE_DETECT_UPDATES_ON_CHANGE = 1,
  GST_CUDA_FACE_DETECT_UPDATES_ON_FACE = 2,
  GST_CUDA_FACE_DETECT_UPDATES_NONE = 3,
} GstCudaFaceDetectUpdates;

#define GST_TYPE_CUDA_FACE_DETECT_UPDATES (gst_cuda_face_detect_updates_get_type ())
GType gst_cuda_face_detect_updates_get_type (void);

#define GST_TYPE_CUDA_FACE_DETECT (gst_cuda_face_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFaceDetect, gst_cuda_face_detect, GST, CUDA_FACE_DETECT, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudafacedetect);

G_END_DECLS
