/* cudavision-bench-flow — cudaflow's and cudablur's per-frame GPU work on
 * real frames as well as synthetic ones: the Lucas-Kanade iterations, and
 * so the tracking time, depend on the content.
 *
 *   cudavision-bench-flow [--sizes 1920x1080,3840x2160] [--iters 100]
 *                         [--data DIR] [--pair NAME=PREV.png,NEXT.png]...
 * (--iters 5 to 100000, --sizes sides 16 to 16384: anything else is
 * refused, exit status 2, before CUDA starts)
 *
 * Frame pairs (GRAY8, each fitted to the size: cropped to its aspect ratio
 * around the centre, then scaled):
 *  - synthetic: the smooth pattern of cudavision-bench-kernels and the same
 *    pattern moved by (1.3, -0.7) px;
 *  - basketball: tests/data/basketball1.png -> basketball2.png;
 *  - realshort: frames 10 -> 11 of tests/data/realshort.mp4, decoded by
 *    GStreamer's decodebin (skipped where no H.264 decoder is installed);
 *  - any --pair given (PNG or JPEG files).
 * Pictures are decoded by GStreamer with the tests' code
 * (frames/gst_frames.h): the GPU machine has no OpenCV imgcodecs.
 *
 * For each pair and size, with cudaflow's defaults (window 21, max-level 3,
 * 30 iterations, epsilon 0.01): "pyramid", the new frame's pyramid (luma,
 * pyrDown levels, Scharr derivatives); "sparse", the pyramid plus 1000
 * Shi-Tomasi points of the previous frame (cudaflow's detector, topped up
 * from a grid where a frame has fewer) tracked through all levels; "dense8",
 * the pyramid plus the 8-pixel grid. The previous frame's pyramid is built
 * once, as the element keeps it. CUDA events around the launches, median
 * of --iters after warm-up; the last line of each pair says how many points
 * were tracked. Then cudablur's 5x5 (sigma 1.1) and 11x11 (sigma 1.5, the
 * element's default) GRAY8 blur through gaussian_blur's Auto choice on
 * uniform noise and on each pair's first frame, inputs rotated through a
 * set larger than L2, next to a device-to-device copy of the same frame. Uses only API that predates
 * the work it measures, so the same file builds against older trees for
 * before/after figures from one run. */
#include "bench_util.h"
#include "../frames/gst_frames.h"

#include "../cuda/blur/blur.h"
#include "../cuda/common/device_info.h"
#include "../cuda/flow/flow.h"
#include "../cuda/harris/harris.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace cvbench;
using cudavision::BlockSizing;

