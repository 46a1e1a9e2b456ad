/* cudavision-bench-kernels — times each element's kernels with CUDA events
 * (median of --iters launches after warm-up, inputs rotated through a set
 * 3x larger than L2) next to a device-to-device copy measured in the same
 * run, for each block-sizing mode; and (`chains`) the analysis chains a
 * camera runs, GPU time per frame beside the sum of their elements'
 * standalone times.
 *
 *   cudavision-bench-kernels [--sizes 1280x720,1920x1080,3840x2160]
 *                            [--iters 200] [--table FILE]
 *                            [--only gray,blur,otsu,harris,canny,flow,chains]
 * Prints one table row per kernel, size and mode; the chains' rows end
 * with key=value fields, and a Markdown table of them closes the run.
 * The default sizes are bench/npp/run.sh's too. */
#include "bench_util.h"
#include "canny_frame.h"
#include "canny_photos.h"
#include "empty_kernel.h"
#include "launch_gate.h"

#include "../cuda/common/device_info.h"
#include "../cuda/blur/blur.h"
#include "../cuda/canny/canny.h"
#include "../cuda/compose/canny_prepasses.h"
#include "../cuda/flow/flow.h"
#include "../cuda/common/luma.h"
#include "../cuda/harris/harris.h"
#include "../cuda/otsu/otsu.h"
#include "../core/policy/tuning_table.h"
#include "../frames/gst_frames.h"

#include <gst/gst.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <cstring>
#include <gst/gst.h>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace cvbench;
using cudavision::BlockSizing;

struct Size {
  int w, h;
};

static std::vector<Size>
parse_sizes (const std::string & s)
{
  std::vector<Size> out;
  std::stringstream ss (s);
  std::string item;
  while (std::getline (ss, item, ',')) {
    Size z {};
    if (std::sscanf (item.c_str (), "%dx%d", &z.w, &z.h) == 2)
      out.push_back (z);
  }
  return out;
}

/* One chain on one input at one size, for the closing Markdown table. */
struct ChainRow {
  std::string chain, input;
  Size size;
  std::vector<std::pair<std::string, double>> stages; /* element, standalone median */
  double sum = 0;
  Timing frame, pipelined;
  bool gate_timed_out = false; /* the times of the chain or of an element alone are the host's */
};

struct Context {
  cudavision::Stream stream;
  cudavision::DeviceDescription dev;
  std::shared_ptr<const cudavision::TuningTable> table;
  int iters = 200;
  std::string only;                           /* --only: comma-separated element names, empty: all */
  std::vector<ChainRow> chain_rows;            /* the chains' Markdown table, filled as sizes run */
  bool runs (const char *element) const
  {
    return only.empty () || ("," + only + ",").find (std::string (",") + element + ",") != std::string::npos;
  }
};

static void
report (const char *kernel, Size s, BlockSizing m, const Timing & t, double bytes, double copy_gbs)
{
  const double gbs = bytes / (t.median_us * 1e3);
  std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f %8.1f %6.1f%%\n", kernel, s.w, s.h,
      cudavision::block_sizing_name (m), t.median_us, t.p10_us, t.p90_us, gbs, 100.0 * gbs / copy_gbs);
}

static void
bench_gray (Context & c, Size s, double copy_gbs)
{
  const size_t in_pitch = cudavision::aligned_pitch ((size_t) s.w * 4);
  const size_t out_pitch = cudavision::aligned_pitch ((size_t) s.w);
  const size_t in_bytes = in_pitch * s.h, out_bytes = out_pitch * s.h;
  const int n = rotation_count (in_bytes + out_bytes);
  auto in = random_buffers (n, in_bytes, 3);
  auto out = random_buffers (n, out_bytes, 4);
  /* the floors of a frame's kernel at this size: the harness alone (an
   * empty kernel), and a copy of the RGBA frame (its 8 bytes a pixel
   * against the kernel's 5) */
  Timing floor = time_launches (c.stream.get (), 20, c.iters,
      [&] (int) { check (cvbench::launch_empty_kernel (c.stream.get ()), "empty kernel"); });
  report ("launch.empty", s, BlockSizing::Static, floor, 0.0, copy_gbs);
  Timing copy = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
    check (cudaMemcpyAsync (in[(i + 1) % n].get (), in[i % n].get (), in_bytes, cudaMemcpyDeviceToDevice,
               c.stream.get ()),
        "copy");
  });
  report ("rgba.copy", s, BlockSizing::Static, copy, 8.0 * s.w * s.h, copy_gbs);
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::EmpiricalTable, BlockSizing::Model }) {
    cudavision::LaunchPolicy policy (c.dev, m, {}, c.table);
    Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
      cudavision::ConstImage8 src { in[i % n].as<const uint8_t> (), in_pitch, s.w, s.h };
      cudavision::Image8 dst { out[i % n].as<uint8_t> (), out_pitch, s.w, s.h };
      check (cudavision::rgb_to_gray (src, cudavision::PackedRgb::RGBA, dst, policy, c.stream.get ()).err, "gray");
    });
    report ("gray.rgba", s, m, t, 5.0 * s.w * s.h, copy_gbs);
  }
}

/* GRAY8 frames for the single-channel kernels. */
struct GrayFrames {
  size_t pitch, bytes;
  int n;
  std::vector<cudavision::DeviceBuffer> in, out;
  GrayFrames (Size s, unsigned seed) {
    pitch = cudavision::aligned_pitch ((size_t) s.w);
    bytes = pitch * s.h;
    n = rotation_count (2 * bytes);
    in = random_buffers (n, bytes, seed);
    out = random_buffers (n, bytes, seed + 1);
  }
  cudavision::ConstImage8 src (int i, Size s) const { return { in[i % n].as<const uint8_t> (), pitch, s.w, s.h }; }
  cudavision::Image8 dst (int i, Size s) const { return { out[i % n].as<uint8_t> (), pitch, s.w, s.h }; }
};

