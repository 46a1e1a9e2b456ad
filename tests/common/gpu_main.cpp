/* main() of the GPU test programs: exit 77 (meson's "skipped") when no
 * CUDA device is present, so CI without a GPU skips rather than fails. */
#include "test_util.h"

#include "../../cuda/device_info.h"

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
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
