/* Hostile input on the CPU backend, every element (tests/common/
 * hostile_frames.h): GstVideoMeta strides smaller than a row, rows and
 * offsets past the end of the buffer, NV12 chroma past the end, a plane
 * across two memories, metas of another size or format, each refused with
 * an error naming the problem (these aborted on an uncaught cv::Exception
 * or read past the buffer); bottom-up frames (negative strides) read as
 * the same frames top-down. And what the CPU backend says where it cannot
 * do what was asked: device memory on either pad, GPU-only properties. */
#include "../common/hostile_frames.h"

#include "../../cuda/common/device_info.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

using namespace cvtest;

/* Every CUDA device hidden before anything touches CUDA (as
 * test_no_gpu.cpp's main does): backend=auto runs on the CPU here on any
 * machine. */
static const bool devices_hidden = g_setenv ("CUDA_VISIBLE_DEVICES", "-1", TRUE);

static const std::string kCpu = "backend=cpu";

/* One test per element, format and lie (gtest_filter picks one, e.g.
 * '*cudablur_GRAY8_HugeStride'). */
class HostileLayoutCpu : public ::testing::TestWithParam<HostileParam> {};
TEST_P (HostileLayoutCpu, IsRefused) { check_hostile_case (GetParam (), kCpu); }
INSTANTIATE_TEST_SUITE_P (Every, HostileLayoutCpu, ::testing::ValuesIn (hostile_params ()), hostile_param_name);

class BottomUpCpu : public ::testing::TestWithParam<ElementFormat> {};
TEST_P (BottomUpCpu, IsReadTopDown) { check_bottom_up (GetParam (), kCpu); }
INSTANTIATE_TEST_SUITE_P (Every, BottomUpCpu, ::testing::ValuesIn (element_formats ()), element_format_name);

/* Independent of the elements' own top-down output: cudagray and cudablur
 * on bottom-up frames against OpenCV on the image as it is seen. */
TEST (HostileCpu, BottomUpMatchesOpenCV)
{
  const InFrame rgba { GST_VIDEO_FORMAT_RGBA, 161, 121, 0 }, gray { GST_VIDEO_FORMAT_GRAY8, 161, 121, 0 };
  GstCaps *rgba_caps = gst_caps_from_string (frame_caps (rgba).c_str ());
  GstCaps *gray_caps = gst_caps_from_string (frame_caps (gray).c_str ());
  GstBuffer *top_down = make_frame (rgba);
  const cv::Mat seen_rgba = buffer_to_mat (top_down, rgba_caps);
  gst_buffer_unref (top_down);
  cv::Mat want_gray;
  cv::cvtColor (seen_rgba, want_gray, cv::COLOR_RGBA2GRAY);
  GstBuffer *out = run_harness ("cudagray " + kCpu, frame_caps (rgba), frame_caps (gray), bottom_up_frame (rgba));
  ASSERT_TRUE (out) << "cudagray refused a bottom-up frame";
  const cv::Mat got_gray = buffer_to_mat (out, gray_caps);
  gst_buffer_unref (out);
  EXPECT_EQ (compare (got_gray, want_gray).differing, 0) << "cudagray, bottom-up RGBA";

  top_down = make_frame (gray);
  const cv::Mat seen_gray = buffer_to_mat (top_down, gray_caps);
  gst_buffer_unref (top_down);
  cv::Mat want_blur;
  cv::GaussianBlur (seen_gray, want_blur, cv::Size (5, 5), 1.5, 1.5, cv::BORDER_REFLECT_101);
  out = run_harness ("cudablur kernel-size=5 sigma=1.5 " + kCpu, frame_caps (gray), frame_caps (gray),
      bottom_up_frame (gray));
  ASSERT_TRUE (out) << "cudablur refused a bottom-up frame";
  const cv::Mat got_blur = buffer_to_mat (out, gray_caps);
  gst_buffer_unref (out);
  EXPECT_EQ (compare (got_blur, want_blur).differing, 0) << "cudablur, bottom-up GRAY8";
  gst_caps_unref (rgba_caps);
  gst_caps_unref (gray_caps);
}

/* Downstream takes device memory only: the element says the CPU backend
 * cannot make it, where GstBaseTransform alone left the source a bare
 * not-negotiated. */