/* 5x5 Gaussian (sigma 1.1, OpenCV's default for ksize 5) on GRAY8, for
 * comparison with NPP's 5x5 filter, and the element's default 11x11
 * (sigma 1.5): the direct (what Auto runs on GRAY8), fused and two-pass
 * forms. */
static void
bench_blur (Context & c, Size s, double copy_gbs)
{
  GrayFrames f (s, 5);
  cudavision::DeviceBuffer scratch;
  for (auto [ksize, sigma] : { std::pair<int, double> { 5, 1.1 }, { 11, 1.5 } }) {
    const cudavision::BlurTaps taps = cudavision::make_blur_taps (ksize, ksize, sigma, sigma);
    for (auto variant :
        { cudavision::BlurVariant::Direct, cudavision::BlurVariant::Fused, cudavision::BlurVariant::TwoPass }) {
      auto run = [&] (const cudavision::LaunchPolicy & policy, BlockSizing m, const std::string & suffix) {
        Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
          check (cudavision::gaussian_blur (f.src (i, s), f.dst (i, s), 1, taps, policy, c.stream.get (), &scratch,
                     variant).err, "blur");
        });
        const std::string name = "blur" + std::to_string (ksize) + "." + cudavision::blur_variant_name (variant) +
            suffix;
        report (name.c_str (), s, m, t, 2.0 * s.w * s.h, copy_gbs);
      };
      for (BlockSizing m : { BlockSizing::Static, BlockSizing::EmpiricalTable, BlockSizing::Model })
        run (cudavision::LaunchPolicy (c.dev, m, {}, c.table), m, "");
    }
  }
}

/* Otsu: histogram + threshold search + binarize, against a plain copy of
 * the same GRAY8 frame. */
static void
bench_otsu (Context & c, Size s, double copy_gbs)
{
  GrayFrames f (s, 7);
  cudavision::DeviceBuffer state;
  check (state.allocate (sizeof (cudavision::OtsuDeviceState)).err, "state");
  auto *st = state.as<cudavision::OtsuDeviceState> ();
  check (cudavision::otsu_state_init (st, c.stream.get ()).err, "otsu init");
  Timing copy = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
    check (cudaMemcpy2DAsync (f.out[i % f.n].get (), f.pitch, f.in[i % f.n].get (), f.pitch, s.w, s.h,
               cudaMemcpyDeviceToDevice, c.stream.get ()), "copy");
  });
  report ("gray8.copy2d", s, BlockSizing::Static, copy, 2.0 * s.w * s.h, copy_gbs);
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::EmpiricalTable, BlockSizing::Model }) {
    cudavision::LaunchPolicy policy (c.dev, m, {}, c.table);
    Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
      check (cudavision::otsu_threshold (f.src (i, s), st, policy, c.stream.get ()).err, "otsu");
      check (cudavision::otsu_binarize (f.src (i, s), f.dst (i, s), st, false, policy, c.stream.get ()).err, "bin");
    });
    report ("otsu.full", s, m, t, 3.0 * s.w * s.h, copy_gbs);
    std::printf ("%-16s %5dx%-5d %-16s otsu / copy2d = %.2fx\n", "", s.w, s.h, cudavision::block_sizing_name (m),
        t.median_us / copy.median_us);
  }
}

/* A GRAY8 frame of 24x24 cells of random grey: corners where cells meet,
 * about 3600 at 1080p, so the detection's list is as long as on real
 * scenes (random noise would make every pixel a candidate). */
static cudavision::DeviceBuffer
cells_frame (Size s, size_t pitch)
{
  std::vector<uint8_t> host (pitch * s.h);
  std::mt19937 rng (11);
  std::vector<uint8_t> cell ((s.w / 24 + 1) * (s.h / 24 + 1));
  for (auto & c : cell)
    c = (uint8_t) rng ();
  for (int y = 0; y < s.h; y++)
    for (int x = 0; x < s.w; x++)
      host[y * pitch + x] = cell[(y / 24) * (s.w / 24 + 1) + x / 24];
  cudavision::DeviceBuffer b;
  check (b.allocate (host.size ()).err, "alloc");
  check (cudaMemcpy (b.get (), host.data (), host.size (), cudaMemcpyHostToDevice), "upload");
  check (cudaStreamSynchronize (nullptr), "sync"); /* a pageable copy's DMA may still be in flight */
  return b;
}

/* A bundled picture decoded by GStreamer, fitted to `s` as the Canny rows'
 * photographs (cvtest::fit_picture), as GRAY8 in a device buffer of row
 * pitch `pitch`. */
static cudavision::DeviceBuffer
picture_frame (const char *name, Size s, size_t pitch)
{
  const cv::Mat gray = cvtest::to_gray (
      cvtest::fit_picture (cvtest::load_rgb (std::string (CUDAVISION_TEST_DATA) + "/" + name), cv::Size (s.w, s.h)));
  cudavision::DeviceBuffer b;
  check (b.allocate (pitch * s.h).err, "alloc");
  check (cudaMemcpy2D (b.get (), pitch, gray.data, gray.step, s.w, s.h, cudaMemcpyHostToDevice), "upload");
  check (cudaStreamSynchronize (nullptr), "sync");
  return b;
}

/* Harris: the response map alone (compare with NPP's Harris filter), and
 * the whole detection (blockSize 3, Sobel 3, quality 0.01, min distance
 * 10, no max) on three frames: the cells frame, a photograph and uniform
 * noise (the worst case: a candidate every few pixels). "detect" is the
 * host's view, enqueue to list in hand (median of runs, host clock);
 * "detect.gpu" the GPU's, CUDA events around the queued detection. */
