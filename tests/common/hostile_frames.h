/* cudavision tests — input frames whose GstVideoMeta lies about their
 * buffer (strides smaller than a row, rows past the end, offsets past the
 * end, a plane across two memories, a meta of another size or format) and
 * bottom-up frames (negative strides), for every element on either
 * backend: tests/gst/test_hostile_cpu.cpp runs them with backend=cpu,
 * tests/gpu/test_hostile_gpu.cpp with backend=cuda and device memory.
 * Header-only: the two programs are its only users.
 *
 * A bad frame must end in a GStreamer error from the element naming the
 * problem and GST_FLOW_ERROR, no output, and the test process alive (the
 * elements used to abort on an uncaught cv::Exception or read past the
 * buffer). A bottom-up frame must give what the same frame top-down
 * gives. */
#pragma once

#include "edge_cases.h"
#include "harness.h"
#include "test_util.h"

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace cvtest {

/* Bytes of a visible row and number of rows of `plane`. */
inline gsize
hostile_row_bytes (const GstVideoInfo & info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info.finfo, plane, comps);
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, comps[0]) * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comps[0]);
}

inline gint
hostile_rows (const GstVideoInfo & info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info.finfo, plane, comps);
  return GST_VIDEO_INFO_COMP_HEIGHT (&info, comps[0]);
}

/* A frame layout: the meta a buffer carries and the buffer's size. `info`
 * starts as the caps' default layout; a case changes what it lies about. */
struct Layout {
  GstVideoInfo info;     /* format, size, offsets and strides of the meta */
  gsize size;            /* bytes of the buffer */
  bool meta = true;      /* without: the caps' default layout is assumed */
  gsize split = 0;       /* > 0: the buffer is two memories, split here */
};

/* A case: what to change in a default layout, and what the error's main
 * text must say. */
struct HostileCase {
  std::string id;  /* for test names */
  std::string name;
  std::string expect;
  std::function<void (Layout &)> lie;
};

/* Lies about plane 0 (and one about the last plane), on any format. */
inline std::vector<HostileCase>
plane0_cases ()
{
  return {
    { "StrideOneShort", "stride one byte smaller than a row", "smaller than a row",
        [] (Layout & l) { l.info.stride[0] = (gint) hostile_row_bytes (l.info, 0) - 1; } },
    { "StrideHalfARow", "stride of half a row", "smaller than a row",
        [] (Layout & l) { l.info.stride[0] = (gint) hostile_row_bytes (l.info, 0) / 2; } },
    /* 1 MiB rows over a buffer of a few KiB: reading them faulted */
    { "HugeStride", "a huge stride over a small buffer", "past the end",
        [] (Layout & l) { l.info.stride[0] = 1 << 20; } },
    /* the last plane's: an earlier one could still end inside the buffer */
    { "PaddedRowsTightBuffer", "padded rows in a buffer sized for tight ones", "past the end",
        [] (Layout & l) { l.info.stride[GST_VIDEO_INFO_N_PLANES (&l.info) - 1] += 64; } },
    /* the last row needs no padding after it: one byte more is too many */
    { "LastRowOneBytePast", "the last row one byte past the end", "past the end",
        [] (Layout & l) {
          const gsize span = (gsize) l.info.stride[0] * (hostile_rows (l.info, 0) - 1) + hostile_row_bytes (l.info, 0);
          l.info.offset[0] = l.size - span + 1;
        } },
    { "OffsetPastTheEnd", "plane offset past the end", "past the end",
        [] (Layout & l) { l.info.offset[0] = l.size + 64; } },
    { "BottomUpBeforeTheStart", "bottom-up rows starting before the buffer", "before the start",
        [] (Layout & l) { l.info.stride[0] = -l.info.stride[0]; } },
    /* the extremes of a gint: no overflow in the checks */
    { "StrideMaxInt", "a stride of G_MAXINT", "past the end", [] (Layout & l) { l.info.stride[0] = G_MAXINT; } },
    { "StrideMinInt", "a stride of G_MININT", "before the start", [] (Layout & l) { l.info.stride[0] = G_MININT; } },
    { "MetaWider", "a meta wider than the caps", "GstVideoMeta",
        [] (Layout & l) {
          GstVideoInfo wide;
          gst_video_info_set_format (&wide, GST_VIDEO_INFO_FORMAT (&l.info), l.info.width + 16, l.info.height);
          l.info = wide;
          l.size = wide.size;
        } },
    { "MetaShorter", "a meta shorter than the caps", "GstVideoMeta",
        [] (Layout & l) {
          GstVideoInfo shorter;
          gst_video_info_set_format (&shorter, GST_VIDEO_INFO_FORMAT (&l.info), l.info.width, l.info.height - 1);
          l.info = shorter;
        } },
    { "MetaOtherFormat", "a meta of another format", "GstVideoMeta",
        [] (Layout & l) {
          const GstVideoFormat f = GST_VIDEO_INFO_FORMAT (&l.info);
          GstVideoInfo other;
          gst_video_info_set_format (&other,
              f == GST_VIDEO_FORMAT_GRAY8 ? GST_VIDEO_FORMAT_RGBA
                  : f == GST_VIDEO_FORMAT_NV12 ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_GRAY8,
              l.info.width, l.info.height);
          l.info = other;
          l.size = MAX (l.size, other.size);
        } },
    { "AcrossTwoMemories", "a plane across two memories", "memories", [] (Layout & l) { l.split = l.size / 2; } },
    { "NoMetaByteShort", "no meta and a buffer a byte short", "too small",
        [] (Layout & l) {
          l.meta = false;
          l.size -= 1;
        } },
  };
}

