/* main() of the GPU test programs: exit 77 (meson's "skipped") when no
 * CUDA device is present, so CI without a GPU skips rather than fails. */
#include "test_util.h"

#include "../../cuda/common/device_info.h"
#include "gstcvcontext.h"

#include <gst/cuda/gstcudautils.h>

#include <gtest/gtest.h>

#include <cstdio>

int
main (int argc, char **argv)
{
  if (cudavision::cuda_device_count () == 0) {
    std::printf ("no CUDA device: skipping the GPU tests\n");
    return 77;
  }
  cvtest::init_gstreamer (&argc, &argv);
  /* One CUDA context for every element of the tests, shared the way
   * applications share it (GStreamer's context mechanism). */
  GstCudaContext *cuda = gst_cv_cuda_available () ? gst_cuda_context_new (0) : nullptr;
  if (cuda) {
    GstContext *ctx = gst_context_new_cuda_context (cuda);
    cvtest::set_shared_context (ctx);
    gst_context_unref (ctx);
  }
  ::testing::InitGoogleTest (&argc, argv);
  const int rc = RUN_ALL_TESTS ();
  cvtest::set_shared_context (nullptr);
  if (cuda)
    gst_object_unref (cuda);
  return rc;
}