static void
bench_harris (Context & c, Size s, double copy_gbs)
{
  GrayFrames f (s, 9);
  cudavision::DeviceBuffer resp;
  const size_t rpitch = cudavision::aligned_pitch ((size_t) s.w * 4);
  check (resp.allocate (rpitch * s.h).err, "resp");
  cudavision::CornerParams p;  /* Harris, blockSize 3, aperture 3, k 0.04 */
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::Model }) {
    cudavision::LaunchPolicy policy (c.dev, m, {}, c.table);
    Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
      cudavision::LumaInput in { f.src (i, s), true, cudavision::PackedRgb::RGBA };
      check (cudavision::corner_response (in, { resp.as<float> (), rpitch, s.w, s.h }, p, policy, c.stream.get ()).err,
          "response");
    });
    report ("harris.response", s, m, t, 5.0 * s.w * s.h, copy_gbs);
  }
  struct Frame {
    const char *name;
    cudavision::DeviceBuffer buf;
  };
  Frame frames[] = { { "cells", cells_frame (s, f.pitch) }, { "building.jpg", picture_frame ("building.jpg", s, f.pitch) },
    { "noise", {} } };
  cudavision::CornerDetector det;
  cudavision::CornerDetectParams dp;
  std::vector<cudavision::Corner> corners;
  for (Frame & fr : frames) {
    cudavision::LaunchPolicy policy (c.dev, BlockSizing::Static, {}, c.table);
    cudavision::LumaInput in { fr.buf.get () ? cudavision::ConstImage8 { fr.buf.as<const uint8_t> (), f.pitch, s.w, s.h }
                                               : f.src (0, s),
      true };
    std::vector<double> us;
    for (int i = 0; i < 20 + c.iters; i++) {
      auto t0 = std::chrono::steady_clock::now ();
      check (det.detect (in, dp, policy, c.stream.get (), &corners).err, "detect");
      auto t1 = std::chrono::steady_clock::now ();
      if (i >= 20)
        us.push_back (std::chrono::duration<double, std::micro> (t1 - t0).count ());
    }
    std::sort (us.begin (), us.end ());
    std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f  (host clock, %s: %zu corners of %zu candidates)\n",
        "harris.detect", s.w, s.h, "static", us[us.size () / 2], us[us.size () / 10], us[us.size () * 9 / 10], fr.name,
        corners.size (), det.candidate_count ());
    Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int) {
      check (det.enqueue (in, dp, policy, c.stream.get ()).err, "enqueue");
    });
    std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f  (CUDA events, %s)\n", "harris.detect.gpu", s.w, s.h, "static",
        t.median_us, t.p10_us, t.p90_us, fr.name);
  }
  check (det.collect (&corners).err, "collect");
  det.release ();
}

/* Canny, Sobel 3x3, thresholds 50 / 150 (NPP's baseline: the same, with
 * nppiNormL2), L1 and L2, on the edge-rich cells frame (canny_frame.h), on
 * uniform noise (nearly every pixel a candidate: the worst case for the
 * hysteresis) and on bundled photographs scaled to the size (L2); then with
 * a 5x5 pre-blur fused into the detection and as a separate blur pass.
 * Bytes: the frame read and written once. */
static void
bench_canny (Context & c, Size s, double copy_gbs)
{
  GrayFrames noise (s, 13);
  auto upload_all = [&] (const std::vector<uint8_t> & host, unsigned seed) {
    std::vector<cudavision::DeviceBuffer> bufs = random_buffers (noise.n, noise.bytes, seed);
    for (auto & b : bufs)
      check (cudaMemcpy (b.get (), host.data (), host.size (), cudaMemcpyHostToDevice), "upload");
    check (cudaStreamSynchronize (nullptr), "sync");
    return bufs;
  };
  const std::vector<cudavision::DeviceBuffer> cells = upload_all (canny_frame (s.w, s.h, noise.pitch), 14);
  std::vector<std::pair<std::string, std::vector<cudavision::DeviceBuffer>>> photos;
  for (const char *file : kCannyPhotos) {
    const std::vector<uint8_t> host = canny_photo (file, s.w, s.h, noise.pitch);
    if (host.empty ())
      continue;
    const std::string name = file;
    photos.emplace_back ("canny.l2." + name.substr (0, name.find_first_of ("._")), upload_all (host, 15));
  }
  cudavision::CannyScratch scratch;
  using cudavision::CannyVariant;
  struct Case {
    std::string name;
    const std::vector<cudavision::DeviceBuffer> *frames; /* null: noise */
    bool l2;
    double blur_sigma; /* 5x5 when > 0 */
    CannyVariant variant;
  };
  std::vector<Case> cases = {
    { "canny.l1", &cells, false, 0, CannyVariant::Auto },
    { "canny.l2", &cells, true, 0, CannyVariant::Auto },
    { "canny.l2.noise", nullptr, true, 0, CannyVariant::Auto },
  };
  for (const auto & ph : photos)
    cases.push_back ({ ph.first, &ph.second, true, 0, CannyVariant::Auto });
  cases.push_back ({ "canny.blur5.fus", &cells, false, 1.1, CannyVariant::Fused });
  cases.push_back ({ "canny.blur5.sep", &cells, false, 1.1, CannyVariant::Separate });
  for (const Case & k : cases) {
    cudavision::CannyParams p;
    p.l2_gradient = k.l2;
    if (k.blur_sigma > 0) {
      p.blur_ksize = 5;
      p.blur_sigma = k.blur_sigma;
    }
    auto src = [&] (int i) -> cudavision::ConstImage8 {
      if (!k.frames)
        return noise.src (i, s);
      return { (*k.frames)[i % noise.n].as<const uint8_t> (), noise.pitch, s.w, s.h };
    };
    for (BlockSizing m : { BlockSizing::Static, BlockSizing::Model }) {
      cudavision::LaunchPolicy policy (c.dev, m, {}, c.table);
      Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int i) {
        check (cudavision::canny (src (i), noise.dst (i, s), p, &scratch, cudavision::canny_prepasses (), policy,
                   c.stream.get (), -1, k.variant).err,
            "canny");
      });
      report (k.name.c_str (), s, m, t, 2.0 * s.w * s.h, copy_gbs);
    }
    /* how edge-dense the frame is, for reading the times */
    std::vector<uint8_t> out (noise.bytes);
    check (cudaMemcpy (out.data (), noise.dst (0, s).data, noise.bytes, cudaMemcpyDeviceToHost), "download");
    long edges = 0;
    for (int y = 0; y < s.h; y++)
      for (int x = 0; x < s.w; x++)
        edges += out[(size_t) y * noise.pitch + x] != 0;
    cudavision::CannyCounts counts;
    check (cudavision::canny_read_counts (scratch, c.stream.get (), &counts).err, "counts");
    std::printf ("%-16s %5dx%-5d edges on %.2f%% of the pixels; %u components, %u pixels resolved across tiles\n", "",
        s.w, s.h, 100.0 * edges / ((double) s.w * s.h), counts.open_components, counts.unresolved);
  }
}

