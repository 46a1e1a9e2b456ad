/* 200 (under the sanitizers 50) NULL -> PLAYING -> NULL cycles of a
 * pipeline with every element on the CPU backend, under GStreamer's leaks
 * tracer: no object created during the cycles may survive them, and
 * resident memory stays flat.
 * main() turns the tracer on (GST_TRACERS=leaks) unless GST_TRACERS is
 * already set. */
#include "../common/edge_cases.h"

#include <gtest/gtest.h>

using namespace cvtest;

TEST (LifecycleCpu, TwoHundredStartStopCyclesLeakNothing)
{
  GstTracer *t = leaks_tracer ();
  ASSERT_TRUE (t) << "the leaks tracer is not active: GST_TRACERS=" << (g_getenv ("GST_TRACERS") ?: "(unset)");
  gst_object_unref (t);
  /* 8 MiB: allocator arenas settle; a leaked 96x72 frame per element per
   * cycle would be 200 x 7 x 27 KiB = 37 MiB. Under the sanitizers 50
   * cycles: memory growth is not measured there, and the leaks tracer and
   * LeakSanitizer see what one cycle leaves. */
  check_start_stop_cycles ("backend=cpu", sanitizer_pass () ? 50 : 200, 96, 72, { -1, 8 });
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "leaks", FALSE);
  init_gstreamer (&argc, &argv);
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
