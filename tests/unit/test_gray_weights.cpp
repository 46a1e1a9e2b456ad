/* The GPU kernel's fixed-point grey formula (cuda/gray_weights.h), checked
 * bit-exact against cv::cvtColor on the CPU: every (R,G,B) triple and the
 * bundled images. The GPU tests then only need to prove the kernel applies it. */
#include "../../core/gray_weights.h"

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

TEST (GrayWeights, AllColoursMatchOpenCV)
{
  /* 2^24 colours as a 4096x4096 image. */
  cv::Mat rgb (4096, 4096, CV_8UC3);
  for (int i = 0; i < 4096 * 4096; i++) {
    cv::Vec3b & p = rgb.at<cv::Vec3b> (i / 4096, i % 4096);
    p = cv::Vec3b ((uint8_t) (i >> 16), (uint8_t) (i >> 8), (uint8_t) i);
  }
  cv::Mat gray;
  cv::cvtColor (rgb, gray, cv::COLOR_RGB2GRAY);
  long mismatches = 0;
  for (int i = 0; i < 4096 * 4096; i++) {
    const cv::Vec3b p = rgb.at<cv::Vec3b> (i / 4096, i % 4096);
    if (cudavision::rgb_to_gray_u8 (p[0], p[1], p[2]) != gray.at<uint8_t> (i / 4096, i % 4096))
      mismatches++;
  }
  EXPECT_EQ (mismatches, 0);
}

TEST (GrayWeights, WeightsSumToOne)
{
  EXPECT_EQ (cudavision::kGrayR + cudavision::kGrayG + cudavision::kGrayB, 1u << cudavision::kGrayShift);
  EXPECT_EQ (cudavision::rgb_to_gray_u8 (255, 255, 255), 255);
  EXPECT_EQ (cudavision::rgb_to_gray_u8 (0, 0, 0), 0);
}