/* Lucas-Kanade (cudaflow), window 21, 3 levels, 30 iterations, epsilon
 * 0.01: a smooth pattern and the same pattern moved by (1.3, -0.7) px, so
 * every point needs sub-pixel iterations. "flow.sparse" is the pyramid of
 * the new frame (luma copy, pyrDown, Scharr) plus 1000 Shi-Tomasi points
 * tracked through all levels, the per-frame work of mode=sparse;
 * "flow.dense8" the same with the 8-pixel grid. The previous frame's
 * pyramid is built once, as the element keeps it. */
static void
bench_flow (Context & c, Size s, double copy_gbs)
{
  const size_t pitch = cudavision::aligned_pitch ((size_t) s.w);
  auto pattern = [&] (double dx, double dy) {
    std::vector<uint8_t> host (pitch * s.h);
    for (int y = 0; y < s.h; y++) {
      for (int x = 0; x < s.w; x++) {
        const double u = x - dx, v = y - dy;
        const double f = 128 + 55 * std::sin (0.071 * u + 0.029 * v) + 45 * std::sin (0.053 * v - 0.037 * u + 1) *
            std::cos (0.113 * u) + 20 * std::sin (0.19 * u * 0.7 + 0.23 * v);
        host[y * pitch + x] = (uint8_t) std::min (255.0, std::max (0.0, f));
      }
    }
    cudavision::DeviceBuffer b;
    check (b.allocate (host.size ()).err, "alloc");
    check (cudaMemcpy (b.get (), host.data (), host.size (), cudaMemcpyHostToDevice), "upload");
    check (cudaStreamSynchronize (nullptr), "sync");
    return b;
  };
  const cudavision::DeviceBuffer a = pattern (0, 0), b = pattern (1.3, -0.7);
  const cudavision::LumaInput in_a { { a.as<const uint8_t> (), pitch, s.w, s.h }, true };
  const cudavision::LumaInput in_b { { b.as<const uint8_t> (), pitch, s.w, s.h }, true };
  const cudavision::FlowParams p;
  cudavision::LaunchPolicy init (c.dev, BlockSizing::Static, {}, c.table);

  /* 1000 points: the strongest corners, topped up from a grid if the
   * pattern has fewer */
  cudavision::CornerDetector det;
  cudavision::CornerDetectParams dp;
  dp.corner.method = cudavision::CornerMethod::ShiTomasi;
  dp.max_corners = 1000;
  std::vector<cudavision::Corner> corners;
  check (det.detect (in_a, dp, init, c.stream.get (), &corners).err, "detect");
  std::vector<float> xy;
  for (const auto & k : corners) {
    xy.push_back (k.x);
    xy.push_back (k.y);
  }
  for (int i = 0; xy.size () < 2000; i++) {
    xy.push_back ((float) (37 * i % s.w));
    xy.push_back ((float) (53 * i % s.h));
  }
  const int n = 1000;
  const int grid = cudavision::flow_grid_cols (s.w, 8) * cudavision::flow_grid_rows (s.h, 8);
  cudavision::DeviceBuffer pts, next, status, gprev;
  check (pts.allocate (xy.size () * sizeof (float)).err, "pts");
  check (cudaMemcpy (pts.get (), xy.data (), xy.size () * sizeof (float), cudaMemcpyHostToDevice), "pts");
  check (cudaStreamSynchronize (nullptr), "sync");
  check (next.allocate ((size_t) grid * 8).err, "next");
  check (gprev.allocate ((size_t) grid * 8).err, "grid");
  check (status.allocate ((size_t) grid).err, "status");

  cudavision::FlowPyramid prev, cur;
  check (prev.build (in_a, p.window, p.max_level, init, c.stream.get ()).err, "pyramid");
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::Model }) {
    cudavision::LaunchPolicy policy (c.dev, m, {}, c.table);
    Timing t = time_launches (c.stream.get (), 20, c.iters, [&] (int) {
      check (cur.build (in_b, p.window, p.max_level, policy, c.stream.get ()).err, "pyramid");
    });
    /* bytes: the luma copy (2 a pixel) and the derivatives (1 in, 4 out), a third more for the levels */
    report ("flow.pyramid", s, m, t, 7.0 * s.w * s.h * 4 / 3, copy_gbs);
    t = time_launches (c.stream.get (), 20, c.iters, [&] (int) {
      check (cur.build (in_b, p.window, p.max_level, policy, c.stream.get ()).err, "pyramid");
      check (cudavision::flow_track_points (prev, cur, pts.as<const float> (), nullptr, n, next.as<float> (),
                 status.as<uint8_t> (), p, true, policy, c.stream.get ()).err, "sparse");
    });
    std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f  (%d points, pyramid included)\n", "flow.sparse", s.w, s.h,
        cudavision::block_sizing_name (m), t.median_us, t.p10_us, t.p90_us, n);
    t = time_launches (c.stream.get (), 20, c.iters, [&] (int) {
      check (cur.build (in_b, p.window, p.max_level, policy, c.stream.get ()).err, "pyramid");
      check (cudavision::flow_track_grid (prev, cur, 8, gprev.as<float> (), next.as<float> (), status.as<uint8_t> (),
                 p, true, policy, c.stream.get ()).err, "dense");
    });
    std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f  (%d grid points, pyramid included)\n", "flow.dense8", s.w,
        s.h, cudavision::block_sizing_name (m), t.median_us, t.p10_us, t.p90_us, grid);
  }
  /* the results are meant to be right, not only fast: report them */
  std::vector<float> hx ((size_t) n * 2);
  std::vector<uint8_t> hs ((size_t) n);
  check (cudaStreamSynchronize (c.stream.get ()), "sync");
  check (cudavision::flow_track_points (prev, cur, pts.as<const float> (), nullptr, n, next.as<float> (),
             status.as<uint8_t> (), p, true, init, c.stream.get ()).err, "sparse");
  check (cudaMemcpyAsync (hx.data (), next.get (), hx.size () * 4, cudaMemcpyDeviceToHost, c.stream.get ()), "d2h");
  check (cudaMemcpyAsync (hs.data (), status.get (), hs.size (), cudaMemcpyDeviceToHost, c.stream.get ()), "d2h");
  check (cudaStreamSynchronize (c.stream.get ()), "sync");
  std::vector<double> err;
  for (int i = 0; i < n; i++)
    if (hs[i])
      err.push_back (std::hypot (hx[2 * i] - xy[2 * i] - 1.3, hx[2 * i + 1] - xy[2 * i + 1] + 0.7));
  std::sort (err.begin (), err.end ());
  std::printf ("%-16s %5dx%-5d %d of %d points tracked, median error %.4f px against the true motion\n", "", s.w, s.h,
      (int) err.size (), n, err.empty () ? 0.0 : err[err.size () / 2]);
  det.release ();
  prev.release ();
  cur.release ();
}

