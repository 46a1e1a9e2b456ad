/* cudavision — mapped video frames (see gstcvframe.h). */
#include "gstcvframe.h"

#include <cstdarg>

/* The base class's category: these are its checks. */
GST_DEBUG_CATEGORY_EXTERN (gst_cv_base_filter_debug);
#define GST_CAT_DEFAULT gst_cv_base_filter_debug

cudavision::CudaStatus
gst_cv_frame_copy_planes (GstVideoFrame * dst, GstVideoFrame * src, guint first_plane, cudaMemcpyKind kind,
    cudaStream_t stream)
{
  const GstVideoFormatInfo *finfo = src->info.finfo;
  for (guint plane = first_plane; plane < GST_VIDEO_FRAME_N_PLANES (src); plane++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (finfo, plane, comps);
    const gint c = comps[0];
    const size_t row_bytes =
        (size_t) GST_VIDEO_FRAME_COMP_WIDTH (src, c) * GST_VIDEO_FRAME_COMP_PSTRIDE (src, c);
    const size_t rows = GST_VIDEO_FRAME_COMP_HEIGHT (src, c);
    CV_CUDA_TRY (cudaMemcpy2DAsync (GST_VIDEO_FRAME_PLANE_DATA (dst, plane), GST_VIDEO_FRAME_PLANE_STRIDE (dst, plane),
        GST_VIDEO_FRAME_PLANE_DATA (src, plane), GST_VIDEO_FRAME_PLANE_STRIDE (src, plane), row_bytes, rows,
        kind, stream));
  }
  return {};
}

bool
gst_cv_frame_meta_survives (GstMeta * meta)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);
  if (!tags)
    return true;
  for (; *tags; tags++) {
    if (g_strcmp0 (*tags, GST_META_TAG_VIDEO_STR) != 0 && g_strcmp0 (*tags, GST_META_TAG_VIDEO_SIZE_STR) != 0 &&
        g_strcmp0 (*tags, GST_META_TAG_VIDEO_ORIENTATION_STR) != 0)
      return false;
  }
  return true;
}

static std::string format_string (const gchar * fmt, ...) G_GNUC_PRINTF (1, 2);

static std::string
format_string (const gchar * fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  gchar *s = g_strdup_vprintf (fmt, args);
  va_end (args);
  std::string out = s;
  g_free (s);
  return out;
}

/* Bytes of a visible row of `plane`, and its rows: its first component's. */
static guint64
plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comps);
  return (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, comps[0]) * GST_VIDEO_INFO_COMP_PSTRIDE (info, comps[0]);
}

static guint64
plane_rows (const GstVideoInfo * info, guint plane)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comps);
  return (guint64) GST_VIDEO_INFO_COMP_HEIGHT (info, comps[0]);
}

/* What is wrong with `buf` as a frame of `info` (its caps), as the error's
 * sentence, with the numbers in *detail; empty when nothing is. Without a
 * GstVideoMeta the caps' default layout must fit the buffer (that is what
 * gst_video_frame_map assumes). With one, its format and size must be the
 * caps' (the map takes the meta's size for the frame's), and every plane,
 * from its first byte in memory to its last visible one, must lie in one
 * memory of the buffer: the meta's map maps only the memory that holds
 * the plane's offset, and the backends read every row from there. The
 * arithmetic is 64-bit: strides of G_MAXINT or G_MININT do not wrap.
 * Strings are built only for a frame that fails. */
