/* cudavision — colour overlays: the property and the canvas (see the
 * header). */
#include "gstcvoverlay.h"

#include <cmath>

void
gst_cv_overlay_install_color (GObjectClass * klass, guint prop_id, guint32 default_argb, const gchar * blurb)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint ("color", "Color", blurb, 0, G_MAXUINT32, default_argb, GST_CV_PARAM_RW_PLAYING));
}

bool
gst_cv_format_is_yuv420 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_I420;
}

static uint8_t
clamp_u8 (double v)
{
  const long r = std::lround (v);
  return (uint8_t) (r < 0 ? 0 : r > 255 ? 255 : r);
}

/* Y, U, V of an RGB colour by the caps' matrix and range. */
static void
rgb_to_yuv (const GstVideoInfo * info, cudavision::OverlayColor c, uint8_t yuv[3])
{
  gdouble kr = 0.299, kb = 0.114;
  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &kr, &kb) || kr <= 0.0 || kb <= 0.0) {
    kr = 0.299;
    kb = 0.114;
  }
  gint offset[GST_VIDEO_MAX_COMPONENTS] = { 0 }, scale[GST_VIDEO_MAX_COMPONENTS] = { 0 };
  const GstVideoColorRange range =
      info->colorimetry.range == GST_VIDEO_COLOR_RANGE_UNKNOWN ? GST_VIDEO_COLOR_RANGE_16_235 : info->colorimetry.range;
  gst_video_color_range_offsets (range, info->finfo, offset, scale);
  const double r = c.r / 255.0, g = c.g / 255.0, b = c.b / 255.0;
  const double y = kr * r + (1.0 - kr - kb) * g + kb * b;
  const double pb = (b - y) / (2.0 * (1.0 - kb)), pr = (r - y) / (2.0 * (1.0 - kr));
  yuv[0] = clamp_u8 (offset[0] + y * scale[0]);
  yuv[1] = clamp_u8 (offset[1] + pb * scale[1]);
  yuv[2] = clamp_u8 (offset[2] + pr * scale[2]);
}

bool
gst_cv_canvas_init (const GstVideoInfo * info, guint32 argb, cudavision::Canvas * canvas)
{
  using cudavision::CanvasKind;
  *canvas = cudavision::Canvas ();
  const cudavision::OverlayColor c = cudavision::OverlayColor::from_argb (argb);
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  canvas->width = GST_VIDEO_INFO_WIDTH (info);
  canvas->height = GST_VIDEO_INFO_HEIGHT (info);
  if (format == GST_VIDEO_FORMAT_GRAY8) {
    canvas->kind = CanvasKind::Gray;
    canvas->value[0] = 255;
    return true;
  }
  if (gst_cv_format_is_yuv420 (format)) {
    canvas->kind = format == GST_VIDEO_FORMAT_NV12 ? CanvasKind::SemiPlanar : CanvasKind::Planar;
    rgb_to_yuv (info, c, canvas->value);
    return true;
  }
  cudavision::PackedRgb layout;
  if (!gst_cv_packed_rgb_layout (format, &layout))
    return false;
  *canvas = cudavision::packed_canvas ({ nullptr, 0, canvas->width, canvas->height }, layout, c);
  return true;
}

cudavision::Canvas
gst_cv_frame_canvas (GstVideoFrame * frame, guint32 argb)
{
  cudavision::Canvas canvas;
  gst_cv_canvas_init (&frame->info, argb, &canvas);
  gst_cv_canvas_set_frame (&canvas, frame);
  return canvas;
}

void
gst_cv_canvas_set_frame (cudavision::Canvas * canvas, GstVideoFrame * frame)
{
  canvas->width = GST_VIDEO_FRAME_WIDTH (frame);
  canvas->height = GST_VIDEO_FRAME_HEIGHT (frame);
  for (guint i = 0; i < 3; i++) {
    const bool has = i < GST_VIDEO_FRAME_N_PLANES (frame);
    canvas->plane[i] = has ? (uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (frame, i) : nullptr;
    canvas->pitch[i] = has ? (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (frame, i) : 0;
  }
}