/* ----------------------------------------------------------------- chains
 *
 * The analysis chains a camera runs, `cudagray ! cudablur ! cudacanny` and
 * `cudagray ! cudaharris`, with the elements' default properties (cudablur
 * sigma 1.5, so 11 taps; cudacanny L1, 50 / 150, Sobel 3; cudaharris
 * blockSize 3, quality 0.01, min distance 10, the frame passed through),
 * each element run as GstCvBaseFilter's transform_gpu runs it
 * (gst/gstcvbasefilter.cpp): its own non-blocking stream and
 * block-sizing=static policy; device frames from pools, each carrying the
 * event its last user recorded, waited for before the frame is read or
 * written and recorded after (gst_cv_buffer_wait / gst_cv_buffer_record);
 * and process_gpu's calls: rgb_to_gray, gaussian_blur with the element's
 * scratch, canny with a CannyScratch that replays its frame graph
 * (graphs = true, as cudacanny sets it), CornerDetector::enqueue with the
 * passthrough copy (its captured graphs). Inputs: RGBA frames of
 * building.jpg fitted as the Canny rows' photographs (cvtest::fit_picture)
 * and of the cells frame (canny_frame.h, its grey in R, G and B), rotated
 * through a set 3x the L2 size like the kernel rows' inputs; between
 * elements, pools of two frames.
 *
 * Rows, per size, input and chain:
 *  - chain.stage: each element alone, frames back to back on its stream,
 *    reading what its upstream element left in its pool;
 *  - chain.sum: the sum of those medians (and of their p10s, their p90s);
 *  - chain.frame: CUDA events around a frame's whole work, the start on
 *    the first element's stream, the stop on the last one's, each frame
 *    queued behind the previous frame's stop (frames do not overlap):
 *    frame/sum is issue 38's ratio;
 *  - chain.pipelined: frames queued as a pipeline's streaming thread
 *    queues them (no gate; between frames only the pools' events;
 *    cudaharris waits for each frame's list, as with latency-frames=0):
 *    the span of --iters frames over their number, median (min, max) of
 *    five runs. Frames overlap across the elements' streams, so this can
 *    be below the sum; where the host launches slower than the GPU runs,
 *    it is the host's rate.
 * stage and frame are timed in batches held behind a LaunchGate
 * (launch_gate.h) while the host queues them, so that they measure the
 * GPU, not the host's launch rate. cudaharris then detects with one
 * CornerDetector per frame of a batch (the element alternates two and
 * waits for each list: a wait on a held gate), the same kernels and
 * graphs. */

namespace {

constexpr int kChainBatch = 16;          /* frames queued behind one gate */
constexpr int kChainWarmBatches = 4;     /* a Harris graph key: runs, runs, is captured, replays */
constexpr int kChainPipelinedRuns = 5;

/* A device frame of a pool and the event its last user recorded on it. */
struct PoolFrame {
  cudavision::DeviceBuffer buf;
  size_t pitch = 0;
  cudavision::Event event;
  bool recorded = false;

  void allocate (Size s, int bytes_per_pixel)
  {
    pitch = cudavision::aligned_pitch ((size_t) s.w * bytes_per_pixel);
    check (buf.allocate (pitch * s.h).err, "pool frame");
    check (event.create (false).err, "pool event");
  }
  cudavision::ConstImage8 src (Size s) const { return { buf.as<const uint8_t> (), pitch, s.w, s.h }; }
  cudavision::Image8 dst (Size s) const { return { buf.as<uint8_t> (), pitch, s.w, s.h }; }
  void wait (cudaStream_t st) const
  {
    if (recorded)
      check (cudaStreamWaitEvent (st, event.get (), 0), "wait");
  }
  void record (cudaStream_t st)
  {
    check (cudaEventRecord (event.get (), st), "record");
    recorded = true;
  }
};

using Pool = std::vector<PoolFrame>;

Pool
make_pool (size_t n, Size s, int bytes_per_pixel)
{
  Pool p (n);
  for (PoolFrame & f : p)
    f.allocate (s, bytes_per_pixel);
  return p;
}

/* One element: its stream, its policy, its process_gpu. */
struct ChainElement {
  const char *name;
  cudavision::Stream stream;
  cudavision::LaunchPolicy policy;
  std::function<void (const PoolFrame & in, PoolFrame & out, int frame)> process;

