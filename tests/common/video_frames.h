/* cudavision tests — input frames of any format the elements take, as
 * planes: the GstVideoInfo of a caps string, a buffer's planes, padded
 * frames, the luma the elements analyse, and byte-for-byte comparisons of
 * planes, shared by every suite that feeds YUV and packed RGB. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* Every 4-byte RGB layout: an alpha or a padding byte after or before
 * the colours, in either order. */
extern const GstVideoFormat kFourByteRgbFormats[8];

/* The GstVideoInfo of a caps string (throws when it is not video). */
GstVideoInfo caps_info (const std::string & caps);

/* Every plane of `buf`, a frame of `caps` (buffer_planes). */
std::vector<cv::Mat> caps_planes (GstBuffer * buf, const std::string & caps);

/* rgb_to_buffer's frame of `rgb` in `format`, its rows padded by `pad`
 * bytes (with_row_padding) when `pad` > 0. */
GstBuffer *frame_buffer (const cv::Mat & rgb, GstVideoFormat format, int pad = 0);

/* An input frame: `rgb` in `format`, its rows padded by `pad` bytes. */
struct FrameCase {
  std::string what;
  cv::Mat rgb;
  GstVideoFormat format;
  int pad = 0;
};
/* "what FORMAT WxH[ rows padded by N]" for traces. */
std::string describe (const FrameCase & c);

/* A FrameCase as an element gets it: its caps, their video info, the
 * frame (frame_buffer's, the caller's to push or unref), the frame's
 * planes and its frame_luma. */
struct CaseInput {
  std::string caps;
  GstVideoInfo info;
  GstBuffer *buffer;
  std::vector<cv::Mat> planes;
  cv::Mat luma;
};
CaseInput case_input (const FrameCase & c);

/* The luma the elements analyse, from a frame's own bytes (its
 * caps_planes): the Y plane of NV12 and I420 (and GRAY8) as it lies,
 * cv::cvtColor's RGB2GRAY of the R, G and B bytes of packed RGB, wherever
 * the layout has them. */
cv::Mat frame_luma (const std::vector<cv::Mat> & planes, const GstVideoInfo * info);

/* Same planes, byte for byte? Empty when equal, else how many bytes
 * differ and the first. */
std::string diff_planes (const std::vector<cv::Mat> & got, const std::vector<cv::Mat> & want);

/* The same test as an assertion: the message is diff_planes'. */
::testing::AssertionResult same_planes (const std::vector<cv::Mat> & got, const std::vector<cv::Mat> & want);

}  // namespace cvtest
