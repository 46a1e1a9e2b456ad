/* cudavision — mapped video frames: plain views of their planes for the
 * cuda/ and cpu/ APIs, plane copies, the check of a buffer's layout
 * against its caps before anything maps it, and an input mapped on the
 * host top-down. */
#pragma once

#include <gst/video/video.h>

#include "../core/image.h"
#include "../cuda/common/cuda_check.h"

#include <string>

/* Plain views of a mapped frame's plane, for the cuda/ and cpu/ APIs. */
inline cudavision::ConstImage8
gst_cv_frame_const_plane (const GstVideoFrame * f, guint plane)
{
  return { (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (f, plane),
      (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (f, plane), GST_VIDEO_FRAME_COMP_WIDTH (f, plane),
      GST_VIDEO_FRAME_COMP_HEIGHT (f, plane) };
}

inline cudavision::Image8
gst_cv_frame_plane (GstVideoFrame * f, guint plane)
{
  return { (uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (f, plane),
      (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (f, plane), GST_VIDEO_FRAME_COMP_WIDTH (f, plane),
      GST_VIDEO_FRAME_COMP_HEIGHT (f, plane) };
}

/* Every plane of `src` from `first_plane` on copied to `dst` (the same
 * format and size; host or device frames as `kind` says), on `stream`;
 * row widths in bytes come from the format, strides from each frame. */
cudavision::CudaStatus gst_cv_frame_copy_planes (GstVideoFrame * dst, GstVideoFrame * src, guint first_plane,
    cudaMemcpyKind kind, cudaStream_t stream);

/* Whether `meta` stays valid through our elements, which never move
 * pixels: metas tagged only with video, size or orientation (regions of
 * interest, keypoints, face boxes) are kept, as GstVideoFilter does;
 * metas with other tags (memory, colorspace) describe the input buffer. */
bool gst_cv_frame_meta_survives (GstMeta * meta);

/* Whether `buf` fits as a frame of `info` (its caps), checked before
 * anything maps it; else an element error of `element` (STREAM/FORMAT)
 * that says what is wrong with the `what` frame ("input", "output").
 * Negative strides (bottom-up rows) pass only with `bottom_up_ok`. */
bool gst_cv_frame_check_layout (GstElement * element, GstBuffer * buf, const GstVideoInfo * info,
    const gchar * what, bool bottom_up_ok);

/* The input mapped on the host, top-down. A bottom-up frame (negative
 * strides: gst_cv_frame_check_layout lets them through in system memory
 * only) is copied once into a buffer of the caps' default layout:
 * OpenCV's cv::Mat step and cudaMemcpy2D's pitch are unsigned. */
struct GstCvHostInput {
  GstVideoFrame mapped, flat;
  GstBuffer *flat_buf = nullptr;
  bool is_mapped = false, flat_mapped = false;

  /* `inbuf` as a frame of `info`; false after an element error. */
  bool map (GstElement * element, const GstVideoInfo * info, GstBuffer * inbuf);
  GstVideoFrame *frame () { return flat_mapped ? &flat : &mapped; }
  ~GstCvHostInput () {
    if (flat_mapped)
      gst_video_frame_unmap (&flat);
    if (flat_buf)
      gst_buffer_unref (flat_buf);
    if (is_mapped)
      gst_video_frame_unmap (&mapped);
  }
};
