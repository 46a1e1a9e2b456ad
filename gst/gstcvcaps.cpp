/* cudavision — the caps of every cudavision element (see gstcvcaps.h). */
#include "gstcvcaps.h"

#include <gst/cuda/gstcudamemory.h>

#include <initializer_list>

/* The base class's category: these are its caps. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

/* The formats GstCudaMemory (libgstcuda 1.22) can hold among ours: every
 * one but GRAY8. Our source pads offer memory:CUDAMemory for these. */
#define CUDA_MEMORY_OUT_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR }"

static GstCaps *
cuda_memory_output_caps (void)
{
  static GstCaps *caps = nullptr;
  if (g_once_init_enter (&caps)) {
    GstCaps *c = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) "
                                       CUDA_MEMORY_OUT_FORMATS);
    GST_MINI_OBJECT_FLAG_SET (c, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&caps, c);
  }
  return caps;
}

GstCaps *
gst_cv_base_filter_make_caps (const gchar * formats, GstPadDirection direction)
{
  const gchar *fields = "width = (int) [ 1, 16384 ], height = (int) [ 1, 16384 ], "
                        "framerate = (fraction) [ 0, max ]";
  gchar *s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION "), format = (string) %s, %s; "
                              "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) %s, %s; "
                              "video/x-raw, format = (string) %s, %s",
      formats, fields, formats, fields, formats, fields);
  GstCaps *all = gst_caps_from_string (s);
  g_free (s);
  if (direction == GST_PAD_SINK)
    return all;
  /* out: memory:CUDAMemory only in the formats it can hold */
  GstCaps *caps = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (all); i++) {
    GstCaps *one = gst_caps_copy_nth (all, i);
    GstCapsFeatures *f = gst_caps_get_features (one, 0);
    if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY)) {
      GstCaps *held = gst_caps_intersect (one, cuda_memory_output_caps ());
      gst_caps_unref (one);
      one = held;
    }
    gst_caps_append (caps, one);
  }
  gst_caps_unref (all);
  return caps;
}

bool
gst_cv_packed_rgb_layout (GstVideoFormat format, cudavision::PackedRgb * layout)
{
  using cudavision::PackedRgb;
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA: *layout = PackedRgb::RGBA; return true;
    case GST_VIDEO_FORMAT_BGRA: *layout = PackedRgb::BGRA; return true;
    case GST_VIDEO_FORMAT_RGBx: *layout = PackedRgb::RGBx; return true;
    case GST_VIDEO_FORMAT_BGRx: *layout = PackedRgb::BGRx; return true;
    case GST_VIDEO_FORMAT_ARGB: *layout = PackedRgb::ARGB; return true;
    case GST_VIDEO_FORMAT_ABGR: *layout = PackedRgb::ABGR; return true;
    case GST_VIDEO_FORMAT_xRGB: *layout = PackedRgb::xRGB; return true;
    case GST_VIDEO_FORMAT_xBGR: *layout = PackedRgb::xBGR; return true;
    case GST_VIDEO_FORMAT_RGB: *layout = PackedRgb::RGB; return true;
    case GST_VIDEO_FORMAT_BGR: *layout = PackedRgb::BGR; return true;
    default: return false;
  }
}

GstCaps *
gst_cv_caps_map_to_format (GstPadDirection direction, GstCaps *caps, const char *format)
{
  GstCaps *res = gst_caps_make_writable (caps);
  for (guint i = 0; i < gst_caps_get_size (res); i++) {
    GstStructure *s = gst_caps_get_structure (res, i);
    gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site", nullptr);
    if (direction == GST_PAD_SINK)
      gst_structure_set (s, "format", G_TYPE_STRING, format, nullptr);
  }
  return gst_caps_simplify (res);
}

void
gst_cv_base_filter_class_add_pad_templates (GstElementClass * element_class, const gchar * sink_formats,
    const gchar * src_formats)
{
  GstCaps *sink = gst_cv_base_filter_make_caps (sink_formats, GST_PAD_SINK);
  GstCaps *src = gst_cv_base_filter_make_caps (src_formats, GST_PAD_SRC);
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class, gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

GstCvMemoryKind
gst_cv_caps_memory_kind (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDAVISION))
    return GST_CV_MEMORY_DEVICE;
  if (f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return GST_CV_MEMORY_CUDA_MEMORY;
  return GST_CV_MEMORY_SYSTEM;
}

const gchar *
gst_cv_memory_kind_name (GstCvMemoryKind kind)
{
  switch (kind) {
    case GST_CV_MEMORY_DEVICE: return GST_CAPS_FEATURE_MEMORY_CUDAVISION;
    case GST_CV_MEMORY_CUDA_MEMORY: return GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
    default: return "system memory";
  }
}

void
gst_cv_caps_append_with_feature (GstCaps * dst, GstCaps * src, const gchar * feature)
{
  GstCaps *c = gst_caps_copy (src);
  for (guint i = 0; i < gst_caps_get_size (c); i++)
    gst_caps_set_features (c, i, feature ? gst_caps_features_new (feature, nullptr)
                                          : gst_caps_features_new_empty ());
  gst_caps_append (dst, c);
}

