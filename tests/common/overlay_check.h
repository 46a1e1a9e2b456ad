/* cudavision tests — overlays drawn in colour (gst/gstcvoverlay.h,
 * core/draw/canvas.h) checked sample by sample against an independent
 * statement of what a painted pixel is: on packed RGB the colour's R, G,
 * B bytes at the layout's offsets (the alpha byte of RGBA-like formats
 * gets the colour's alpha, a padding byte stays), on GRAY8 255, on NV12
 * and I420 the luma sample and the 4:2:0 chroma sample above it; every
 * other byte of every plane is the input's. */
#pragma once

#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace cvtest {

/* The bytes a colour takes in a format: R, G, B(, A) for packed RGB (in
 * that order, whatever the layout), Y, U, V for NV12 / I420 (by the
 * info's colorimetry), 255 for GRAY8. Literal values are checked by the
 * caps-layout unit test; the element tests take them from here. */
std::vector<uint8_t> overlay_color_bytes (const GstVideoInfo * info, uint32_t argb);

/* `out` (buffer_planes of the output) is `in` (of the input) with
 * exactly `pixels` painted in `argb`: every painted sample holds the
 * colour's byte, every other byte is unchanged. `pixels` may repeat and
 * must be inside the frame. */
::testing::AssertionResult overlay_matches (const std::vector<cv::Mat> & in, const std::vector<cv::Mat> & out,
    const GstVideoInfo * info, uint32_t argb, const std::vector<cv::Point> & pixels);

}  // namespace cvtest
