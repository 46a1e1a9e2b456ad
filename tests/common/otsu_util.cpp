/* cudavision tests — cudaotsu helpers (see the header). */
#include "otsu_util.h"

#include "harness.h"
#include "test_util.h"
#include "video_frames.h"

#include "gstcvotsumeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <vector>

namespace cvtest {

int
opencv_otsu (const cv::Mat & in, cv::Mat & out, bool invert)
{
  return (int) cv::threshold (in, out, 0, 255, (invert ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY) | cv::THRESH_OTSU);
}

int
opencv_otsu_threshold (const cv::Mat & gray)
{
  cv::Mat unused;
  return opencv_otsu (gray, unused, false);
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
  GstCvOtsuMeta *m = gst_buffer_get_cv_otsu_meta (out);
  *meta_threshold = m ? m->threshold : -1;
  cv::Mat mat = output_mat (out, out_caps);
  gst_buffer_unref (out);
  return mat;
}

void
check_otsu (const std::string & element, const cv::Mat & in, const std::string & what)
{
  for (bool invert : { false, true }) {
    cv::Mat expected;
    const int t = opencv_otsu (in, expected, invert);
    int meta = -2;
    const std::string el = element + (invert ? " invert=true" : "");
    const cv::Mat out = otsu_through (el, in, &meta);
    ASSERT_FALSE (out.empty ()) << what << " " << el;
    EXPECT_EQ (compare (out, expected).differing, 0) << what << " " << el << " threshold " << t;
    EXPECT_EQ (meta, t) << what << " " << el;
  }
  const int t = opencv_otsu_threshold (in);
  int meta = -2;
  const std::string el = element + " mode=threshold-only";
  const cv::Mat out = otsu_through (el, in, &meta);
  ASSERT_FALSE (out.empty ()) << what << " " << el;
  EXPECT_EQ (compare (out, in).differing, 0) << what << " " << el;
  EXPECT_EQ (meta, t) << what << " " << el;
}

void
check_otsu_yuv (const std::string & element, const cv::Mat & rgb, GstVideoFormat format, int pad,
    const std::string & what, const char *out_feature)
{
  const cv::Mat y = expected_gray (rgb, format);
  const std::string where = what + " " + gst_video_format_to_string (format) +
      (pad ? " pad " + std::to_string (pad) : "") + (out_feature ? std::string (" ") + out_feature + " out" : "");
  for (bool invert : { false, true }) {
    cv::Mat expected;
    const int t = opencv_otsu (y, expected, invert);
    int meta = -3, message = -3;
    const std::string el = element + (invert ? " invert=true" : "");
    const cv::Mat out = otsu_through_frame (el, frame_buffer (rgb, format, pad), format, rgb.cols, rgb.rows, &meta,
        &message, out_feature);
    ASSERT_FALSE (out.empty ()) << where << " " << el;
    EXPECT_EQ (compare (out, expected).differing, 0) << where << " " << el << " threshold " << t;
    EXPECT_EQ (meta, t) << where << " " << el;
    EXPECT_EQ (message, t) << where << " " << el;
  }
  const int t = opencv_otsu_threshold (y);
  int meta = -3;
  const std::string el = element + " mode=threshold-only";
  const cv::Mat out = otsu_through_frame (el, frame_buffer (rgb, format, pad), format, rgb.cols, rgb.rows, &meta,
      nullptr, out_feature);
  ASSERT_FALSE (out.empty ()) << where << " " << el;
  EXPECT_EQ (compare (out, y).differing, 0) << where << " " << el;
  EXPECT_EQ (meta, t) << where << " " << el;
}

}  // namespace cvtest