  /* block-sizing=static loads no tuning table (start_gpu) */
  ChainElement (const char *n, const Context & c) : name (n), policy (c.dev, BlockSizing::Static)
  {
    check (stream.create ().err, "stream");
  }
  cudaStream_t s () const { return stream.get (); }
  /* transform_gpu: wait for the frames' last users, process, record */
  void run (PoolFrame & in, PoolFrame & out, int frame)
  {
    in.wait (s ());
    out.wait (s ());
    process (in, out, frame);
    in.record (s ());
    out.record (s ());
  }
};

/* An element and the pools it reads and writes; frame i takes frame i of
 * each pool, round. */
struct Link {
  ChainElement *element;
  Pool *in, *out;
};

void
run_links (const std::vector<Link> & links, int i)
{
  for (const Link & l : links)
    l.element->run ((*l.in)[i % l.in->size ()], (*l.out)[i % l.out->size ()], i);
}

/* `frame (i, start, stop)` queues frame i and records the events around
 * it (null: untimed). kChainWarmBatches batches untimed, then `iters`
 * frames, each batch queued behind the gate on `head` and released at
 * once; `drain` waits for a batch and collects what it left. */
Timing
time_gated (cvbench::LaunchGate & gate, cudaStream_t head, int iters,
    const std::function<void (int, cudaEvent_t, cudaEvent_t)> & frame, const std::function<void ()> & drain,
    bool *timed_out)
{
  int i = 0;
  for (int b = 0; b < kChainWarmBatches; b++) {
    for (int j = 0; j < kChainBatch; j++)
      frame (i++, nullptr, nullptr);
    drain ();
  }
  std::vector<cudavision::Event> ev (2 * (size_t) iters);
  for (auto & e : ev)
    check (e.create (true).err, "event");
  for (int done = 0; done < iters;) {
    check (gate.hold (head), "gate");
    for (int j = 0; j < kChainBatch && done < iters; j++, done++)
      frame (i++, ev[2 * done].get (), ev[2 * done + 1].get ());
    if (!gate.release ())
      *timed_out = true;
    drain ();
  }
  return event_timing (ev);
}

/* `frame (i)` for `iters` frames between an event on `head` and one on
 * `tail`, over their number: median, min and max of the runs. */
Timing
time_pipelined (cudaStream_t head, cudaStream_t tail, int iters, const std::function<void (int)> & frame,
    const std::function<void ()> & drain)
{
  int i = 0;
  for (; i < kChainWarmBatches * kChainBatch; i++)
    frame (i);
  drain ();
  std::vector<double> us;
  for (int r = 0; r < kChainPipelinedRuns; r++) {
    cudavision::Event a, b;
    check (a.create (true).err, "event");
    check (b.create (true).err, "event");
    check (cudaEventRecord (a.get (), head), "record");
    for (int j = 0; j < iters; j++)
      frame (i++);
    check (cudaEventRecord (b.get (), tail), "record");
    drain ();
    float ms = 0;
    check (cudaEventElapsedTime (&ms, a.get (), b.get ()), "elapsed");
    us.push_back (ms * 1000.0 / iters);
  }
  std::sort (us.begin (), us.end ());
  return { us[us.size () / 2], us.front (), us.back () };
}

struct ChainInput {
  std::string name;
  std::vector<uint8_t> rgba; /* rows of w * 4 bytes */
};

std::vector<ChainInput>
chain_inputs (Size s)
{
  std::vector<ChainInput> inputs;
  const size_t row = (size_t) s.w * 4;
  try {
    const cv::Mat rgb = cvtest::load_rgb (std::string (CUDAVISION_TEST_DATA) + "/building.jpg");
    cv::Mat rgba;
    cv::cvtColor (cvtest::fit_picture (rgb, cv::Size (s.w, s.h)), rgba, cv::COLOR_RGB2RGBA);
    ChainInput in { "building", std::vector<uint8_t> (row * s.h) };
    for (int y = 0; y < s.h; y++)
      std::memcpy (&in.rgba[y * row], rgba.ptr (y), row);
    inputs.push_back (std::move (in));
  } catch (const std::exception & e) {
    std::fprintf (stderr, "chains: building.jpg: %s\n", e.what ());
  }
  /* R = G = B: cv::cvtColor's weights sum to 1, so the luma is the frame */
  const std::vector<uint8_t> grey = canny_frame (s.w, s.h, (size_t) s.w);
  ChainInput cells { "cells", std::vector<uint8_t> (row * s.h) };
  for (size_t p = 0; p < grey.size (); p++) {
    cells.rgba[4 * p] = cells.rgba[4 * p + 1] = cells.rgba[4 * p + 2] = grey[p];
    cells.rgba[4 * p + 3] = 255;
  }
  inputs.push_back (std::move (cells));
  return inputs;
}

void
chain_line (const char *kind, Size s, const Timing & t, const std::string & fields)
{
  std::printf ("%-16s %5dx%-5d %-16s %9.2f %9.2f %9.2f  %s\n", kind, s.w, s.h, "static", t.median_us, t.p10_us,
      t.p90_us, fields.c_str ());
}

std::string
ratio_text (double r)
{
  char b[32];
  std::snprintf (b, sizeof b, "%.2f", r);
  return b;
}

}  // namespace