namespace {

struct Pair {
  std::string name;
  cv::Mat prev, next; /* GRAY8, any size; fitted per run */
};


cv::Mat
pattern (cv::Size s, double dx, double dy)
{
  cv::Mat m (s, CV_8UC1);
  for (int y = 0; y < s.height; y++) {
    for (int x = 0; x < s.width; x++) {
      const double u = x - dx, v = y - dy;
      const double f = 128 + 55 * std::sin (0.071 * u + 0.029 * v) + 45 * std::sin (0.053 * v - 0.037 * u + 1) *
          std::cos (0.113 * u) + 20 * std::sin (0.19 * u * 0.7 + 0.23 * v);
      m.at<uint8_t> (y, x) = (uint8_t) std::min (255.0, std::max (0.0, f));
    }
  }
  return m;
}

struct DeviceFrame {
  cudavision::DeviceBuffer buf;
  size_t pitch = 0;
  int w = 0, h = 0;
  explicit DeviceFrame (const cv::Mat & g) : w (g.cols), h (g.rows)
  {
    pitch = cudavision::aligned_pitch ((size_t) w);
    check (buf.allocate (pitch * h).err, "alloc");
    check (cudaMemcpy2D (buf.get (), pitch, g.data, g.step, w, h, cudaMemcpyHostToDevice), "upload");
  }
  cudavision::LumaInput input () const { return { { buf.as<const uint8_t> (), pitch, w, h }, true }; }
};

void
row (const std::string & what, const std::string & pair, cv::Size s, BlockSizing m, const Timing & t,
    const std::string & note)
{
  std::printf ("%-14s %-11s %5dx%-5d %-7s %10.2f %10.2f %10.2f  %s\n", what.c_str (), pair.c_str (), s.width,
      s.height, cudavision::block_sizing_name (m), t.median_us, t.p10_us, t.p90_us, note.c_str ());
  std::fflush (stdout);
}

void
bench_pair (cudaStream_t stream, const cudavision::DeviceDescription & dev, const Pair & pair, cv::Size s,
    int iters)
{
  const DeviceFrame a (cvtest::fit_picture (pair.prev, s)), b (cvtest::fit_picture (pair.next, s));
  const cudavision::FlowParams p;
  cudavision::LaunchPolicy init (dev, BlockSizing::Static);

  /* 1000 points: the strongest Shi-Tomasi corners, topped up from a grid */
  cudavision::CornerDetector det;
  cudavision::CornerDetectParams dp;
  dp.corner.method = cudavision::CornerMethod::ShiTomasi;
  dp.max_corners = 1000;
  std::vector<cudavision::Corner> corners;
  check (det.detect (a.input (), dp, init, stream, &corners).err, "detect");
  const int found = (int) corners.size ();
  std::vector<float> xy;
  for (const auto & k : corners) {
    xy.push_back (k.x);
    xy.push_back (k.y);
  }
  for (int i = 0; xy.size () < 2000; i++) {
    xy.push_back ((float) (37 * i % s.width));
    xy.push_back ((float) (53 * i % s.height));
  }
  const int n = 1000;
  const int grid = cudavision::flow_grid_cols (s.width, 8) * cudavision::flow_grid_rows (s.height, 8);
  cudavision::DeviceBuffer pts, next, status, gprev;
  check (pts.allocate (xy.size () * sizeof (float)).err, "pts");
  check (cudaMemcpy (pts.get (), xy.data (), xy.size () * sizeof (float), cudaMemcpyHostToDevice), "pts");
  check (next.allocate ((size_t) grid * 8).err, "next");
  check (gprev.allocate ((size_t) grid * 8).err, "grid");
  check (status.allocate ((size_t) grid).err, "status");

  cudavision::FlowPyramid prev, cur;
  check (prev.build (a.input (), p.window, p.max_level, init, stream).err, "pyramid");
  auto tracked = [&] (int count) {
    std::vector<uint8_t> st ((size_t) count);
    check (cudaStreamSynchronize (stream), "sync");
    check (cudaMemcpy (st.data (), status.get (), st.size (), cudaMemcpyDeviceToHost), "status");
    return (int) std::count (st.begin (), st.end (), 1);
  };
  const int dense_iters = std::max (5, iters / 4);
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::Model }) {
    cudavision::LaunchPolicy policy (dev, m);
    Timing t = time_launches (stream, 10, iters, [&] (int) {
      check (cur.build (b.input (), p.window, p.max_level, policy, stream).err, "pyramid");
    });
    row ("flow.pyramid", pair.name, s, m, t, std::to_string (cur.levels ()) + " levels");
    t = time_launches (stream, 10, iters, [&] (int) {
      check (cur.build (b.input (), p.window, p.max_level, policy, stream).err, "pyramid");
      check (cudavision::flow_track_points (prev, cur, pts.as<const float> (), nullptr, n, next.as<float> (),
                 status.as<uint8_t> (), p, true, policy, stream).err, "sparse");
    });
    row ("flow.sparse", pair.name, s, m, t,
        std::to_string (tracked (n)) + " of " + std::to_string (n) + " tracked (" + std::to_string (found) +
            " corners)");
    t = time_launches (stream, 3, dense_iters, [&] (int) {
      check (cur.build (b.input (), p.window, p.max_level, policy, stream).err, "pyramid");
      check (cudavision::flow_track_grid (prev, cur, 8, gprev.as<float> (), next.as<float> (), status.as<uint8_t> (),
                 p, true, policy, stream).err, "dense");
    });
    row ("flow.dense8", pair.name, s, m, t, std::to_string (tracked (grid)) + " of " + std::to_string (grid) +
        " tracked");
  }
  det.release ();
  prev.release ();
  cur.release ();
}

/* cudablur on the pair's first frame (and a copy for scale), inputs
 * rotated through a set larger than L2. */
void
bench_blur (cudaStream_t stream, const cudavision::DeviceDescription & dev, const Pair & pair, cv::Size s, int iters)
{
  const cv::Mat g = cvtest::fit_picture (pair.prev, s);
  const size_t pitch = cudavision::aligned_pitch ((size_t) s.width), bytes = pitch * s.height;
  const int count = rotation_count (2 * bytes);
  std::vector<cudavision::DeviceBuffer> in (count), out (count);
  for (int i = 0; i < count; i++) {
    check (in[i].allocate (bytes).err, "alloc");
    check (out[i].allocate (bytes).err, "alloc");
    check (cudaMemcpy2D (in[i].get (), pitch, g.data, g.step, s.width, s.height, cudaMemcpyHostToDevice), "up");
  }
  Timing copy = time_launches (stream, 20, iters, [&] (int i) {
    check (cudaMemcpy2DAsync (out[i % count].get (), pitch, in[i % count].get (), pitch, s.width, s.height,
               cudaMemcpyDeviceToDevice, stream), "copy");
  });
  row ("gray8.copy2d", pair.name, s, BlockSizing::Static, copy, "");
  for (auto [ksize, sigma] : { std::pair<int, double> { 5, 1.1 }, { 11, 1.5 } }) {
    const cudavision::BlurTaps taps = cudavision::make_blur_taps (ksize, ksize, sigma, sigma);
    for (BlockSizing m : { BlockSizing::Static, BlockSizing::Model }) {
      cudavision::LaunchPolicy policy (dev, m);
      Timing t = time_launches (stream, 20, iters, [&] (int i) {
        cudavision::ConstImage8 src { in[i % count].as<const uint8_t> (), pitch, s.width, s.height };
        cudavision::Image8 dst { out[i % count].as<uint8_t> (), pitch, s.width, s.height };
        check (cudavision::gaussian_blur (src, dst, 1, taps, policy, stream, nullptr).err, "blur");
      });
      char note[64];
      std::snprintf (note, sizeof note, "auto; %.2fx the copy", t.median_us / copy.median_us);
      row ("blur" + std::to_string (ksize) + ".gray8", pair.name, s, m, t, note);
    }
  }
}

