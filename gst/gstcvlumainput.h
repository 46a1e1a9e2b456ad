/* cudavision — elements that analyse the luma of a frame and pass the
 * frame itself on (cudaharris, cudaflow, cudafacedetect): the negotiated
 * layout, and the luma of a host frame. GRAY8, NV12 and I420 have theirs
 * in plane 0, read where it lies; packed RGB is converted bit-exact to
 * cv::cvtColor (on the GPU each element's own launcher makes its luma:
 * gray.h's luma_and_copy). */
#pragma once

#include "gstcvbasefilter.h"

#include <vector>

struct GstCvLumaInput {
  bool gray = true;                                            /* plane 0 is the luma (GRAY8, NV12, I420), else `layout` */
  bool yuv = false;                                            /* NV12 / I420: chroma planes pass through */
  cudavision::PackedRgb layout = cudavision::PackedRgb::RGBA;
  int bpp = 1;                                                 /* bytes per pixel of plane 0 */
};

/* From negotiated caps; false for formats that are neither GRAY8, NV12,
 * I420 nor packed RGB. */
bool gst_cv_luma_input_set (GstCvLumaInput * in, const GstVideoInfo * info);

/* Plane 0 copied from `src` to `dst` (host frames), whole pixels. */
void gst_cv_luma_input_copy_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src, cudavision::Image8 dst);

/* The planes after the luma (NV12's UV, I420's U and V) of `in` copied to
 * `out`: host frames, or device frames on `stream`. Nothing for the other
 * formats. */
void gst_cv_luma_input_copy_chroma_cpu (const GstCvLumaInput & in, GstVideoFrame * src, GstVideoFrame * dst);
cudavision::CudaStatus gst_cv_luma_input_copy_chroma_gpu (const GstCvLumaInput & in, GstVideoFrame * src,
    GstVideoFrame * dst, cudaStream_t stream);

/* The luma of a host frame: the plane itself for GRAY8, NV12 and I420,
 * else converted into `scratch`. */
cudavision::ConstImage8 gst_cv_luma_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src,
    std::vector<uint8_t> * scratch);
