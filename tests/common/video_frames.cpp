/* cudavision tests — frames of any input format as planes (see the
 * header). */
#include "video_frames.h"

#include "test_util.h"

#include <opencv2/imgproc.hpp>

#include <sstream>
#include <stdexcept>

namespace cvtest {

const GstVideoFormat kFourByteRgbFormats[8] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR };

GstVideoInfo
caps_info (const std::string & caps)
{
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  GstVideoInfo info;
  const bool ok = c && gst_video_info_from_caps (&info, c);
  if (c)
    gst_caps_unref (c);
  if (!ok)
    throw std::runtime_error ("caps_info: not video caps: " + caps);
  return info;
}

std::vector<cv::Mat>
caps_planes (GstBuffer * buf, const std::string & caps)
{
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  std::vector<cv::Mat> planes = buffer_planes (buf, c);
  gst_caps_unref (c);
  return planes;
}

GstBuffer *
frame_buffer (const cv::Mat & rgb, GstVideoFormat format, int pad)
{
  GstBuffer *b = rgb_to_buffer (rgb, format);
  return pad > 0 ? with_row_padding (b, format, rgb.cols, rgb.rows, pad) : b;
}

std::string
describe (const FrameCase & c)
{
  return c.what + " " + gst_video_format_to_string (c.format) + " " + std::to_string (c.rgb.cols) + "x" +
      std::to_string (c.rgb.rows) + (c.pad ? " rows padded by " + std::to_string (c.pad) : "");
}

cv::Mat
frame_luma (const std::vector<cv::Mat> & planes, const GstVideoInfo * info)
{
  const GstVideoFormat f = GST_VIDEO_INFO_FORMAT (info);
  if (f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420 || f == GST_VIDEO_FORMAT_GRAY8)
    return planes[0].clone ();
  cv::Mat rgb (info->height, info->width, CV_8UC3), gray;
  const int from_to[] = { (int) GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R), 0,
    (int) GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G), 1,
    (int) GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B), 2 };
  cv::mixChannels (&planes[0], 1, &rgb, 1, from_to, 3);
  cv::cvtColor (rgb, gray, cv::COLOR_RGB2GRAY);
  return gray;
}

CaseInput
case_input (const FrameCase & c)
{
  CaseInput in;
  in.caps = caps_string (c.format, c.rgb.cols, c.rgb.rows);
  in.info = caps_info (in.caps);
  in.buffer = frame_buffer (c.rgb, c.format, c.pad);
  in.planes = caps_planes (in.buffer, in.caps);
  in.luma = frame_luma (in.planes, &in.info);
  return in;
}

std::string
diff_planes (const std::vector<cv::Mat> & got, const std::vector<cv::Mat> & want)
{
  std::ostringstream s;
  if (got.size () != want.size ()) {
    s << got.size () << " planes, expected " << want.size ();
    return s.str ();
  }
  long differing = 0;
  std::string first;
  for (size_t p = 0; p < got.size (); p++) {
    const cv::Mat & g = got[p], & w = want[p];
    if (g.size () != w.size () || g.type () != w.type ()) {
      s << "plane " << p << " is " << size_str (g) << ", expected " << size_str (w);
      return s.str ();
    }
    const int row = g.cols * (int) g.elemSize ();
    for (int y = 0; y < g.rows; y++) {
      const uint8_t *a = g.ptr<uint8_t> (y), *b = w.ptr<uint8_t> (y);
      for (int x = 0; x < row; x++) {
        if (a[x] == b[x])
          continue;
        if (!differing++) {
          std::ostringstream f;
          f << "plane " << p << " row " << y << " byte " << x << ": " << (int) a[x] << ", expected " << (int) b[x];
          first = f.str ();
        }
      }
    }
  }
  if (differing)
    s << differing << " bytes differ; first: " << first;
  return s.str ();
}

::testing::AssertionResult
same_planes (const std::vector<cv::Mat> & got, const std::vector<cv::Mat> & want)
{
  const std::string d = diff_planes (got, want);
  if (!d.empty ())
    return ::testing::AssertionFailure () << d;
  return ::testing::AssertionSuccess ();
}

}  // namespace cvtest