/* Whether GstCudaMemory lays an odd-height I420 frame out with its U and
 * V planes overlapping (GStreamer 1.22 puts V height / 2 rows after U, a
 * row short of U's (height + 1) / 2): asked once of the allocator itself,
 * with a 2x3 frame in `ctx`. */
static bool
cuda_memory_odd_i420_overlaps (GstCudaContext * ctx)
{
  static gsize verdict = 0; /* 1: no, 2: yes */
  if (g_once_init_enter (&verdict)) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 2, 3);
    GstMemory *mem = gst_cv_cuda_memory_alloc (ctx, &info);
    bool overlaps = true;
    if (mem) {
      const GstVideoInfo *l = &GST_CUDA_MEMORY_CAST (mem)->info;
      overlaps = l->offset[2] < l->offset[1] + (gsize) l->stride[1] * GST_VIDEO_INFO_COMP_HEIGHT (l, 1);
      gst_memory_unref (mem);
    }
    g_once_init_leave (&verdict, overlaps ? 2 : 1);
  }
  return verdict == 2;
}

static bool
odd_height_i420 (const GstStructure * s)
{
  gint h = 0;
  const gchar *f = gst_structure_get_string (s, "format");
  return f && g_str_equal (f, "I420") && gst_structure_get_int (s, "height", &h) && (h & 1);
}

/* memory:CUDAMemory out without the I420 frames of odd height it would
 * garble (cuda_memory_odd_i420_overlaps): negotiation takes another
 * memory or format for them. Heights still open are left to set_caps. */
static GstCaps *
without_garbled_cuda_i420 (GstCaps * cuda, GstCudaContext * ctx)
{
  if (!ctx || !cuda_memory_odd_i420_overlaps (ctx))
    return cuda;
  GstCaps *odd = gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), format = (string) I420");
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (cuda); i++) {
    GstCaps *one = gst_caps_copy_nth (cuda, i);
    gint h = 0;
    if (gst_structure_get_int (gst_caps_get_structure (one, 0), "height", &h) && (h & 1)) {
      GstCaps *rest = gst_caps_subtract (one, odd);
      gst_caps_unref (one);
      one = rest;
    }
    gst_caps_append (out, one);
  }
  gst_caps_unref (odd);
  gst_caps_unref (cuda);
  return out;
}

GstCaps *
gst_cv_caps_without_features (GstCaps * caps)
{
  GstCaps *plain = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    plain = gst_caps_merge_structure (plain, gst_structure_copy (gst_caps_get_structure (caps, i)));
  return plain;
}


GstCaps *
gst_cv_caps_in_memories (GstCaps * mapped, GstPadDirection direction, bool gpu_possible, GstCudaContext * ctx)
{
  GstCaps *result = gst_caps_new_empty ();
  if (gpu_possible) {
    gst_cv_caps_append_with_feature (result, mapped, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
    GstCaps *cuda = gst_caps_new_empty ();
    gst_cv_caps_append_with_feature (cuda, mapped, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    if (direction == GST_PAD_SINK) {
      GstCaps *held = gst_caps_intersect (cuda, cuda_memory_output_caps ());
      gst_caps_unref (cuda);
      cuda = without_garbled_cuda_i420 (held, ctx);
    }
    gst_caps_append (result, cuda);
  }
  gst_cv_caps_append_with_feature (result, mapped, nullptr);
  return result;
}

bool
gst_cv_caps_check_cuda_memory_output (GstElement * element, GstCaps * caps, GstCudaContext * ctx)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  if (!odd_height_i420 (s) || !cuda_memory_odd_i420_overlaps (ctx))
    return true;
  gint height = 0;
  gst_structure_get_int (s, "height", &height);
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
      ("memory:CUDAMemory cannot hold I420 frames of odd height (%d)", height),
      ("this GStreamer's GstCudaMemory overlaps the U and V planes of such frames; "
       "use NV12, an even height, or system memory downstream"));
  return false;
}

GstCaps *
gst_cv_caps_device_first (GstCaps * caps)
{
  GstCaps *ordered = gst_caps_new_empty ();
  for (const GstCvMemoryKind kind : { GST_CV_MEMORY_DEVICE, GST_CV_MEMORY_CUDA_MEMORY, GST_CV_MEMORY_SYSTEM }) {
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      const GstCvMemoryKind k = f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDAVISION)
          ? GST_CV_MEMORY_DEVICE
          : f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY) ? GST_CV_MEMORY_CUDA_MEMORY
                                                                                    : GST_CV_MEMORY_SYSTEM;
      if (k == kind)
        gst_caps_append_structure_full (ordered, gst_structure_copy (gst_caps_get_structure (caps, i)),
            f ? gst_caps_features_copy (f) : nullptr);
    }
  }
  return ordered;
}

void
gst_cv_caps_query_device_first (GstQuery * query)
{
  GstCaps *caps = nullptr;
  gst_query_parse_caps_result (query, &caps);
  if (caps && !gst_caps_is_any (caps) && gst_caps_get_size (caps) > 1) {
    GstCaps *ordered = gst_cv_caps_device_first (caps);
    gst_query_set_caps_result (query, ordered);
    gst_caps_unref (ordered);
  }
}
