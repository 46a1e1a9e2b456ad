#include "gst_frames.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <stdexcept>

namespace cvtest {

/* Decoded with GStreamer's pngdec / jpegdec rather than cv::imread:
 * the tests need no OpenCV module beyond the ones the plugin uses
 * (imgcodecs is not one of them). */
cv::Mat
load_rgb (const std::string & path)
{
  const bool png = path.size () > 4 && path.compare (path.size () - 4, 4, ".png") == 0;
  const std::string desc = "filesrc location=\"" + path + "\" ! " + (png ? "pngdec" : "jpegdec") +
      " ! videoconvert ! video/x-raw,format=RGB ! appsink name=out sync=false";
  std::vector<cv::Mat> frames = pull_frames (desc, 30, nullptr);
  if (frames.size () != 1)
    throw std::runtime_error ("cannot decode " + path);
  return frames[0];
}

cv::Mat
fit_picture (const cv::Mat & img, cv::Size s, double cy)
{
  cv::Rect r (0, 0, img.cols, img.rows);
  if ((double) img.cols / img.rows > (double) s.width / s.height) {
    r.width = (int) std::lround ((double) img.rows * s.width / s.height);
    r.x = (img.cols - r.width) / 2;
  } else {
    r.height = (int) std::lround ((double) img.cols * s.height / s.width);
    r.y = std::clamp ((int) std::lround (cy * img.rows - r.height / 2.0), 0, img.rows - r.height);
  }
  cv::Mat out;
  cv::resize (img (r), out, s, 0, 0, s.width > r.width ? cv::INTER_LINEAR : cv::INTER_AREA);
  return out;
}

cv::Mat
to_gray (const cv::Mat & rgb)
{
  cv::Mat g;
  cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
  return g;
}

cv::Mat
buffer_to_mat (GstBuffer * buf, GstCaps * caps)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    throw std::runtime_error ("buffer_to_mat: caps are not video");
  GstVideoFrame f;
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_READ))
    throw std::runtime_error ("buffer_to_mat: cannot map");
  const int bpp = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);
  cv::Mat view (info.height, info.width, CV_8UC (bpp), GST_VIDEO_FRAME_PLANE_DATA (&f, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0));
  cv::Mat out = view.clone ();
  gst_video_frame_unmap (&f);
  return out;
}

std::vector<cv::Mat>
buffer_planes (GstBuffer * buf, GstCaps * caps)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    throw std::runtime_error ("buffer_planes: caps are not video");
  GstVideoFrame f;
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_READ))
    throw std::runtime_error ("buffer_planes: cannot map");
  std::vector<cv::Mat> planes;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comps);
    const int c = comps[0];
    const int bytes = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
    cv::Mat view (GST_VIDEO_FRAME_COMP_HEIGHT (&f, c), GST_VIDEO_FRAME_COMP_WIDTH (&f, c), CV_8UC (bytes),
        GST_VIDEO_FRAME_PLANE_DATA (&f, p), GST_VIDEO_FRAME_PLANE_STRIDE (&f, p));
    planes.push_back (view.clone ());
  }
  gst_video_frame_unmap (&f);
  return planes;
}

std::vector<cv::Mat>
pull_frames (const std::string & description, int timeout_s, GstContext * context)
{
  std::vector<cv::Mat> frames;
  GstElement *pipe = gst_parse_launch (description.c_str (), nullptr);
  if (!pipe)
    return frames;
  if (context)
    gst_element_set_context (pipe, context);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (true) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), (GstClockTime) timeout_s * GST_SECOND);
    if (!s)
      break;
    frames.push_back (buffer_to_mat (gst_sample_get_buffer (s), gst_sample_get_caps (s)));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return frames;
}

}  // namespace cvtest
