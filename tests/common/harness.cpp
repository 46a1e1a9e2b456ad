#include "harness.h"

namespace cvtest {

GstBuffer *
run_harness (const std::string & element, const std::string & in_caps, const std::string & out_caps, GstBuffer * in,
    std::vector<OwnedStructure> * messages)
{
  GstElement *e = gst_parse_launch (element.c_str (), nullptr);
  if (!e)
    return nullptr;
  if (shared_context ())
    gst_element_set_context (e, shared_context ());
  /* a bare element has no bus of its own: give it one to read back */
  GstBus *bus = messages ? gst_bus_new () : nullptr;
  if (bus)
    gst_element_set_bus (e, bus);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_caps_str (h, in_caps.c_str (), out_caps.c_str ());
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  if (bus) {
    while (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) {
      if (const GstStructure *s = gst_message_get_structure (msg))
        messages->emplace_back (gst_structure_copy (s));
      gst_message_unref (msg);
    }
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
  }
  gst_harness_teardown (h);
  return out;
}

cv::Mat
output_mat (GstBuffer * out, const std::string & caps)
{
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  cv::Mat m = buffer_to_mat (out, c);
  gst_caps_unref (c);
  return m;
}

cv::Mat
run_harness_mat (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in)
{
  GstBuffer *out = run_harness (element, in_caps, out_caps, in);
  if (!out)
    return cv::Mat ();
  cv::Mat m = output_mat (out, out_caps);
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