static std::string
layout_problem (GstBuffer * buf, const GstVideoInfo * info, const gchar * what, bool bottom_up_ok,
    std::string * detail)
{
  const gsize size = gst_buffer_get_size (buf);
  const gchar *fmt = GST_VIDEO_INFO_NAME (info);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  if (!meta) {
    if (size >= info->size)
      return {};
    *detail = "no GstVideoMeta: the caps' default layout is assumed";
    return format_string ("The %s buffer is too small: %" G_GSIZE_FORMAT " bytes for a %dx%d %s frame of %"
        G_GSIZE_FORMAT, what, size, info->width, info->height, fmt, info->size);
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) || meta->width != (guint) info->width ||
      meta->height != (guint) info->height || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
    *detail = format_string ("GstVideoMeta: %u plane%s; caps: %u; a frame is mapped at its meta's size, "
        "not the caps'", meta->n_planes, meta->n_planes == 1 ? "" : "s", GST_VIDEO_INFO_N_PLANES (info));
    return format_string ("The %s frame's GstVideoMeta describes a %ux%u %s frame, its caps a %dx%d %s one", what,
        meta->width, meta->height, gst_video_format_to_string (meta->format), info->width, info->height, fmt);
  }

  const guint n_mem = gst_buffer_n_memory (buf);
  for (guint p = 0; p < meta->n_planes; p++) {
    const gint64 stride = meta->stride[p];
    const guint64 pitch = stride < 0 ? (guint64) -stride : (guint64) stride;
    const guint64 row = plane_row_bytes (info, p), rows = plane_rows (info, p);
    const guint64 offset = meta->offset[p];
    auto describe = [&] () {
      *detail = format_string ("%dx%d %s, plane %u: offset %" G_GUINT64_FORMAT ", stride %" G_GINT64_FORMAT ", %"
          G_GUINT64_FORMAT " rows of %" G_GUINT64_FORMAT " bytes; a buffer of %" G_GSIZE_FORMAT " bytes in %u memor%s",
          info->width, info->height, fmt, p, offset, stride, rows, row, size, n_mem, n_mem == 1 ? "y" : "ies");
    };
    if (stride < 0 && !bottom_up_ok) {
      describe ();
      return format_string ("The %s frame's plane %u has a negative stride (%" G_GINT64_FORMAT
          "): bottom-up frames are supported in system memory only", what, p, stride);
    }
    if (pitch < row) {
      describe ();
      return format_string ("The %s frame's plane %u has a stride of %" G_GINT64_FORMAT
          " bytes, smaller than a row (%" G_GUINT64_FORMAT " bytes)", what, p, stride, row);
    }
    /* at most 2^31 * 16384: no overflow */
    const guint64 before_last = pitch * (rows - 1), span = before_last + row;
    /* bottom-up: the offset is the top row's, the last in memory */
    if (stride < 0 && before_last > offset) {
      describe ();
      return format_string ("The %s frame's plane %u has bottom-up rows starting %" G_GUINT64_FORMAT
          " bytes before the start of its buffer", what, p, before_last - offset);
    }
    const guint64 first = stride < 0 ? offset - before_last : offset;
    if (first > size || span > size - first) {
      describe ();
      return format_string ("The %s frame's plane %u reaches past the end of its %" G_GSIZE_FORMAT "-byte buffer",
          what, p, size);
    }
    /* the memories that [first, first + span) touches */
    guint64 start = 0;
    guint touched = 0;
    for (guint m = 0; m < n_mem && start < first + span; m++) {
      const guint64 end = start + gst_buffer_peek_memory (buf, m)->size;
      if (end > first && end > start)
        touched++;
      start = end;
    }
    if (touched > 1) {
      describe ();
      return format_string ("The %s frame's plane %u spans %u memories of its buffer", what, p, touched);
    }
  }
  return {};
}

bool
gst_cv_frame_check_layout (GstElement * element, GstBuffer * buf, const GstVideoInfo * info, const gchar * what,
    bool bottom_up_ok)
{
  std::string detail;
  const std::string problem = layout_problem (buf, info, what, bottom_up_ok, &detail);
  if (problem.empty ())
    return true;
  GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("%s", problem.c_str ()), ("%s", detail.c_str ()));
  return false;
}

bool
GstCvHostInput::map (GstElement * element, const GstVideoInfo * info, GstBuffer * inbuf)
{
  if (!gst_video_frame_map (&mapped, info, inbuf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
    return false;
  }
  is_mapped = true;
  bool bottom_up = false;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (&mapped); i++)
    bottom_up = bottom_up || GST_VIDEO_FRAME_PLANE_STRIDE (&mapped, i) < 0;
  if (!bottom_up)
    return true;
  GST_LOG_OBJECT (element, "bottom-up input: copied top-down");
  flat_buf = gst_buffer_new_allocate (nullptr, info->size, nullptr);
  if (!flat_buf || !gst_video_frame_map (&flat, info, flat_buf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a top-down copy of the input frame"),
        ("%dx%d %s, bottom-up", info->width, info->height, GST_VIDEO_INFO_NAME (info)));
    return false;
  }
  flat_mapped = true;
  if (!gst_video_frame_copy (&flat, &mapped)) {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("Could not copy the bottom-up input frame"), (nullptr));
    return false;
  }
  return true;
}
