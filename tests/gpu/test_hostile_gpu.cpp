/* Hostile input on the GPU backend, every element (tests/common/
 * hostile_frames.h): the CPU suite's bad layouts in system memory (the
 * upload's host map) with output in system and in device memory, the same
 * lies in device memory (memory:CudaVisionMemory and nvcodec's
 * memory:CUDAMemory, the device map: a kernel reading past a device
 * allocation would leave the context unusable, not just one frame
 * garbled), bottom-up frames in system memory read as top-down ones and
 * bottom-up device frames refused. */
#include "../common/hostile_frames.h"

#include "gstcvmemory.h"

#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <gtest/gtest.h>

using namespace cvtest;

static const std::string kCuda = "backend=cuda";
static const char *const kDevice = GST_CAPS_FEATURE_MEMORY_CUDAVISION;

/* The system-memory cases through the upload, out in system memory (the
 * download) and in device memory. */
class HostileLayoutGpu : public ::testing::TestWithParam<HostileParam> {};
TEST_P (HostileLayoutGpu, IsRefused)
{
  check_hostile_case (GetParam (), kCuda);
  check_hostile_case (GetParam (), kCuda, std::string ("video/x-raw(") + kDevice + ")");
}
INSTANTIATE_TEST_SUITE_P (Every, HostileLayoutGpu, ::testing::ValuesIn (hostile_params ()), hostile_param_name);

class BottomUpGpu : public ::testing::TestWithParam<ElementFormat> {};
TEST_P (BottomUpGpu, IsReadTopDown)
{
  check_bottom_up (GetParam (), kCuda);
  check_bottom_up (GetParam (), kCuda, kDevice);
}
INSTANTIATE_TEST_SUITE_P (Every, BottomUpGpu, ::testing::ValuesIn (element_formats ()), element_format_name);

/* The shared CUDA context of the test program (gpu_main). */
static GstCudaContext *
test_context ()
{
  GstContext *ctx = shared_context ();
  if (!ctx)
    return nullptr;
  GstCudaContext *cuda = nullptr;
  gst_structure_get (gst_context_get_structure (ctx), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, nullptr);
  return cuda;
}

/* Which memory a device buffer is made of. */
enum class DeviceKind { Ours, CudaMemory };

/* A device frame of `format`, w x h, whose meta is its real layout
 * changed by `c` (no case here removes the meta or splits the memory:
 * device frames hold one allocation each). Returns nullptr for cases that
 * do not apply to device memory. */
static GstBuffer *
device_buffer (GstCudaContext * cuda, DeviceKind kind, GstVideoFormat format, int w, int h, const HostileCase & c)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, w, h);
  GstMemory *mem = nullptr;
  Layout l;
  if (kind == DeviceKind::Ours) {
    GstCvAllocator *alloc = gst_cv_allocator_new (cuda);
    mem = gst_cv_allocator_alloc (alloc, &info);
    gst_object_unref (alloc);
    if (mem)
      l.info = *gst_cv_memory_get_layout (mem);
  } else {
    mem = gst_cv_cuda_memory_alloc (cuda, &info);
    if (mem) {
      l.info = GST_CUDA_MEMORY_CAST (mem)->info;
      /* GstCudaMemory allocates rows to spare (1.22: twice the height for
       * NV12 and I420), so a lie of a row or 64 bytes would still lie
       * inside it: the buffer is cut to end at its last plane's last row,
       * as the cases assume (ours does) */
      const guint last = GST_VIDEO_INFO_N_PLANES (&l.info) - 1;
      const gsize tight = l.info.offset[last] + (gsize) l.info.stride[last] * (hostile_rows (l.info, last) - 1) +
          hostile_row_bytes (l.info, last);
      gst_memory_resize (mem, 0, tight);
    }
  }
  if (!mem) {
    ADD_FAILURE () << "cannot allocate a device frame";
    return nullptr;
  }
  l.size = mem->size;
  c.lie (l);
  if (!l.meta || l.split) {
    gst_memory_unref (mem);
    return nullptr;
  }
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (&l.info), l.info.width,
      l.info.height, GST_VIDEO_INFO_N_PLANES (&l.info), l.info.offset, l.info.stride);
  return buf;
}

/* In device memory negative strides are refused whatever the offset. */
static std::string
device_expectation (const HostileCase & c)
{
  return c.expect == "before the start" ? "negative stride" : c.expect;
}

static void
check_device_memory (DeviceKind kind)
{
  GstCudaContext *cuda = test_context ();
  ASSERT_TRUE (cuda) << "no shared CUDA context";
  const char *feature = kind == DeviceKind::Ours ? kDevice : GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
  std::vector<HostileCase> extra = {
    /* a well-formed bottom-up frame: the offset at the last row */
    { "BottomUpDeviceFrame", "bottom-up device frame", "negative stride",
        [] (Layout & l) {
          for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&l.info); p++) {
            l.info.offset[p] += (gsize) l.info.stride[p] * (hostile_rows (l.info, p) - 1);
            l.info.stride[p] = -l.info.stride[p];
          }
        } },
  };
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description (kCuda);
    /* memory:CUDAMemory holds no GRAY8 */
    std::vector<GstVideoFormat> formats = { el.fmt_yuv };
    if (kind == DeviceKind::Ours || el.fmt_a != GST_VIDEO_FORMAT_GRAY8)
      formats.insert (formats.begin (), el.fmt_a);
    for (const GstVideoFormat fmt : formats) {
      const int w = 67, h = 50;  /* even: memory:CUDAMemory takes no odd-height I420 */
      const std::string caps = caps_string (fmt, w, h, feature);
      std::vector<HostileCase> cases = hostile_cases (fmt);
      cases.insert (cases.end (), extra.begin (), extra.end ());
      for (const HostileCase & c : cases) {
        GstBuffer *buf = device_buffer (cuda, kind, fmt, w, h, c);
        if (!buf)
          continue;
        const std::string what = std::string (feature) + " " + gst_video_format_to_string (fmt) + ", " + c.name;
        for (const std::string & out : { std::string ("video/x-raw"), std::string ("video/x-raw(") + kDevice + ")" })
          expect_refused (push_one (desc, caps, gst_buffer_ref (buf), out), desc, what + " -> " + out,
              device_expectation (c));
        gst_buffer_unref (buf);
      }
    }
  }
  /* the context still works: a good frame goes through */
  GstBuffer *good = make_frame ({ GST_VIDEO_FORMAT_GRAY8, 67, 50, 0 });
  const Pushed r = push_one ("cudablur " + kCuda, caps_string (GST_VIDEO_FORMAT_GRAY8, 67, 50), good);
  EXPECT_EQ (r.flow, GST_FLOW_OK) << r.all_errors ();
  EXPECT_TRUE (r.output);
  gst_object_unref (cuda);
}

TEST (HostileGpu, BadLayoutsInDeviceMemory) { check_device_memory (DeviceKind::Ours); }
TEST (HostileGpu, BadLayoutsInCudaMemory) { check_device_memory (DeviceKind::CudaMemory); }
