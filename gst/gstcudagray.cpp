/**
 * SECTION:element-cudagray
 * @title: cudagray
 *
 * Converts colour video to GRAY8 on an NVIDIA GPU. Packed RGB formats use
 * OpenCV's fixed-point BT.601 weights and rounding, so the result is
 * bit-exact to `cv::cvtColor (src, dst, COLOR_RGB2GRAY)`; NV12 and I420
 * give their Y plane. Frames stay in GPU memory when the next element is a
 * cudavision one; system memory is uploaded and downloaded at the edges.
 * Without a usable GPU the element runs on OpenCV and says so on the bus.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudagray ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! cudagray ! pngenc ! filesink location=gray.png
 * ]|
 */
#include "gstcudagray.h"

#include "../cpu/gray_cpu.h"
#include "../cuda/common/luma.h"

#include <exception>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_gray_debug);
#define GST_CAT_DEFAULT gst_cuda_gray_debug

#define GRAY_PACKED_FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR"
#define GRAY_IN_FORMATS "{ " GRAY_PACKED_FORMATS ", NV12, I420 }"

struct _GstCudaGray {
  GstCvBaseFilter parent;
  bool planar_y;                  /* NV12 / I420: copy the Y plane */
  cudavision::PackedRgb layout;   /* otherwise: the packed layout */
};

G_DEFINE_TYPE (GstCudaGray, gst_cuda_gray, GST_TYPE_CV_BASE_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudagray, "cudagray", GST_RANK_NONE, GST_TYPE_CUDA_GRAY);

static GstCaps *
gst_cuda_gray_transform_video_caps (GstCvBaseFilter *, GstPadDirection direction, GstCaps * caps)
{
  return gst_cv_caps_map_to_format (direction, caps, "GRAY8");
}

static gboolean
gst_cuda_gray_set_info (GstCvBaseFilter * base, const GstVideoInfo * in, const GstVideoInfo *)
{
  GstCudaGray *self = GST_CUDA_GRAY (base);
  const GstVideoFormat f = GST_VIDEO_INFO_FORMAT (in);
  self->planar_y = f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420;
  if (!self->planar_y && !gst_cv_packed_rgb_layout (f, &self->layout)) {
    GST_ERROR_OBJECT (self, "unsupported input %s", GST_VIDEO_INFO_NAME (in));
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_cuda_gray_process_gpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaGray *self = GST_CUDA_GRAY (base);
  cudaStream_t stream = gst_cv_base_filter_stream (base);
  cudavision::Image8 dst = gst_cv_frame_plane (out, 0);
  if (self->planar_y)
    return gst_cv_base_filter_check (base,
        cudavision::copy_plane (gst_cv_frame_const_plane (in, 0), dst, dst.width, stream), "Y plane copy");
  return gst_cv_base_filter_check (base,
      cudavision::rgb_to_gray (gst_cv_frame_const_plane (in, 0), self->layout, dst,
          gst_cv_base_filter_policy (base), stream),
      "colour conversion");
}

static GstFlowReturn
gst_cuda_gray_process_cpu (GstCvBaseFilter * base, GstBuffer *, GstVideoFrame * in, GstVideoFrame * out)
{
  GstCudaGray *self = GST_CUDA_GRAY (base);
  const cudavision::ConstImage8 src = gst_cv_frame_const_plane (in, 0);
  /* an exception must not unwind through GStreamer's C frames */
  try {
    if (self->planar_y)
      cudavision::cpu::copy_plane (src, gst_cv_frame_plane (out, 0));
    else
      cudavision::cpu::rgb_to_gray (src, self->layout, gst_cv_frame_plane (out, 0));
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("OpenCV failed on a %dx%d frame", src.width, src.height),
        ("%s", e.what ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_cuda_gray_class_init (GstCudaGrayClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvBaseFilterClass *cv_class = GST_CV_BASE_FILTER_CLASS (klass);

  gst_element_class_set_static_metadata (element_class, "CUDA colour to grey", "Filter/Converter/Video/Hardware",
      "Converts colour video to GRAY8 on an NVIDIA GPU, bit-exact to OpenCV's cvtColor",
      "cudavision developers");
  /* GstCudaMemory holds every input format but GRAY8, so all are offered. */
  gst_cv_base_filter_class_add_pad_templates (element_class, GRAY_IN_FORMATS, "GRAY8");

  cv_class->transform_video_caps = gst_cuda_gray_transform_video_caps;
  cv_class->set_info = gst_cuda_gray_set_info;
  cv_class->process_gpu = gst_cuda_gray_process_gpu;
  cv_class->process_cpu = gst_cuda_gray_process_cpu;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_gray_debug, "cudavision-gray", 0, "cudagray element");
}

static void
gst_cuda_gray_init (GstCudaGray *)
{
}
