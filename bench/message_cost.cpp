/* cudavision-bench-message — what an element message costs the streaming
 * thread: the "facedetect" message cudafacedetect posts each frame
 * (gst-plugins-bad facedetect's fields: timestamp, stream-time,
 * running-time, duration and a list of face structures), built and
 * posted by the element's own functions (gst/gstcvframemessage.h) for an
 * identity element (a base transform, as the element is) in a pipeline
 * (element -> its bin -> the pipeline's bus). No GPU is used.
 *
 *   cudavision-bench-message [--faces 0,4] [--gaps 0,1000] [--messages 3000]
 *                            [--reader blocking|spin|none]
 *
 * Who reads the bus changes what a post costs: `blocking` (the default) is
 * a thread waiting on it, as gst-launch-1.0 and cudavision-streams do (a
 * main loop's watch sleeps in poll () the same way): each post wakes it;
 * `spin` a thread popping it in a loop (the popper holds the queue lock
 * every post takes); `none` nobody (the queue only grows, no wake-up).
 *
 * --faces: 0 to 1000 each; --gaps: 0 to 1000000 µs each; --messages: 1 to
 * 10000000; anything else is refused (exit status 2).
 *
 * For each number of faces and each gap (µs the thread sleeps before each
 * message, as a streaming thread waits between a camera's frames), the
 * median and p90 µs of the build and of the post. A hot loop (gap 0)
 * against a gap of a millisecond shows how much of a paced element's
 * figure is GStreamer's code run with cold caches (docs/RELIABILITY.md). */
#include "bench_util.h"
#include "frame_source.h"
#include "gstcvframemessage.h"

#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using cvbench::percentile;
using Clock = std::chrono::steady_clock;

double
micros (Clock::time_point a, Clock::time_point b)
{
  return std::chrono::duration<double, std::micro> (b - a).count ();
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  std::vector<int> faces { 0, 4 }, gaps { 0, 1000 };
  int messages = 3000;
  std::string reader = "blocking";
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--faces")
      faces = cvbench::arg_int_list (a, cvbench::arg_value (argc, argv, i), 0, 1000);
    else if (a == "--gaps")
      gaps = cvbench::arg_int_list (a, cvbench::arg_value (argc, argv, i), 0, 1000000);
    else if (a == "--messages")
      messages = cvbench::arg_int (a, cvbench::arg_value (argc, argv, i), 1, 10000000);
    else if (a == "--reader")
      reader = cvbench::arg_value (argc, argv, i);
    else {
      std::fprintf (stderr, "usage: %s [--faces 0,4] [--gaps 0,1000] [--messages 3000] [--reader blocking|spin|none]\n", argv[0]);
      return 2;
    }
  }
  if (reader != "blocking" && reader != "spin" && reader != "none") {
    std::fprintf (stderr, "--reader: blocking, spin or none\n");
    return 2;
  }
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch ("fakesrc ! identity name=poster ! fakesink", &err);
  if (!pipe) {
    std::fprintf (stderr, "pipeline: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    return 1;
  }
  GstElement *poster = gst_bin_get_by_name (GST_BIN (pipe), "poster");
  GstBaseTransform *trans = GST_BASE_TRANSFORM (poster);
  /* a TIME segment, as a playing element has: the stream and running
   * times are converted from it */
  gst_segment_init (&trans->segment, GST_FORMAT_TIME);
  GstBus *bus = gst_element_get_bus (pipe);
  std::atomic<bool> quit { false };
  std::thread reader_thread ([&] () {
    while (!quit.load ()) {
      if (reader == "spin") {
        if (GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))
          gst_message_unref (m);
        std::this_thread::yield ();
      } else if (reader == "blocking") {
        if (GstMessage *m = gst_bus_timed_pop (bus, 100 * GST_MSECOND))
          gst_message_unref (m);
      } else {
        return;
      }
    }
  });
  GstBuffer *inbuf = gst_buffer_new ();
  GST_BUFFER_PTS (inbuf) = GST_SECOND;
  GST_BUFFER_DURATION (inbuf) = GST_SECOND / 30;
  std::printf ("bus reader: %s\n\n", reader.c_str ());
  std::printf ("| faces | gap (us) | build median / p90 (us) | post median / p90 (us) |\n|---|---|---|---|\n");
  for (int f : faces)
    for (int gap : gaps) {
      std::vector<cudavision::FaceRect> rects (std::max (0, f));
      for (size_t i = 0; i < rects.size (); i++)
        rects[i] = { (int) (100 * i), 40, 80, 80 };
      std::vector<double> build, post;
      for (int i = 0; i < messages; i++) {
        if (gap > 0)
          std::this_thread::sleep_for (std::chrono::microseconds (gap));
        const Clock::time_point t0 = Clock::now ();
        GstStructure *s = gst_cv_faces_message_new (trans, inbuf, rects.data (), rects.size ());
        const Clock::time_point t1 = Clock::now ();
        gst_cv_post_frame_message (trans, s);
        const Clock::time_point t2 = Clock::now ();
        build.push_back (micros (t0, t1));
        post.push_back (micros (t1, t2));
        /* the bus keeps what nobody reads: dropped now and then, untimed */
        if (reader == "none" && i % 500 == 499) {
          gst_bus_set_flushing (bus, TRUE);
          gst_bus_set_flushing (bus, FALSE);
        }
      }
      std::printf ("| %d | %d | %.2f / %.2f | %.2f / %.2f |\n", f, gap, percentile (build, 0.5),
          percentile (build, 0.9), percentile (post, 0.5), percentile (post, 0.9));
    }
  quit = true;
  reader_thread.join ();
  gst_buffer_unref (inbuf);
  gst_object_unref (bus);
  gst_object_unref (poster);
  gst_object_unref (pipe);
  return 0;
}
