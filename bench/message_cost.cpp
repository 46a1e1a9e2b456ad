/* cudavision-bench-message — what an element message costs the streaming
 * thread: the "facedetect" message cudafacedetect posts each frame
 * (gst-plugins-bad facedetect's fields: timestamp, stream-time,
 * running-time, duration and a list of face structures), built as
 * gst/gstcudafacedetect.cpp builds it and posted from an element in a
 * pipeline (element -> its bin -> the pipeline's bus), nobody reading the
 * bus as in cudavision-streams. No GPU, no cudavision: GStreamer alone.
 *
 *   cudavision-bench-message [--faces 0,4] [--gaps 0,1000] [--messages 3000]
 *
 * For each number of faces and each gap (µs the thread sleeps before each
 * message, as a streaming thread waits between a camera's frames), the
 * median and p90 µs of the build and of the post. A hot loop (gap 0)
 * against a gap of a millisecond shows how much of a paced element's
 * figure is GStreamer's code run with cold caches (docs/RELIABILITY.md). */
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double
micros (Clock::time_point a, Clock::time_point b)
{
  return std::chrono::duration<double, std::micro> (b - a).count ();
}

double
percentile (std::vector<double> v, double p)
{
  std::sort (v.begin (), v.end ());
  return v.empty () ? 0.0 : v[std::min (v.size () - 1, (size_t) (p * (double) (v.size () - 1) + 0.5))];
}

std::vector<int>
int_list (const char *s)
{
  std::vector<int> out;
  std::string t (s);
  size_t at = 0;
  while (at <= t.size ()) {
    const size_t comma = t.find (',', at);
    const std::string item = t.substr (at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty ())
      out.push_back (std::atoi (item.c_str ()));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return out;
}

/* cudafacedetect's message (post_faces_message and gst_cv_frame_message_new):
 * the same calls, the same fields */
GstStructure *
faces_message (int faces)
{
  static const GQuark q_face = g_quark_from_static_string ("face"), q_x = g_quark_from_static_string ("x"),
                      q_y = g_quark_from_static_string ("y"), q_width = g_quark_from_static_string ("width"),
                      q_height = g_quark_from_static_string ("height"),
                      q_ts = g_quark_from_static_string ("timestamp"),
                      q_stream = g_quark_from_static_string ("stream-time"),
                      q_running = g_quark_from_static_string ("running-time"),
                      q_duration = g_quark_from_static_string ("duration");
  GValue list = G_VALUE_INIT;
  g_value_init (&list, GST_TYPE_LIST);
  for (int i = 0; i < faces; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new_id (q_face, q_x, G_TYPE_UINT, (guint) (100 * i), q_y, G_TYPE_UINT, 40u,
                                q_width, G_TYPE_UINT, 80u, q_height, G_TYPE_UINT, 80u, nullptr));
    gst_value_list_append_and_take_value (&list, &v);
  }
  GstStructure *s = gst_structure_new_id (g_quark_from_string ("facedetect"), q_ts, G_TYPE_UINT64,
      (guint64) GST_SECOND, q_stream, G_TYPE_UINT64, (guint64) GST_SECOND, q_running, G_TYPE_UINT64,
      (guint64) GST_SECOND, q_duration, G_TYPE_UINT64, (guint64) (GST_SECOND / 30), nullptr);
  gst_structure_take_value (s, "faces", &list);
  return s;
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  std::vector<int> faces { 0, 4 }, gaps { 0, 1000 };
  int messages = 3000;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--faces" && i + 1 < argc)
      faces = int_list (argv[++i]);
    else if (a == "--gaps" && i + 1 < argc)
      gaps = int_list (argv[++i]);
    else if (a == "--messages" && i + 1 < argc)
      messages = std::max (1, std::atoi (argv[++i]));
    else {
      std::fprintf (stderr, "usage: %s [--faces 0,4] [--gaps 0,1000] [--messages 3000]\n", argv[0]);
      return 2;
    }
  }
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch ("fakesrc ! identity name=poster ! fakesink", &err);
  if (!pipe) {
    std::fprintf (stderr, "pipeline: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    return 1;
  }
  GstElement *poster = gst_bin_get_by_name (GST_BIN (pipe), "poster");
  GstBus *bus = gst_element_get_bus (pipe);
  std::printf ("| faces | gap (us) | build median / p90 (us) | post median / p90 (us) |\n|---|---|---|---|\n");
  for (int f : faces)
    for (int gap : gaps) {
      std::vector<double> build, post;
      for (int i = 0; i < messages; i++) {
        if (gap > 0)
          std::this_thread::sleep_for (std::chrono::microseconds (gap));
        const Clock::time_point t0 = Clock::now ();
        GstStructure *s = faces_message (f);
        const Clock::time_point t1 = Clock::now ();
        gst_element_post_message (poster, gst_message_new_element (GST_OBJECT (poster), s));
        const Clock::time_point t2 = Clock::now ();
        build.push_back (micros (t0, t1));
        post.push_back (micros (t1, t2));
        /* the bus keeps what nobody reads: dropped now and then, untimed */
        if (i % 500 == 499) {
          gst_bus_set_flushing (bus, TRUE);
          gst_bus_set_flushing (bus, FALSE);
        }
      }
      std::printf ("| %d | %d | %.2f / %.2f | %.2f / %.2f |\n", f, gap, percentile (build, 0.5),
          percentile (build, 0.9), percentile (post, 0.5), percentile (post, 0.9));
    }
  gst_object_unref (bus);
  gst_object_unref (poster);
  gst_object_unref (pipe);
  return 0;
}
