/* Caps helpers and the pitched device layout (no GPU needed). */
#include "gstcvbasefilter.h"
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

TEST (Caps, TemplateOffersDeviceCudaMemoryAndSystem)
{
  GstCaps *c = gst_cv_base_filter_make_caps ("{ RGBA, NV12 }", TRUE);
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

  GstCaps *d = gst_cv_base_filter_make_caps ("GRAY8", FALSE);
  EXPECT_EQ (gst_caps_get_size (d), 2u);
  gst_caps_unref (d);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
