#include "harness.h"

namespace cvtest {

GstBuffer *
run_harness (const std::string & element, const std::string & in_caps, const std::string & out_caps, GstBuffer * in)
{
  GstElement *e = gst_parse_launch (element.c_str (), nullptr);
  if (!e)
    return nullptr;
  if (shared_context ())
    gst_element_set_context (e, shared_context ());
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_caps_str (h, in_caps.c_str (), out_caps.c_str ());
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  gst_harness_teardown (h);
  return out;
}

cv::Mat
run_harness_mat (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in)
{
  GstBuffer *out = run_harness (element, in_caps, out_caps, in);
  if (!out)
    return cv::Mat ();
  GstCaps *caps = gst_caps_from_string (out_caps.c_str ());
  cv::Mat m = buffer_to_mat (out, caps);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  return m;
}

cv::Mat
through (const std::string & element, const cv::Mat & in, const char *out_feature)
{
  const GstVideoFormat f = in.channels () == 1 ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGBA;
  return run_harness_mat (element, caps_string (f, in.cols, in.rows), caps_string (f, in.cols, in.rows, out_feature),
      mat_to_buffer (in, f));
}

}  // namespace cvtest
