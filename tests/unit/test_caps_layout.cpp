/* Caps helpers and the pitched device layout (no GPU needed). */
#include "gstcvbasefilter.h"
#include "gstcvoverlay.h"
#include "gstcvmemory.h"

#include <gtest/gtest.h>

TEST (PitchedLayout, StridesAreAlignedAndPlanesDoNotOverlap)
{
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420 };
  const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 641, 479 }, { 1921, 1081 }, { 16384, 16384 } };
  for (GstVideoFormat f : formats) {
    for (const auto & s : sizes) {
      GstVideoInfo info;
      ASSERT_TRUE (gst_video_info_set_format (&info, f, s[0], s[1]));
      GstVideoInfo l = info;
      ASSERT_TRUE (gst_cv_video_info_set_pitched (&l)) << gst_video_format_to_string (f);
      for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&l); p++) {
        EXPECT_EQ (l.stride[p] % 256, 0) << gst_video_format_to_string (f) << " plane " << p;
        EXPECT_GE (l.stride[p], info.stride[p]);
        EXPECT_EQ (l.offset[p] % 256, 0u);
        if (p > 0) {
          /* for these formats plane i holds component i */
          EXPECT_GE (l.offset[p], l.offset[p - 1] + (gsize) l.stride[p - 1] *
              GST_VIDEO_INFO_COMP_HEIGHT (&l, p - 1));
        }
      }
      EXPECT_GE (l.size, info.size);
    }
  }
}

TEST (Caps, TemplatesOfferDeviceCudaMemoryAndSystem)
{
  GstCaps *c = gst_cv_base_filter_make_caps ("{ RGBA, NV12 }", GST_PAD_SINK);
  ASSERT_EQ (gst_caps_get_size (c), 3u);
  EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (c, 0), GST_CAPS_FEATURE_MEMORY_CUDAVISION));
  EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (c, 1), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  EXPECT_TRUE (gst_caps_features_is_equal (gst_caps_get_features (c, 2), GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
  GstCaps *too_big = gst_caps_from_string ("video/x-raw,format=RGBA,width=16385,height=10");
  EXPECT_FALSE (gst_caps_can_intersect (c, too_big));
  GstCaps *ok = gst_caps_from_string ("video/x-raw,format=NV12,width=1,height=1");
  EXPECT_TRUE (gst_caps_can_intersect (c, ok));
  gst_caps_unref (too_big);
  gst_caps_unref (ok);
  gst_caps_unref (c);

  /* out: GstCudaMemory holds every format of ours but GRAY8 */
  GstCaps *d = gst_cv_base_filter_make_caps ("GRAY8", GST_PAD_SRC);
  EXPECT_EQ (gst_caps_get_size (d), 2u);
  for (guint i = 0; i < gst_caps_get_size (d); i++)
    EXPECT_FALSE (gst_caps_features_contains (gst_caps_get_features (d, i), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  gst_caps_unref (d);
  GstCaps *e = gst_cv_base_filter_make_caps ("{ GRAY8, NV12, I420, RGBA, BGR }", GST_PAD_SRC);
  ASSERT_EQ (gst_caps_get_size (e), 3u);
  ASSERT_TRUE (gst_caps_features_contains (gst_caps_get_features (e, 1), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  GstCaps *cuda_gray = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=GRAY8,width=64,height=64");
  GstCaps *cuda_nv12 = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=64");
  GstCaps *cuda_bgr = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=BGR,width=64,height=64");
  EXPECT_FALSE (gst_caps_can_intersect (e, cuda_gray));
  EXPECT_TRUE (gst_caps_can_intersect (e, cuda_nv12));
  EXPECT_TRUE (gst_caps_can_intersect (e, cuda_bgr));
  gst_caps_unref (cuda_gray);
  gst_caps_unref (cuda_nv12);
  gst_caps_unref (cuda_bgr);
  gst_caps_unref (e);
}

/* The overlay colour in each format's bytes: literal values of the
 * standards (red, 8 bits, rounded), not the formula again. */
TEST (Overlay, ColourBytesPerFormatAndColorimetry)
{
  const guint32 red = 0xffff0000u, green_half = 0x8000ff00u;
  GstVideoInfo info;
  cudavision::Canvas c;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 640, 480);
  ASSERT_TRUE (gst_video_colorimetry_from_string (&info.colorimetry, "bt601"));
  ASSERT_TRUE (gst_cv_canvas_init (&info, red, &c));
  EXPECT_EQ (c.kind, cudavision::CanvasKind::SemiPlanar);
  EXPECT_EQ ((int) c.value[0], 81);   /* 16 + 219 * 0.299 */
  EXPECT_EQ ((int) c.value[1], 90);   /* 128 - 112 * 0.299 / 0.886 */
  EXPECT_EQ ((int) c.value[2], 240);  /* 128 + 112 */

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 1920, 1080);
  ASSERT_TRUE (gst_video_colorimetry_from_string (&info.colorimetry, "bt709"));
  ASSERT_TRUE (gst_cv_canvas_init (&info, red, &c));
  EXPECT_EQ (c.kind, cudavision::CanvasKind::Planar);
  EXPECT_EQ ((int) c.value[0], 63);   /* 16 + 219 * 0.2126 */
  EXPECT_EQ ((int) c.value[1], 102);  /* 128 - 112 * 0.2126 / 0.9278 */
  EXPECT_EQ ((int) c.value[2], 240);

  /* full range (JPEG's) */
  ASSERT_TRUE (gst_video_colorimetry_from_string (&info.colorimetry, "1:4:0:0"));
  ASSERT_TRUE (gst_cv_canvas_init (&info, 0xffffffffu, &c));
  EXPECT_EQ ((int) c.value[0], 255);
  EXPECT_EQ ((int) c.value[1], 128);
  EXPECT_EQ ((int) c.value[2], 128);

  /* packed: R, G, B (and A where the format has it) at their bytes */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGRA, 64, 64);
  ASSERT_TRUE (gst_cv_canvas_init (&info, green_half, &c));
  EXPECT_EQ (c.kind, cudavision::CanvasKind::Packed);
  EXPECT_EQ (c.bpp, 4);
  EXPECT_EQ ((int) c.offset[0], 2);
  EXPECT_EQ ((int) c.offset[1], 1);
  EXPECT_EQ ((int) c.offset[2], 0);
  EXPECT_EQ ((int) c.offset[3], 3);
  EXPECT_EQ ((int) c.value[1], 255);
  EXPECT_EQ ((int) c.value[3], 0x80);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_xRGB, 64, 64);
  ASSERT_TRUE (gst_cv_canvas_init (&info, green_half, &c));
  EXPECT_EQ ((int) c.offset[3], -1); /* padding left alone */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGR, 64, 64);
  ASSERT_TRUE (gst_cv_canvas_init (&info, green_half, &c));
  EXPECT_EQ (c.bpp, 3);
  EXPECT_EQ ((int) c.offset[0], 2);

  /* GRAY8 marks are white whatever the colour */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 64);
  ASSERT_TRUE (gst_cv_canvas_init (&info, red, &c));
  EXPECT_EQ (c.kind, cudavision::CanvasKind::Gray);
  EXPECT_EQ ((int) c.value[0], 255);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_YUY2, 64, 64);
  EXPECT_FALSE (gst_cv_canvas_init (&info, red, &c));
}