static void
bench_chains (Context & c, Size s)
{
  cvbench::LaunchGate gate;
  if (!gate.ok ())
    std::fprintf (stderr, "chains: no launch gate (mapped pinned memory): frames timed at the host's launch rate\n");
  for (const ChainInput & input : chain_inputs (s)) {
    const size_t rgba_bytes = cudavision::aligned_pitch ((size_t) s.w * 4) * s.h;
    Pool src = make_pool ((size_t) rotation_count (rgba_bytes), s, 4);
    check (cudaMemcpy2D (src[0].buf.get (), src[0].pitch, input.rgba.data (), (size_t) s.w * 4, (size_t) s.w * 4,
               s.h, cudaMemcpyHostToDevice), "upload");
    for (size_t k = 1; k < src.size (); k++)
      check (cudaMemcpy (src[k].buf.get (), src[0].buf.get (), rgba_bytes, cudaMemcpyDeviceToDevice), "copy");
    check (cudaDeviceSynchronize (), "sync"); /* the legacy stream's copies, before our streams */
    Pool gray_out = make_pool (2, s, 1), blur_out = make_pool (2, s, 1), canny_out = make_pool (2, s, 1),
         harris_out = make_pool (2, s, 1);

    ChainElement gray ("cudagray", c), blur ("cudablur", c), canny ("cudacanny", c), harris ("cudaharris", c);
    gray.process = [&] (const PoolFrame & in, PoolFrame & out, int) {
      check (cudavision::rgb_to_gray (in.src (s), cudavision::PackedRgb::RGBA, out.dst (s), gray.policy, gray.s ()).err,
          "cudagray");
    };
    const double sigma = 1.5; /* cudablur's default; kernel-size=0: OpenCV's size for it */
    const int ksize = cudavision::gaussian_ksize_for_sigma (sigma);
    const cudavision::BlurTaps taps = cudavision::make_blur_taps (ksize, ksize, sigma, sigma);
    cudavision::DeviceBuffer blur_scratch;
    blur.process = [&] (const PoolFrame & in, PoolFrame & out, int) {
      check (cudavision::gaussian_blur (in.src (s), out.dst (s), 1, taps, blur.policy, blur.s (), &blur_scratch).err,
          "cudablur");
    };
    cudavision::CannyScratch canny_scratch;
    canny_scratch.graphs = true; /* as cudacanny sets it */
    const cudavision::CannyParams canny_params;
    canny.process = [&] (const PoolFrame & in, PoolFrame & out, int) {
      check (cudavision::canny (in.src (s), out.dst (s), canny_params, &canny_scratch, cudavision::canny_prepasses (),
          canny.policy, canny.s ()).err,
          "cudacanny");
    };
    std::unique_ptr<cudavision::CornerDetector[]> detectors (new cudavision::CornerDetector[kChainBatch]);
    int detector_slots = kChainBatch;
    const cudavision::CornerDetectParams harris_params;
    harris.process = [&] (const PoolFrame & in, PoolFrame & out, int i) {
      const cudavision::Image8 copy = out.dst (s);
      const cudavision::LumaInput luma { in.src (s), true };
      check (detectors[i % detector_slots].enqueue (luma, harris_params, harris.policy, harris.s (), &copy).err,
          "cudaharris");
    };
    std::vector<cudavision::Corner> corners, last_list;
    auto drain = [&] {
      check (cudaDeviceSynchronize (), "sync");
      for (int d = 0; d < kChainBatch; d++)
        check (detectors[d].collect (&corners).err, "corner list");
    };

    bool timed_out = false, stage_timed_out = false;
    auto stage = [&] (ChainElement & el, Pool & in, Pool & out) {
      return time_gated (gate, el.s (), c.iters, [&] (int i, cudaEvent_t a, cudaEvent_t b) {
        if (a)
          check (cudaEventRecord (a, el.s ()), "record");
        el.run (in[i % in.size ()], out[i % out.size ()], i);
        if (b)
          check (cudaEventRecord (b, el.s ()), "record");
      }, drain, &stage_timed_out);
    };
    /* in this order each element's input pool holds its upstream's output */
    const Timing t_gray = stage (gray, src, gray_out);
    const Timing t_blur = stage (blur, gray_out, blur_out);
    const Timing t_canny = stage (canny, blur_out, canny_out);
    const Timing t_harris = stage (harris, gray_out, harris_out);

    struct Chain {
      const char *key, *description;
      std::vector<Link> links;
      std::vector<const Timing *> alone;
      bool waits_for_list; /* cudaharris: latency-frames=0 */
    };
    const Chain chains[] = {
      { "gray-blur-canny", "cudagray ! cudablur ! cudacanny",
        { { &gray, &src, &gray_out }, { &blur, &gray_out, &blur_out }, { &canny, &blur_out, &canny_out } },
        { &t_gray, &t_blur, &t_canny }, false },
      { "gray-harris", "cudagray ! cudaharris", { { &gray, &src, &gray_out }, { &harris, &gray_out, &harris_out } },
        { &t_gray, &t_harris }, true },
    };
    for (const Chain & ch : chains) {
      const std::string fields = std::string ("chain=") + ch.key + " input=" + input.name;
      ChainRow row { ch.description, input.name, s, {}, 0, {}, {}, false };
      Timing sum;
      for (size_t k = 0; k < ch.links.size (); k++) {
        const Timing & t = *ch.alone[k];
        chain_line ("chain.stage", s, t, fields + " element=" + ch.links[k].element->name);
        row.stages.push_back ({ ch.links[k].element->name, t.median_us });
        sum.median_us += t.median_us;
        sum.p10_us += t.p10_us;
        sum.p90_us += t.p90_us;
      }
      row.sum = sum.median_us;
      chain_line ("chain.sum", s, sum,
          fields + " elements=" + std::to_string (ch.links.size ()) + (stage_timed_out ? " gate=timed-out" : ""));

      cudaStream_t head = ch.links.front ().element->s (), tail = ch.links.back ().element->s ();
      cudaEvent_t previous_stop = nullptr;
      timed_out = false;
      row.frame = time_gated (gate, head, c.iters, [&] (int i, cudaEvent_t a, cudaEvent_t b) {
        if (a && previous_stop)
          check (cudaStreamWaitEvent (head, previous_stop, 0), "wait");
        if (a)
          check (cudaEventRecord (a, head), "record");
        run_links (ch.links, i);
        if (b) {
          check (cudaEventRecord (b, tail), "record");
          previous_stop = b;
        }
      }, drain, &timed_out);
      row.gate_timed_out = timed_out || stage_timed_out;
      chain_line ("chain.frame", s, row.frame,
          fields + " frame/sum=" + ratio_text (row.frame.median_us / row.sum) + (timed_out ? " gate=timed-out" : ""));

      detector_slots = 1;
      row.pipelined = time_pipelined (head, tail, c.iters, [&] (int i) {
        run_links (ch.links, i);
        if (ch.waits_for_list)
          check (detectors[0].collect (&last_list).err, "corner list");
      }, drain);
      detector_slots = kChainBatch;
      chain_line ("chain.pipelined", s, row.pipelined,
          fields + " pipelined/sum=" + ratio_text (row.pipelined.median_us / row.sum));
      c.chain_rows.push_back (row);
    }
    /* what the frames hold, for reading the times */
    std::vector<uint8_t> edges (canny_out[0].pitch * s.h);
    check (cudaMemcpy (edges.data (), canny_out[0].buf.get (), edges.size (), cudaMemcpyDeviceToHost), "download");
    long n_edges = 0;
    for (int y = 0; y < s.h; y++)
      for (int x = 0; x < s.w; x++)
        n_edges += edges[(size_t) y * canny_out[0].pitch + x] != 0;
    std::printf ("%-16s %5dx%-5d %s: edges on %.2f%% of the pixels (cudacanny), %zu corners (cudaharris)\n", "", s.w,
        s.h, input.name.c_str (), 100.0 * n_edges / ((double) s.w * s.h), last_list.size ());
    for (int d = 0; d < kChainBatch; d++)
      detectors[d].release ();
    canny_scratch.release ();
  }
}