/* Cases of NV12's chroma plane. */
inline std::vector<HostileCase>
chroma_cases ()
{
  return {
    { "ChromaRowPast", "NV12 chroma plane a row past the end", "plane 1",
        [] (Layout & l) { l.info.offset[1] += l.info.stride[1]; } },
    { "ChromaOffsetPast", "NV12 chroma plane offset past the end", "plane 1",
        [] (Layout & l) { l.info.offset[1] = l.size; } },
    { "ChromaStrideShort", "NV12 chroma stride smaller than a row", "plane 1",
        [] (Layout & l) { l.info.stride[1] = (gint) hostile_row_bytes (l.info, 1) - 2; } },
  };
}

/* Every case on `format`: plane 0's, and the chroma ones on NV12. */
inline std::vector<HostileCase>
hostile_cases (GstVideoFormat format)
{
  std::vector<HostileCase> all = plane0_cases ();
  if (format == GST_VIDEO_FORMAT_NV12)
    for (HostileCase & c : chroma_cases ())
      all.push_back (c);
  return all;
}

/* The default layout of a w x h frame of `format`. */
inline Layout
default_layout (GstVideoFormat format, int w, int h)
{
  Layout l;
  gst_video_info_set_format (&l.info, format, w, h);
  l.size = l.info.size;
  return l;
}

/* A system-memory buffer of `l` (zeroed: these frames are refused before
 * anyone reads them). */
inline GstBuffer *
system_buffer (Layout l)
{
  GstBuffer *buf = gst_buffer_new ();
  const gsize first = l.split ? l.split : l.size;
  gst_buffer_append_memory (buf, gst_allocator_alloc (nullptr, first, nullptr));
  if (l.split)
    gst_buffer_append_memory (buf, gst_allocator_alloc (nullptr, l.size - l.split, nullptr));
  gst_buffer_memset (buf, 0, 0, l.size);
  if (l.meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (&l.info), l.info.width,
        l.info.height, GST_VIDEO_INFO_N_PLANES (&l.info), l.info.offset, l.info.stride);
  return buf;
}