/* A pixel of a 4:2:0 frame is its luma sample and the chroma sample over
 * it; odd sizes keep the last chroma column and row. */
TEST (Overlay, PaintTouchesTheLumaAndTheChromaAboveIt)
{
  for (GstVideoFormat format : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, format, 7, 5);
    GstBuffer *buf = gst_buffer_new_allocate (nullptr, info.size, nullptr);
    gst_buffer_memset (buf, 0, 0x11, info.size);
    GstVideoFrame f;
    ASSERT_TRUE (gst_video_frame_map (&f, &info, buf, GST_MAP_READWRITE));
    cudavision::Canvas c;
    ASSERT_TRUE (gst_cv_canvas_init (&info, 0xff0000ffu, &c));
    gst_cv_canvas_set_frame (&c, &f);
    EXPECT_EQ (c.width, 7);
    EXPECT_EQ (c.height, 5);
    c.paint (6, 4);
    const uint8_t *y = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
    const gint ys = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    EXPECT_EQ (y[4 * ys + 6], c.value[0]);
    EXPECT_EQ (y[4 * ys + 5], 0x11);
    EXPECT_EQ (y[3 * ys + 6], 0x11);
    const uint8_t *p1 = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&f, 1);
    const gint s1 = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1);
    if (format == GST_VIDEO_FORMAT_NV12) {
      EXPECT_EQ (p1[2 * s1 + 6], c.value[1]);
      EXPECT_EQ (p1[2 * s1 + 7], c.value[2]);
      EXPECT_EQ (p1[2 * s1 + 4], 0x11);
    } else {
      const uint8_t *p2 = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&f, 2);
      const gint s2 = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 2);
      EXPECT_EQ (p1[2 * s1 + 3], c.value[1]);
      EXPECT_EQ (p2[2 * s2 + 3], c.value[2]);
      EXPECT_EQ (p1[2 * s1 + 2], 0x11);
    }
    gst_video_frame_unmap (&f);
    gst_buffer_unref (buf);
  }
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
