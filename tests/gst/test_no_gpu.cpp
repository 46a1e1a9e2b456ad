/* No usable GPU, on any machine: main() hides every CUDA device
 * (CUDA_VISIBLE_DEVICES=-1) before anything touches CUDA, so these run the
 * same in CI and on a GPU machine. Every element: backend=cuda is a clear
 * error; backend=auto runs on the CPU, gives the CPU backend's output and
 * warns, on the bus and in gst-launch-1.0's output (-q included, which
 * prints no bus messages: the elements write one line to stderr, once per
 * pipeline). */
#include "../common/edge_cases.h"

#include "../../cuda/common/device_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace cvtest;

TEST (NoGpu, DevicesAreHidden)
{
  EXPECT_EQ (cudavision::cuda_device_count (), 0);
}

TEST (NoGpu, BackendCudaIsAClearErrorOnEveryElement)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string desc = el.description ("backend=cuda");
    BusResult r = run_pipeline ("videotestsrc num-buffers=2 ! " + caps_string (el.fmt_a, 64, 48) + " ! " + desc +
        " ! fakesink");
    EXPECT_FALSE (r.eos) << desc;
    ASSERT_EQ (r.errors.size (), 1u) << desc;
    EXPECT_TRUE (r.has_error_containing ("No usable CUDA device, and backend=cuda was requested")) << r.errors[0];
    EXPECT_TRUE (r.has_error_containing ("backend=auto or backend=cpu")) << r.errors[0];
    EXPECT_EQ (r.error_domains[0], GST_RESOURCE_ERROR) << desc;
  }
}

TEST (NoGpu, BackendAutoRunsOnTheCpuAndWarnsOnEveryElement)
{
  for (const EdgeElement & el : edge_elements ()) {
    const std::string name = el.name + "0";
    BusResult r = run_pipeline ("videotestsrc num-buffers=2 ! " + caps_string (el.fmt_a, 64, 48) + " ! " + el.name +
        " name=" + name + " " + el.props + " ! fakesink");
    EXPECT_TRUE (r.eos) << el.name;
    EXPECT_TRUE (r.errors.empty ()) << el.name;
    ASSERT_EQ (r.warnings.size (), 1u) << el.name;
    EXPECT_TRUE (r.has_warning_containing (name + ": No usable CUDA device: " + name +
        " runs on the CPU backend (OpenCV)"))
        << r.warnings[0];

    /* and its output is the CPU backend's */
    const std::vector<InFrame> frames = { { el.fmt_a, 160, 120, 0 }, { el.fmt_a, 160, 120, 2 } };
    const std::vector<Output> got = run_frames (el.description ("backend=auto"), frames);
    const std::vector<Output> want = run_frames (el.description ("backend=cpu"), frames);
    ASSERT_EQ (got.size (), 2u) << el.name;
    ASSERT_EQ (want.size (), 2u) << el.name;
    for (size_t i = 0; i < 2; i++)
      EXPECT_TRUE (got[i] == want[i]) << el.name << " frame " << i << ": " << difference (got[i], want[i]);
  }
}

TEST (NoGpu, MissingDeviceIdIsTheSameClearError)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=1 ! cudagray backend=cuda device-id=3 ! fakesink");
  ASSERT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_error_containing ("device-id=3")) << r.errors[0];
}

namespace {

struct Launch {
  int status = -1;
  std::string out;  /* stdout and stderr */
};

Launch
gst_launch (const std::vector<std::string> & args)
{
  Launch l;
  gchar *prog = g_find_program_in_path ("gst-launch-1.0");
  if (!prog) {
    l.out = "gst-launch-1.0 is not on PATH";
    return l;
  }
  std::vector<gchar *> argv = { prog };
  for (const auto & a : args)
    argv.push_back ((gchar *) a.c_str ());
  argv.push_back (nullptr);
  gchar **env = g_get_environ ();
  env = g_environ_setenv (env, "CUDA_VISIBLE_DEVICES", "-1", TRUE);
  env = g_environ_setenv (env, "GST_PLUGIN_PATH", CUDAVISION_PLUGIN_DIR, TRUE);
  env = g_environ_setenv (env, "GST_DEBUG", "0", TRUE);
  gchar *out = nullptr, *err = nullptr;
  GError *e = nullptr;
  if (g_spawn_sync (nullptr, argv.data (), env, G_SPAWN_DEFAULT, nullptr, nullptr, &out, &err, &l.status, &e)) {
    l.out = std::string (out ? out : "") + (err ? err : "");
  } else {
    l.out = e->message;
    g_clear_error (&e);
  }
  g_free (out);
  g_free (err);
  g_strfreev (env);
  g_free (prog);
  return l;
}

size_t
count (const std::string & text, const std::string & what)
{
  size_t n = 0;
  for (size_t p = text.find (what); p != std::string::npos; p = text.find (what, p + 1))
    n++;
  return n;
}

}  // namespace

TEST (NoGpu, GstLaunchShowsTheFallback)
{
#if defined(__SANITIZE_ADDRESS__)
  /* an ASan-built plugin cannot be loaded into gst-launch-1.0, which is not
   * (the ASan runtime must come first); the regular build runs this */
  GTEST_SKIP () << "sanitizer build: the plugin cannot load into an uninstrumented gst-launch-1.0";
#endif
  const std::string line = "cudavision: No usable CUDA device: the elements run on the CPU backend (OpenCV)";
  /* -q: bus warnings are not printed; the one stderr line is */
  Launch quiet = gst_launch ({ "-q", "videotestsrc", "num-buffers=2", "!", "cudagray", "!", "cudablur", "!",
      "cudacanny", "!", "fakesink" });
  EXPECT_EQ (quiet.status, 0) << quiet.out;
  EXPECT_EQ (count (quiet.out, line), 1u) << "once per pipeline, not per element:\n" << quiet.out;

  /* without -q: the line and each element's bus warning */
  Launch verbose = gst_launch ({ "videotestsrc", "num-buffers=2", "!", "cudagray", "!", "cudablur", "!", "fakesink" });
  EXPECT_EQ (verbose.status, 0) << verbose.out;
  EXPECT_EQ (count (verbose.out, line), 1u) << verbose.out;
  EXPECT_EQ (count (verbose.out, "WARNING: from element"), 2u) << verbose.out;
  EXPECT_NE (verbose.out.find ("cudagray0 runs on the CPU backend"), std::string::npos) << verbose.out;

  /* backend=cpu chose the CPU: nothing to say */
  Launch cpu = gst_launch ({ "-q", "videotestsrc", "num-buffers=2", "!", "cudagray", "backend=cpu", "!", "fakesink" });
  EXPECT_EQ (cpu.status, 0) << cpu.out;
  EXPECT_EQ (cpu.out.find ("cudavision:"), std::string::npos) << cpu.out;

  /* backend=cuda: gst-launch reports the error and fails */
  Launch cuda = gst_launch ({ "-q", "videotestsrc", "num-buffers=2", "!", "cudagray", "backend=cuda", "!",
      "fakesink" });
  EXPECT_NE (cuda.status, 0);
  EXPECT_NE (cuda.out.find ("No usable CUDA device, and backend=cuda was requested"), std::string::npos) << cuda.out;
}

int
main (int argc, char **argv)
{
  /* before any CUDA call: the runtime reads it once */
  g_setenv ("CUDA_VISIBLE_DEVICES", "-1", TRUE);
  init_gstreamer (&argc, &argv);
  ::testing::InitGoogleTest (&argc, argv);
  return RUN_ALL_TESTS ();
}
