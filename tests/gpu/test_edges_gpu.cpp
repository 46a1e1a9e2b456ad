/* Faults and edges on the GPU (tests/common/edge_cases.h), every element
 * with backend=cuda: caps changing mid-stream (system memory and device
 * frames out), EOS with no buffer, read-only and padded input, flushing
 * seeks; 200 start/stop cycles with device memory flat; device-id
 * selection (the device asked for is the one whose memory holds every
 * element's output, a missing one is a clear error). Skips (exit 77)
 * without a CUDA device. */
#include "../common/edge_cases.h"

#include "../../cuda/common/device_info.h"
#include "gstcvmemory.h"

#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudacontext.h>
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <mutex>
#include <set>

using namespace cvtest;

static const std::string kCuda = "backend=cuda";
static const char *const kDevice = GST_CAPS_FEATURE_MEMORY_CUDAVISION;

TEST (EdgesGpu, MidStreamSizeAndFormatChanges) { check_mid_stream_caps_changes (kCuda); }
TEST (EdgesGpu, MidStreamChangesWithDeviceFramesOut) { check_mid_stream_caps_changes (kCuda, kDevice); }
TEST (EdgesGpu, EosWithoutBuffers) { check_eos_without_buffers (kCuda); }
TEST (EdgesGpu, ReadOnlyInput) { check_read_only_input (kCuda); }
TEST (EdgesGpu, PaddedRows) { check_padded_input (kCuda); }
TEST (EdgesGpu, VideocropUpstream) { check_padding_elements_upstream (kCuda); }
TEST (EdgesGpu, FlowFlushingSeeksRestartTracks) { check_flow_flushing_seeks (kCuda); }
TEST (EdgesGpu, FaceFlushingSeeks) { check_face_flushing_seeks (kCuda); }

TEST (EdgesGpu, TwoHundredStartStopCyclesKeepDeviceMemoryFlat)
{
  /* 640x480: a frame left behind per cycle would be >= 300 KiB of device
   * memory, 60 MiB over the run; 4 MiB is the allocator's granularity */
  check_start_stop_cycles (kCuda, 200, 640, 480, { 4, 32 });
}

/* --------------------------------------------------------- device-id */

namespace {

int
context_device (GstCudaContext * ctx)
{
  gint id = -1;
  g_object_get (ctx, "cuda-device-id", &id, nullptr);
  return id;
}

/* Where one element's output frames live: the device of their context and
 * the device CUDA reports for the frame's pointer. */
struct Where {
  std::mutex lock;
  std::set<std::string> seen;  /* "element: context D, pointer D" */
};

GstPadProbeReturn
record_device (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  auto *w = (Where *) data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  std::string what = GST_OBJECT_NAME (GST_OBJECT_PARENT (pad));
  if (!gst_is_cv_memory (mem)) {
    what += ": not device memory";
  } else {
    const int ctx_dev = context_device (gst_cv_memory_get_context (mem));
    GstMapInfo map;
    int ptr_dev = -1;
    if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CV_DEVICE))) {
      cudaPointerAttributes attr {};
      if (cudaPointerGetAttributes (&attr, map.data) == cudaSuccess)
        ptr_dev = attr.device;
      cudaGetLastError ();
      gst_memory_unmap (mem, &map);
    }
    what += ": context " + std::to_string (ctx_dev) + ", pointer " + std::to_string (ptr_dev);
  }
  std::lock_guard<std::mutex> g (w->lock);
  w->seen.insert (what);
  return GST_PAD_PROBE_OK;
}

/* A chain of every element on device `dev`, device frames between them,
 * with its own context for that device (no shared one). Returns what the
 * probes saw, or the error. */
std::set<std::string>
run_on_device (int dev, std::string *error)
{
  const std::string d = " backend=cuda device-id=" + std::to_string (dev) + " ";
  const std::string desc = "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=RGBA,width=320,height=240 ! "
      "cudafacedetect name=face" + d + "! cudablur name=blur" + d + "! cudaflow name=flow" + d +
      "! cudagray name=gray" + d + "! cudaotsu name=otsu" + d + "! cudacanny name=canny" + d + "! cudaharris name=harris" +
      d + "! video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! fakesink";
  GstElement *pipe = gst_parse_launch (desc.c_str (), nullptr);
  Where w;
  if (!pipe) {
    *error = "cannot build " + desc;
    return {};
  }
  for (const char *name : { "face", "blur", "flow", "gray", "otsu", "canny", "harris" }) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
    GstPad *src = gst_element_get_static_pad (e, "src");
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, record_device, &w, nullptr);
    gst_object_unref (src);
    gst_object_unref (e);
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m) {
    *error = "no EOS within 60 s";
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    *error = parse_bus_error (m).text;
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return w.seen;
}

}  // namespace

TEST (DeviceSelection, EachElementsWorkRunsOnItsDevice)
{
  const int n = cudavision::cuda_device_count ();
  ASSERT_GE (n, 1);
  if (n == 1)
    std::printf ("one CUDA device: device-id=0 only (the code path for more is the same loop)\n");
  for (int dev = 0; dev < n; dev++) {
    std::string error;
    const std::set<std::string> seen = run_on_device (dev, &error);
    EXPECT_EQ (error, "") << "device-id=" << dev;
    std::set<std::string> want;
    for (const char *name : { "face", "blur", "flow", "gray", "otsu", "canny", "harris" })
      want.insert (std::string (name) + ": context " + std::to_string (dev) + ", pointer " + std::to_string (dev));
    EXPECT_EQ (seen, want) << "device-id=" << dev;
    for (const auto & s : seen)
      std::printf ("device-id=%d  %s\n", dev, s.c_str ());
  }
}

TEST (DeviceSelection, MissingDeviceIsAClearError)
{
  const int n = cudavision::cuda_device_count ();
  const std::string missing = std::to_string (n);
  BusResult r = run_pipeline ("videotestsrc num-buffers=2 ! cudagray backend=cuda device-id=" + missing + " ! fakesink");
  EXPECT_FALSE (r.eos);
  ASSERT_EQ (r.errors.size (), 1u);
  EXPECT_TRUE (r.has_error_containing ("CUDA device " + missing + " does not exist")) << r.errors[0];
  EXPECT_TRUE (r.has_error_containing ("this machine has " + std::to_string (n) + " CUDA device")) << r.errors[0];
  EXPECT_EQ (r.error_domains[0], GST_RESOURCE_ERROR);

  /* backend=auto: the CPU, and a warning that says why */
  BusResult a = run_pipeline ("videotestsrc num-buffers=2 ! cudagray device-id=" + missing + " ! fakesink");
  EXPECT_TRUE (a.eos);
  ASSERT_EQ (a.warnings.size (), 1u);
  EXPECT_TRUE (a.has_warning_containing ("CUDA device " + missing + " does not exist")) << a.warnings[0];
}