/* What one pushed buffer did. */
struct Pushed {
  GstFlowReturn flow = GST_FLOW_OK;
  bool output = false;
  std::vector<std::string> errors;    /* "message | debug" of each error */
  std::vector<std::string> warnings;
  std::vector<std::string> error_sources;  /* the posting element's factory */
  bool error_containing (const std::string & s) const
  {
    for (const std::string & e : errors)
      if (e.find (s) != std::string::npos)
        return true;
    return false;
  }
  std::string all_errors () const
  {
    std::string s;
    for (const std::string & e : errors)
      s += "\n  " + e;
    return s.empty () ? " (none)" : s;
  }
};

/* Pushes `in` (caps `in_caps`) through `element` in a GstHarness whose sink
 * takes `out_caps`, and returns what happened. */
inline Pushed
push_one (const std::string & element, const std::string & in_caps, GstBuffer * in,
    const std::string & out_caps = "video/x-raw")
{
  Pushed r;
  GstElement *e = gst_parse_launch (element.c_str (), nullptr);
  if (!e) {
    ADD_FAILURE () << "cannot make " << element;
    gst_buffer_unref (in);
    return r;
  }
  if (shared_context ())
    gst_element_set_context (e, shared_context ());
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_caps_str (h, in_caps.c_str (), out_caps.c_str ());
  r.flow = gst_harness_push (h, in);
  if (GstBuffer *out = gst_harness_try_pull (h)) {
    r.output = true;
    gst_buffer_unref (out);
  }
  while (GstMessage *msg = gst_bus_pop_filtered (bus, (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    const BusError e = parse_bus_error (msg);
    if (e.is_error) {
      r.errors.push_back (e.text);
      GstElementFactory *f = GST_IS_ELEMENT (msg->src) ? gst_element_get_factory (GST_ELEMENT (msg->src)) : nullptr;
      r.error_sources.push_back (f ? GST_OBJECT_NAME (f) : "?");
    } else {
      r.warnings.push_back (e.text);
    }
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return r;
}

/* The expectation on a refused frame: GST_FLOW_ERROR, no output, an error
 * from the element itself whose text says `expect`. */
inline void
expect_refused (const Pushed & r, const std::string & element, const std::string & what, const std::string & expect)
{
  const std::string factory = element.substr (0, element.find (' '));
  EXPECT_EQ (r.flow, GST_FLOW_ERROR) << element << ", " << what << ": " << gst_flow_get_name (r.flow);
  EXPECT_FALSE (r.output) << element << ", " << what << ": a frame came out";
  EXPECT_TRUE (r.error_containing (expect))
      << element << ", " << what << ": no error saying \"" << expect << "\"; errors:" << r.all_errors ();
  for (const std::string & src : r.error_sources)
    EXPECT_EQ (src, factory) << element << ", " << what << ": the error came from elsewhere";
}

/* One case on one element and format, for parameterized tests. */
struct HostileParam {
  size_t element;  /* in edge_elements () */
  GstVideoFormat format;
  size_t index;    /* in hostile_cases (format) */
};

/* Every case on every element, on its first format and on NV12. */
inline std::vector<HostileParam>
hostile_params ()
{
  std::vector<HostileParam> all;
  for (size_t e = 0; e < edge_elements ().size (); e++)
    for (const GstVideoFormat fmt : { edge_elements ()[e].fmt_a, edge_elements ()[e].fmt_yuv })
      for (size_t i = 0; i < hostile_cases (fmt).size (); i++)
        all.push_back ({ e, fmt, i });
  return all;
}

inline std::string
hostile_param_name (const ::testing::TestParamInfo<HostileParam> & info)
{
  const HostileParam & p = info.param;
  return edge_elements ()[p.element].name + "_" + gst_video_format_to_string (p.format) + "_" +
      hostile_cases (p.format)[p.index].id;
}

/* One case with its input in system memory (the GPU backend uploads it,
 * the CPU maps it), `backend` "backend=cpu" or "backend=cuda", output in
 * `out_caps`. */
inline void
check_hostile_case (const HostileParam & p, const std::string & backend, const std::string & out_caps = "video/x-raw")
{
  const EdgeElement & el = edge_elements ()[p.element];
  const std::string desc = el.description (backend);
  const HostileCase c = hostile_cases (p.format)[p.index];
  /* odd sizes: chroma rounding, and rows that are no multiple of 4 */
  const int w = 67, h = 49;
  Layout l = default_layout (p.format, w, h);
  c.lie (l);
  const std::string what = std::string (gst_video_format_to_string (p.format)) + ", " + c.name + " -> " + out_caps;
  expect_refused (push_one (desc, caps_string (p.format, w, h), system_buffer (l), out_caps), desc, what, c.expect);
}

/* `f` bottom-up: the rows of every plane in reverse order in memory, the
 * meta's offset at the last one and its stride negative, as a
 * bottom-up (DIB-style) producer lays frames out. */
inline GstBuffer *
bottom_up_frame (const InFrame & f)
{
  GstBuffer *packed = make_frame (f);
  GstVideoInfo info;
  gst_video_info_set_format (&info, f.format, f.width, f.height);
  GstBuffer *out = gst_buffer_new_allocate (nullptr, info.size, nullptr);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  GstMapInfo from, to;
  gst_buffer_map (packed, &from, GST_MAP_READ);
  gst_buffer_map (out, &to, GST_MAP_WRITE);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    const gint rows = hostile_rows (info, p);
    const gsize s = info.stride[p];
    for (gint y = 0; y < rows; y++)
      memcpy (to.data + info.offset[p] + (rows - 1 - y) * s, from.data + info.offset[p] + y * s,
          hostile_row_bytes (info, p));
    offset[p] = info.offset[p] + (rows - 1) * s;
    stride[p] = -(gint) s;
  }
  gst_buffer_unmap (out, &to);
  gst_buffer_unmap (packed, &from);
  gst_buffer_unref (packed);
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE, f.format, f.width, f.height,
      GST_VIDEO_INFO_N_PLANES (&info), offset, stride);
  return out;
}

/* An element and one of its formats (EdgeElement::formats ()). */
struct ElementFormat {
  size_t element;
  GstVideoFormat format;
};

inline std::vector<ElementFormat>
element_formats ()
{
  std::vector<ElementFormat> all;
  for (size_t e = 0; e < edge_elements ().size (); e++)
    for (const GstVideoFormat fmt : edge_elements ()[e].formats ())
      all.push_back ({ e, fmt });
  return all;
}

inline std::string
element_format_name (const ::testing::TestParamInfo<ElementFormat> & info)
{
  return edge_elements ()[info.param.element].name + "_" + gst_video_format_to_string (info.param.format);
}

/* Bottom-up frames through an element: what the same frames top-down give
 * (161x121: the size of the report where cudacanny alone failed). */
inline void
check_bottom_up (const ElementFormat & p, const std::string & backend, const char *out_feature = nullptr)
{
  const EdgeElement & el = edge_elements ()[p.element];
  const std::string desc = el.description (backend);
  const std::string what = desc + " " + gst_video_format_to_string (p.format);
  const std::vector<InFrame> frames = { { p.format, 161, 121, 0 }, { p.format, 161, 121, 2 } };
  const std::vector<Output> want = run_frames (desc, frames, out_feature);
  ASSERT_EQ (want.size (), frames.size ()) << what;
  const std::vector<Output> got = run_frames (desc, frames, out_feature, bottom_up_frame);
  ASSERT_EQ (got.size (), frames.size ()) << what << ": a bottom-up frame was refused";
  for (size_t i = 0; i < frames.size (); i++)
    EXPECT_TRUE (got[i] == want[i]) << what << ", frame " << i << ", bottom-up: " << difference (got[i], want[i]);
}

}  // namespace cvtest
