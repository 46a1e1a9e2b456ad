/* cudavision tests — a gtest fixture for calling cuda/ directly: device 0
 * current, one stream, launch policies of every mode, and host Mats to and
 * from pitched device buffers. Header-only (the CPU suite does not need
 * it). */
#pragma once

#include "../../cuda/common/cuda_raii.h"
#include "../../cuda/common/device_info.h"
#include "../../core/image.h"

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

namespace cvtest {

class DeviceTest : public ::testing::Test {
protected:
  void SetUp () override
  {
    ASSERT_EQ (cudaSetDevice (0), cudaSuccess);
    ASSERT_TRUE (cudavision::query_current_device (&dev).ok ());
    ASSERT_TRUE (stream.create ().ok ());
  }

  cudavision::LaunchPolicy policy (cudavision::BlockSizing mode = cudavision::BlockSizing::Static,
      cudavision::BlockShape user = {}) const
  {
    return cudavision::LaunchPolicy (dev, mode, user);
  }

  /* A host Mat (8-bit, any channels) in a pitched device buffer. */
  cudavision::ConstImage8 upload (const cv::Mat & m, cudavision::DeviceBuffer & buf)
  {
    const size_t row = m.cols * m.elemSize ();
    const size_t pitch = cudavision::aligned_pitch (row);
    EXPECT_TRUE (buf.allocate (pitch * m.rows).ok ());
    EXPECT_EQ (cudaMemcpy2D (buf.get (), pitch, m.data, m.step, row, m.rows, cudaMemcpyHostToDevice), cudaSuccess);
    /* from pageable memory the copy may return before the DMA lands, and
     * our non-blocking stream does not wait for the legacy default stream */
    EXPECT_EQ (cudaDeviceSynchronize (), cudaSuccess);
    return { buf.as<const uint8_t> (), pitch, m.cols, m.rows };
  }

  /* A device image into a Mat of `type` (its element size must match T's
   * row bytes: width * elemSize). */
  template <typename T>
  cv::Mat download (cudavision::ImageView<T> img, int type)
  {
    cv::Mat m (img.height, img.width, type);
    EXPECT_EQ (cudaMemcpy2D (m.data, m.step, img.data, img.pitch, img.width * m.elemSize (), img.height,
                   cudaMemcpyDeviceToHost),
        cudaSuccess);
    return m;
  }

  cudavision::DeviceDescription dev;
  cudavision::Stream stream;
};

}  // namespace cvtest