TEST (HostileCpu, DeviceMemoryDownstreamNeedsTheGpu)
{
  /* memory:CUDAMemory holds no GRAY8: cudablur's RGBA for it */
  const struct {
    const char *element;
    GstVideoFormat format;
    const char *feature;
  } cases[] = {
    { "cudagray", GST_VIDEO_FORMAT_RGBA, "memory:CudaVisionMemory" },
    { "cudablur", GST_VIDEO_FORMAT_RGBA, "memory:CudaVisionMemory" },
    { "cudablur", GST_VIDEO_FORMAT_RGBA, "memory:CUDAMemory" },
  };
  for (const auto & c : cases) {
    const std::string desc = std::string (c.element) + " " + kCpu;
    const Pushed r = push_one (desc, caps_string (c.format, 64, 48),
        system_buffer (default_layout (c.format, 64, 48)), std::string ("video/x-raw(") + c.feature + ")");
    const std::string what = std::string ("output in ") + c.feature;
    EXPECT_EQ (r.flow, GST_FLOW_NOT_NEGOTIATED) << desc << ", " << what;
    EXPECT_TRUE (r.error_containing (c.feature) && r.error_containing ("GPU") && r.error_containing ("backend=cpu"))
        << desc << ", " << what << ": no error saying why; errors:" << r.all_errors ();
  }
}

/* The same through gst-launch's parser with backend=auto and no usable
 * GPU (the devices are hidden: the element links before it knows it will
 * run on the CPU, and negotiation fails after), the pipeline: the
 * element's error comes first, before the source's not-negotiated. */
TEST (HostileCpu, DeviceMemoryDownstreamWithoutAGpu)
{
  ASSERT_EQ (cudavision::cuda_device_count (), 0);
  const BusResult r = run_pipeline ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                                    "cudagray name=g ! video/x-raw(memory:CudaVisionMemory) ! fakesink",
      30);
  ASSERT_FALSE (r.errors.empty ()) << "the pipeline ran";
  const std::string & first = r.errors[0];
  EXPECT_EQ (first.rfind ("g: ", 0), 0u) << "the first error is not cudagray's: " << first;
  EXPECT_NE (first.find ("memory:CudaVisionMemory"), std::string::npos) << first;
  EXPECT_NE (first.find ("no usable CUDA device"), std::string::npos) << first;
}

/* Upstream sends device memory: GstBaseTransform takes the caps (formats
 * map whatever the memory), the element refuses them and says why. */
TEST (HostileCpu, DeviceMemoryUpstreamNeedsTheGpu)
{
  for (const char *feature : { "memory:CudaVisionMemory", "memory:CUDAMemory" }) {
    const std::string desc = "cudablur " + kCpu;
    const Pushed r = push_one (desc, caps_string (GST_VIDEO_FORMAT_RGBA, 64, 48, feature),
        system_buffer (default_layout (GST_VIDEO_FORMAT_RGBA, 64, 48)));
    EXPECT_EQ (r.flow, GST_FLOW_NOT_NEGOTIATED) << desc << ", input in " << feature;
    EXPECT_TRUE (r.error_containing (feature) && r.error_containing ("GPU") && r.error_containing ("backend=cpu"))
        << desc << ", input in " << feature << ": no error saying why; errors:" << r.all_errors ();
  }
}

/* The launch properties choose CUDA block shapes: on the CPU backend they
 * do nothing, and the element says so (and says nothing without them). */
TEST (HostileCpu, GpuOnlyPropertiesWarn)
{
  const std::string head = "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! cudagray ";
  BusResult r = run_pipeline (head + kCpu + " block-sizing=auto save-tuning=true ! fakesink", 30);
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  EXPECT_TRUE (r.has_warning_containing ("block-sizing=auto") && r.has_warning_containing ("save-tuning=true") &&
      r.has_warning_containing ("CPU"))
      << "no warning about block-sizing=auto save-tuning=true on the CPU backend";

  r = run_pipeline (head + kCpu + " block-size=32x8 tuning-table=/nonexistent.tsv ! fakesink", 30);
  EXPECT_TRUE (r.has_warning_containing ("block-size=32x8") && r.has_warning_containing ("tuning-table"))
      << "no warning about block-size and tuning-table on the CPU backend";

  r = run_pipeline (head + kCpu + " ! fakesink", 30);
  EXPECT_TRUE (r.eos);
  EXPECT_TRUE (r.warnings.empty ()) << r.warnings[0];
}
