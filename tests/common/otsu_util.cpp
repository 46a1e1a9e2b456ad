/* cudavision tests — cudaotsu helpers (see the header). */
#include "otsu_util.h"

#include "harness.h"
#include "test_util.h"

#include "gstcvotsumeta.h"

#include <opencv2/imgproc.hpp>

#include <vector>

namespace cvtest {

int
opencv_otsu (const cv::Mat & in, cv::Mat & out, bool invert)
{
  return (int) cv::threshold (in, out, 0, 255, (invert ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY) | cv::THRESH_OTSU);
}

cv::Mat
otsu_through (const std::string & element, const cv::Mat & in, int *meta_threshold, const char *out_feature)
{
  return otsu_through_frame (element, mat_to_buffer (in, GST_VIDEO_FORMAT_GRAY8), GST_VIDEO_FORMAT_GRAY8, in.cols,
      in.rows, meta_threshold, nullptr, out_feature);
}

cv::Mat
otsu_through_frame (const std::string & element, GstBuffer * in, GstVideoFormat format, int width, int height,
    int *meta_threshold, int *message_threshold, const char *out_feature)
{
  const std::string in_caps = caps_string (format, width, height);
  const std::string out_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, width, height, out_feature);
  std::string e = element.find ("attach-meta") == std::string::npos ? element + " attach-meta=true" : element;
  if (message_threshold && e.find ("post-messages") == std::string::npos)
    e += " post-messages=true";
  std::vector<OwnedStructure> messages;
  GstBuffer *out = run_harness (e, in_caps, out_caps, in, message_threshold ? &messages : nullptr);
  if (message_threshold) {
    *message_threshold = -1;
    for (const OwnedStructure & s : messages) {
      guint t = 0;
      if (gst_structure_has_name (s.get (), "cudaotsu") && gst_structure_get_uint (s.get (), "threshold", &t))
        *message_threshold = *message_threshold == -1 ? (int) t : -2;
    }
  }
  if (!out)
    return cv::Mat ();
  GstCudaOtsuMeta *m = gst_buffer_get_cuda_otsu_meta (out);
  *meta_threshold = m ? m->threshold : -1;
  cv::Mat mat = output_mat (out, out_caps);
  gst_buffer_unref (out);
  return mat;
}

}  // namespace cvtest