/* The chains' rows of every size as one Markdown table, a chain's and an
 * input's sizes next to each other. */
static void
print_chain_table (std::vector<ChainRow> rows)
{
  if (rows.empty ())
    return;
  std::stable_sort (rows.begin (), rows.end (), [] (const ChainRow & a, const ChainRow & b) {
    return a.chain != b.chain ? a.chain < b.chain : a.input < b.input;
  });
  std::printf ("\nChains, GPU time per frame (µs, medians, block-sizing=static; frame: CUDA events around a frame's "
               "work; elements alone: each element's own frames back to back):\n\n");
  std::printf ("| chain | input | size | elements alone | sum | frame (p10-p90) | frame / sum | pipelined | "
               "pipelined / sum |\n");
  std::printf ("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (const ChainRow & r : rows) {
    std::string alone;
    for (const auto & st : r.stages)
      alone += (alone.empty () ? "" : " + ") + ratio_text (st.second);
    std::printf ("| %s | %s | %dx%d | %s | %.2f | %.2f (%.2f-%.2f)%s | %.2f | %.2f | %.2f |\n", r.chain.c_str (),
        r.input.c_str (), r.size.w, r.size.h, alone.c_str (), r.sum, r.frame.median_us, r.frame.p10_us,
        r.frame.p90_us, r.gate_timed_out ? " (gate timed out)" : "", r.frame.median_us / r.sum,
        r.pipelined.median_us, r.pipelined.median_us / r.sum);
  }
}

int
main (int argc, char **argv)
{
  std::string sizes = "1280x720,1920x1080,3840x2160", table_path, only;
  Context c;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--sizes") && i + 1 < argc)
      arg_dims_list ("--sizes", sizes = argv[++i]); /* a bad size exits (2) before CUDA starts */
    else if (!std::strcmp (argv[i], "--iters") && i + 1 < argc)
      c.iters = arg_int ("--iters", argv[++i], 1, 100000);
    else if (!std::strcmp (argv[i], "--table") && i + 1 < argc)
      table_path = argv[++i];
    else if (!std::strcmp (argv[i], "--only") && i + 1 < argc)
      c.only = argv[++i];
    else {
      std::fprintf (stderr,
          "usage: %s [--sizes WxH,...] [--iters N] [--table FILE] [--only gray,blur,otsu,harris,canny,flow,chains]\n",
          argv[0]);
      return 2;
    }
  }
  gst_init (&argc, &argv); /* decodes the pictures */
  if (cudavision::cuda_device_count () == 0) {
    std::fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  check (cudaSetDevice (0), "cudaSetDevice");
  check (c.stream.create ().err, "stream");
  check (cudavision::query_current_device (&c.dev).err, "device");
  auto table = std::make_shared<cudavision::TuningTable> ();
  std::string err;
  if (!table_path.empty () && !table->load (table_path, &err))
    std::fprintf (stderr, "table %s: %s (model fallback)\n", table_path.c_str (), err.c_str ());
  c.table = table;

  std::printf ("device: %s, CC %d.%d, %d SMs, driver %d\n", c.dev.name.c_str (), c.dev.cc_major, c.dev.cc_minor,
      c.dev.sm_count, c.dev.driver_version);
  for (Size s : parse_sizes (sizes)) {
    double copy_us = 0;
    const size_t copy_bytes = (size_t) s.w * s.h * 4;
    const double copy_gbs = copy_bandwidth_gbs (c.stream.get (), copy_bytes, c.iters, &copy_us);
    std::printf ("\n%dx%d: device-to-device copy of %zu bytes: %.2f us, %.1f GB/s (read+write)\n", s.w, s.h,
        copy_bytes, copy_us, copy_gbs);
    std::printf ("%-16s %-11s %-16s %9s %9s %9s %8s %7s\n", "kernel", "size", "mode", "median_us", "p10_us",
        "p90_us", "GB/s", "%copy");
    if (c.runs ("gray"))
      bench_gray (c, s, copy_gbs);
    if (c.runs ("blur"))
      bench_blur (c, s, copy_gbs);
    if (c.runs ("otsu"))
      bench_otsu (c, s, copy_gbs);
    if (c.runs ("harris"))
      bench_harris (c, s, copy_gbs);
    if (c.runs ("canny"))
      bench_canny (c, s, copy_gbs);
    if (c.runs ("flow"))
      bench_flow (c, s, copy_gbs);
    if (c.runs ("chains"))
      bench_chains (c, s);
  }
  print_chain_table (c.chain_rows);
  return 0;
}
