/* cudavision — cudafacedetect: Viola-Jones face detection with OpenCV Haar
 * cascades. */
#pragma once

#include "gstcvbasefilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FACE_DETECT (gst_cuda_face_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFaceDetect, gst_cuda_face_detect, GST, CUDA_FACE_DETECT, GstCvBaseFilter)

GST_ELEMENT_REGISTER_DECLARE (cudafacedetect);

G_END_DECLS
