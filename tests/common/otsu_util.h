/* cudavision tests — cudaotsu through the harness and its OpenCV
 * reference, shared by the CPU and GPU suites. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <opencv2/core.hpp>

#include <string>

namespace cvtest {

/* cv::threshold (THRESH_BINARY[_INV] | THRESH_OTSU): the threshold, and
 * the binarized frame in `out`. */
int opencv_otsu (const cv::Mat & in, cv::Mat & out, bool invert);
/* The threshold alone. */
int opencv_otsu_threshold (const cv::Mat & gray);

/* `element` (a cudaotsu description; attach-meta=true is added unless it
 * says otherwise, since the meta is opt-in in binarize mode) on one GRAY8
 * frame: the output frame (empty when nothing came out) and the meta's
 * threshold in `meta_threshold` (-1 without a meta). `out_feature`: a caps
 * feature for the output (nullptr: system memory). */
cv::Mat otsu_through (const std::string & element, const cv::Mat & in, int *meta_threshold,
    const char *out_feature = nullptr);

/* The same on one frame of any format cudaotsu takes (GRAY8, NV12, I420):
 * `in` (taken) of `format`, width x height, GRAY8 out. With
 * `message_threshold`, post-messages=true is added too and it gets the
 * threshold of the element's one 'cudaotsu' message (-1 without one, -2
 * with more). */
cv::Mat otsu_through_frame (const std::string & element, GstBuffer * in, GstVideoFormat format, int width,
    int height, int *meta_threshold, int *message_threshold = nullptr, const char *out_feature = nullptr);

/* `element` (a cudaotsu description without invert or mode) on one GRAY8
 * frame, as it is and with invert=true: cv::threshold's frame, its
 * threshold in the meta; with mode=threshold-only: the frame unchanged,
 * the threshold in the meta. `what` names the frame in failures. */
void check_otsu (const std::string & element, const cv::Mat & in, const std::string & what);

/* The same on an NV12 or I420 frame of `rgb` (rows padded by `pad` bytes
 * when > 0), out in `out_feature` memory (nullptr: system): the luma
 * plane (what rgb_to_buffer wrote: OpenCV's RGB2YUV_I420) is binarized as
 * cv::threshold binarizes it, the threshold in the meta and the message
 * is OpenCV's, and threshold-only outputs the luma plane as GRAY8. */
void check_otsu_yuv (const std::string & element, const cv::Mat & rgb, GstVideoFormat format, int pad,
    const std::string & what, const char *out_feature = nullptr);

}  // namespace cvtest
