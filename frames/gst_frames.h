/* cudavision tests — frames out of GStreamer into cv::Mats: images decoded
 * by GStreamer (no cv::imread: imgcodecs is not on the GPU machine) and the
 * frames an appsink receives. Needs GStreamer core, video and app only (no
 * cudavision, no gtest), so the CPU benchmark (bench/bench_cpu.cpp) decodes
 * the bundled images with the same code as the tests. */
#pragma once

#include <gst/gst.h>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* An image (PNG or JPEG, by its extension) as 8-bit RGB, decoded by
 * GStreamer (pngdec / jpegdec); throws when it cannot be decoded. */
cv::Mat load_rgb (const std::string & path);

/* `img` cropped to the aspect of `s` (centred across, at `cy` of the
 * height down) and resized to `s`: INTER_AREA when it shrinks,
 * INTER_LINEAR when it grows. The benchmarks' real frames. */
cv::Mat fit_picture (const cv::Mat & img, cv::Size s, double cy = 0.5);

/* GRAY8 of an RGB image (cv::cvtColor). */
cv::Mat to_gray (const cv::Mat & rgb);

/* Maps (host) and copies plane 0 of a buffer of `caps` into a Mat. */
cv::Mat buffer_to_mat (GstBuffer * buf, GstCaps * caps);

/* Every plane of a buffer of `caps`, mapped on the host and copied: a
 * Mat of the plane's size and bytes per sample each (NV12: Y, then UV as
 * 2 channels; I420: Y, U, V; packed formats: one Mat). */
std::vector<cv::Mat> buffer_planes (GstBuffer * buf, GstCaps * caps);

/* Runs a pipeline ending in "appsink name=out" to EOS and returns every
 * frame it received, mapped on the host; `context` (may be null) is set on
 * the pipeline first. */
std::vector<cv::Mat> pull_frames (const std::string & description, int timeout_s, GstContext * context);

}  // namespace cvtest
