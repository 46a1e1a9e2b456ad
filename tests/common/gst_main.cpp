/* main() of the GStreamer test programs that run everywhere (CPU backend). */
#include "test_util.h"

#include <gtest/gtest.h>

int
main (int argc, char **argv)
{
  cvtest::init_gstreamer (&argc, &argv);
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