std::vector<cv::Size>
parse_sizes (const std::string & list)
{
  std::vector<cv::Size> out;
  for (const cvbench::Dims & d : cvbench::arg_dims_list ("--sizes", list))
    out.emplace_back (d.w, d.h);
  return out;
}

/* Frames 10 and 11 of realshort.mp4, or nothing where it cannot be decoded. */
bool
realshort (const std::string & data, Pair * out)
{
  const std::string desc = "filesrc location=\"" + data + "/realshort.mp4\" ! decodebin ! videoconvert ! "
      "video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  const std::vector<cv::Mat> f = cvtest::pull_frames (desc, 20, nullptr);
  if (f.size () < 12)
    return false;
  *out = { "realshort", f[10], f[11] };
  return true;
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  std::string sizes = "1920x1080,3840x2160", data = CUDAVISION_TEST_DATA;
  std::vector<std::string> pairs;
  int iters = 100;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--sizes"))
      sizes = cvbench::arg_value (argc, argv, i);
    else if (!std::strcmp (argv[i], "--iters"))
      iters = cvbench::arg_int ("--iters", cvbench::arg_value (argc, argv, i), 5, 100000);
    else if (!std::strcmp (argv[i], "--data"))
      data = cvbench::arg_value (argc, argv, i);
    else if (!std::strcmp (argv[i], "--pair"))
      pairs.push_back (cvbench::arg_value (argc, argv, i));
    else {
      std::fprintf (stderr, "usage: %s [--sizes WxH,...] [--iters N] [--data DIR] [--pair NAME=PREV,NEXT]...\n",
          argv[0]);
      return 2;
    }
  }
  /* the whole command line checked before CUDA starts */
  const std::vector<cv::Size> size_list = parse_sizes (sizes);
  for (const std::string & spec : pairs) {
    const size_t eq = spec.find ('='), comma = spec.find (',', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || comma == std::string::npos)
      cvbench::bad_usage ("--pair: NAME=PREV,NEXT, not '" + spec + "'");
  }
  if (cudavision::cuda_device_count () == 0) {
    std::fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  check (cudaSetDevice (0), "cudaSetDevice");
  cudavision::Stream stream;
  check (stream.create ().err, "stream");
  cudavision::DeviceDescription dev;
  check (cudavision::query_current_device (&dev).err, "device");
  std::printf ("device: %s, CC %d.%d, %d SMs, driver %d\n", dev.name.c_str (), dev.cc_major, dev.cc_minor,
      dev.sm_count, dev.driver_version);

  std::vector<Pair> frames;
  frames.push_back ({ "synthetic", cv::Mat (), cv::Mat () }); /* made per size */
  frames.push_back ({ "basketball", cvtest::to_gray (cvtest::load_rgb (data + "/basketball1.png")),
      cvtest::to_gray (cvtest::load_rgb (data + "/basketball2.png")) });
  Pair video;
  if (realshort (data, &video))
    frames.push_back (video);
  else
    std::printf ("realshort.mp4: no H.264 decoder here, skipped\n");
  for (const std::string & spec : pairs) {
    const size_t eq = spec.find ('='), comma = spec.find (',', eq);
    frames.push_back ({ spec.substr (0, eq), cvtest::to_gray (cvtest::load_rgb (spec.substr (eq + 1, comma - eq - 1))),
        cvtest::to_gray (cvtest::load_rgb (spec.substr (comma + 1))) });
  }

  std::printf ("%-14s %-11s %-11s %-7s %10s %10s %10s\n", "work", "frames", "size", "mode", "median_us", "p10_us",
      "p90_us");
  for (cv::Size s : size_list) {
    for (Pair & f : frames) {
      if (f.name == "synthetic" && (f.prev.cols != s.width || f.prev.rows != s.height)) {
        f.prev = pattern (s, 0, 0);
        f.next = pattern (s, 1.3, -0.7);
      }
      bench_pair (stream.get (), dev, f, s, iters);
    }
    cv::Mat noise (s, CV_8UC1);
    cv::randu (noise, 0, 256);
    bench_blur (stream.get (), dev, { "noise", noise, noise }, s, iters);
    for (const Pair & f : frames)
      if (f.name != "synthetic")
        bench_blur (stream.get (), dev, f, s, iters);
  }
  return 0;
}
