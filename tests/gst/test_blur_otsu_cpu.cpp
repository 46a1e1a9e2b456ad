/* cudablur and cudaotsu through GStreamer on the CPU backend (runs in CI),
 * and the GPU algorithms' arithmetic checked against OpenCV on the CPU:
 *  - blur: the fixed-point taps and a plain model of the kernels' integer
 *    arithmetic (cpu::gaussian_blur_fixed_reference) are bit-exact to
 *    cv::GaussianBlur, and so is the direct kernel's per-thread code and
 *    the split of NV12's chroma into 1-channel blurs;
 *  - otsu: the device's search (fast path and exact recurrence, run on the
 *    host by otsu_threshold_host) gives cv::threshold's threshold.
 * NV12 and I420 are blurred plane by plane and their luma binarized, as
 * OpenCV does each plane. */
#include "../common/harness.h"
#include "../common/otsu_util.h"
#include "../common/video_frames.h"

#include "../../cpu/blur_cpu.h"
#include "../../cuda/blur/blur.h"
#include "../../cuda/blur/blur_direct.h"
#include "../../cuda/blur/blur_direct_strip.h"
#include "../../cuda/otsu/otsu.h"
#include "gstcvotsumeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace cvtest;

struct BlurCase {
  double sigma;
  int ksize;      /* 0: derived */
  double sigma_y; /* 0: sigma */
};

/* The default (1.5, derived 11), small and large explicit kernels, a
 * derived 25-tap kernel, and different vertical sigmas. */
static const BlurCase kBlurCases[] = {
  { 1.5, 0, 0 }, { 0.8, 3, 0 }, { 1.1, 5, 0 }, { 2.0, 9, 0 }, { 1.0, 7, 3.0 }, { 4.0, 0, 0 }, { 3.0, 31, 0.6 },
};

static std::string
blur_element (const BlurCase & c, const char *backend = "cpu")
{
  char buf[160];
  std::snprintf (buf, sizeof (buf), "cudablur backend=%s sigma=%.17g kernel-size=%d sigma-y=%.17g", backend,
      c.sigma, c.ksize, c.sigma_y);
  return buf;
}

static cv::Mat
opencv_blur (const cv::Mat & in, const BlurCase & c)
{
  cv::Mat out;
  cv::GaussianBlur (in, out, cv::Size (c.ksize, c.ksize), c.sigma, c.sigma_y, cv::BORDER_REFLECT_101);
  return out;
}

/* The kernel sizes the element uses for a case (OpenCV's rule). */
static void
case_ksizes (const BlurCase & c, int *kx, int *ky, double *sy)
{
  *sy = c.sigma_y > 0 ? c.sigma_y : c.sigma;
  *kx = c.ksize > 0 ? c.ksize : cudavision::gaussian_ksize_for_sigma (c.sigma);
  *ky = c.ksize > 0 ? c.ksize : cudavision::gaussian_ksize_for_sigma (*sy);
}

static cv::Mat
model_blur (const cv::Mat & in, int kx, int ky, double sx, double sy)
{
  std::vector<uint16_t> tx (kx), ty (ky);
  cudavision::gaussian_taps_fixed (kx, sx, tx.data ());
  cudavision::gaussian_taps_fixed (ky, sy, ty.data ());
  cv::Mat out (in.size (), in.type ());
  cudavision::cpu::gaussian_blur_fixed_reference ({ in.data, in.step, in.cols, in.rows },
      { out.data, out.step, out.cols, out.rows }, in.channels (), tx.data (), kx, ty.data (), ky);
  return out;
}

/* ------------------------------------------------------------ blur */

TEST (BlurCpu, BundledImagesMatchOpenCV)
{
  const auto images = test_images ();
  ASSERT_GE (images.size (), 10u);
  for (const auto & path : images) {
    const cv::Mat rgb = load_rgb (path);
    for (const cv::Mat & in : { to_gray (rgb), to_rgba (rgb, 7) }) {
      for (const BlurCase & c : kBlurCases) {
        const cv::Mat out = through (blur_element (c), in);
        ASSERT_FALSE (out.empty ()) << path << " " << blur_element (c);
        const Diff d = compare (out, opencv_blur (in, c));
        EXPECT_EQ (d.differing, 0) << path << " " << size_str (in) << " " << blur_element (c) << " max " << d.max_abs;
      }
    }
  }
}

TEST (BlurCpu, OddAndTinySizes)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 2, 3 }, { 1, 7 }, { 7, 1 }, { 641, 479 } };
  for (const auto & s : sizes) {
    for (int type : { CV_8UC1, CV_8UC4 }) {
      const cv::Mat in = random_mat (s[0], s[1], type, s[0] * 1000 + s[1] + type);
      for (const BlurCase & c : kBlurCases) {
        const cv::Mat out = through (blur_element (c), in);
        ASSERT_FALSE (out.empty ()) << size_str (in);
        EXPECT_EQ (compare (out, opencv_blur (in, c)).differing, 0) << size_str (in) << " " << blur_element (c);
      }
    }
  }
}

/* The test can fail: another sigma gives another image. */
TEST (BlurCpu, SigmaMatters)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("camera.png")));
  const cv::Mat out = through ("cudablur backend=cpu", in);
  ASSERT_FALSE (out.empty ());
  EXPECT_EQ (compare (out, opencv_blur (in, { 1.5, 0, 0 })).differing, 0);
  EXPECT_GT (compare (out, opencv_blur (in, { 1.6, 0, 0 })).differing, 1000);
  /* (9 taps would not do: sigma 1.5's outer taps of 11 round to 0) */
  EXPECT_GT (compare (out, opencv_blur (in, { 1.5, 5, 0 })).differing, 1000);
}

/* The taps the GPU uses are OpenCV's: an impulse of 255 through a 1-row
 * (1-column) image gives (tap * 255 + 128) >> 8 around it, which is the
 * tap itself up to 128; the centre follows from the sum of 256. */
TEST (BlurCpu, FixedPointTapsAreOpenCVs)
{
  const double sigmas[] = { 0.05, 0.3, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.3, 4.0, 5.0, 7.0, 10.0, 50.0 };
  int checked = 0;
  for (int k = 3; k <= cudavision::kBlurMaxKsize; k += 2) {
    for (double sigma : sigmas) {
      std::vector<uint16_t> taps (k);
      cudavision::gaussian_taps_fixed (k, sigma, taps.data ());
      int sum = 0;
      for (int t : taps)
        sum += t;
      ASSERT_EQ (sum, 256) << k << " " << sigma;
      for (bool vertical : { false, true }) {
        cv::Mat impulse = cv::Mat::zeros (vertical ? 64 : 1, vertical ? 1 : 64, CV_8UC1);
        impulse.at<uint8_t> (32) = 255;
        cv::Mat out;
        cv::GaussianBlur (impulse, out, vertical ? cv::Size (1, k) : cv::Size (k, 1), sigma, sigma,
            cv::BORDER_REFLECT_101);
        for (int x = 0; x < 64; x++) {
          const int j = 32 - x + k / 2;
          const int t = j >= 0 && j < k ? taps[j] : 0;
          ASSERT_EQ ((int) out.at<uint8_t> (x), (t * 255 + 128) >> 8)
              << "ksize " << k << " sigma " << sigma << " at " << x - 32 << (vertical ? " (vertical)" : "");
        }
      }
      checked++;
    }
  }
  EXPECT_EQ (checked, 15 * 15);
  EXPECT_EQ (cudavision::gaussian_ksize_for_sigma (1.5), 11);
  EXPECT_EQ (cudavision::gaussian_ksize_for_sigma (4.0), 25);
  EXPECT_EQ (cudavision::gaussian_ksize_for_sigma (0.25), 3);   /* round (2.5) = 2 (half to even), | 1 */
  EXPECT_EQ (cudavision::gaussian_ksize_for_sigma (0.05), 1);
}

/* The kernels' integer arithmetic, modelled plainly, is bit-exact to
 * OpenCV: what the GPU tests then compare the GPU against (on
 * sweep_images: under the sanitizers four of the photographs). */
TEST (BlurCpu, GpuArithmeticModelIsBitExact)
{
  std::vector<cv::Mat> frames;
  for (const auto & path : sweep_images ()) {
    const cv::Mat rgb = load_rgb (path);
    frames.push_back (to_gray (rgb));
    frames.push_back (to_rgba (rgb, 3));
  }
  for (const BlurCase & c : kBlurCases) {
    for (const cv::Mat & in : frames) {
      int kx, ky;
      double sy;
      case_ksizes (c, &kx, &ky, &sy);
      const Diff d = compare (model_blur (in, kx, ky, c.sigma, sy), opencv_blur (in, c));
      EXPECT_EQ (d.differing, 0) << size_str (in) << " " << blur_element (c) << " max " << d.max_abs;
    }
  }
  /* every kernel size, random and tiny frames */
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 5, 9 }, { 97, 61 } };
  for (const auto & s : sizes) {
    for (int type : { CV_8UC1, CV_8UC4 }) {
      const cv::Mat in = random_mat (s[0], s[1], type, s[0] * 31 + s[1] + type);
      for (int k = 3; k <= 31; k += 2) {
        for (double sigma : { 0.6, 1.5, 4.5 }) {
          const BlurCase c { sigma, k, sigma * 0.7 };
          const Diff d = compare (model_blur (in, k, k, sigma, sigma * 0.7), opencv_blur (in, c));
          EXPECT_EQ (d.differing, 0) << size_str (in) << " k " << k << " sigma " << sigma << " max " << d.max_abs;
        }
      }
    }
  }
}

/* NV12's chroma on the GPU (gaussian_blur_interleaved2): U and V split into
 * planes, each blurred by the 1-channel kernels, merged back. The plain
 * model of that, on the UV planes of photographs and 2-channel noise, is
 * bit-exact to cv::GaussianBlur of the 2-channel image. */
TEST (BlurCpu, TwoChannelSplitModelIsBitExact)
{
  std::vector<cv::Mat> uvs;
  for (const char *name : { "astronaut.png", "building.jpg", "sudoku.png" }) {
    const cv::Mat rgb = load_rgb (data_path (name));
    GstBuffer *b = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12);
    GstCaps *caps = gst_caps_from_string (caps_string (GST_VIDEO_FORMAT_NV12, rgb.cols, rgb.rows).c_str ());
    uvs.push_back (buffer_planes (b, caps)[1]);
    gst_caps_unref (caps);
    gst_buffer_unref (b);
  }
  for (const auto & s : { std::pair<int, int> { 1, 1 }, { 2, 3 }, { 161, 120 } })
    uvs.push_back (random_mat (s.first, s.second, CV_8UC2, s.first * 7 + s.second));
  for (const cv::Mat & uv : uvs) {
    ASSERT_EQ (uv.type (), CV_8UC2);
    for (const BlurCase & c : kBlurCases) {
      int kx, ky;
      double sy;
      case_ksizes (c, &kx, &ky, &sy);
      std::vector<cv::Mat> ch;
      cv::split (uv, ch);
      for (cv::Mat & m : ch)
        m = model_blur (m, kx, ky, c.sigma, sy);
      cv::Mat merged;
      cv::merge (ch, merged);
      const Diff d = compare (merged, opencv_blur (uv, c));
      EXPECT_EQ (d.differing, 0) << size_str (uv) << " " << blur_element (c) << " max " << d.max_abs;
    }
  }
}

/* The direct kernel's lane code (blur_direct_strip.h) run on the host for
 * every lane of segments `seg` lanes wide, the shuffles done by reading the
 * neighbouring lane's sums: the frame in a buffer of exactly pitch x height
 * bytes (a read past it shows under ASan). */
/* A GRAY8 image kept at `pitch` bytes a row (the models' buffers) as a
 * cv::Mat. */
static cv::Mat
pitched_to_mat (const std::vector<uint8_t> & buf, size_t pitch, int rows, int cols)
{
  cv::Mat out (rows, cols, CV_8UC1);
  for (int y = 0; y < rows; y++)
    std::copy (buf.data () + y * pitch, buf.data () + y * pitch + cols, out.ptr (y));
  return out;
}

template <int R>
static cv::Mat
direct_model (const cv::Mat & in, const cudavision::BlurTaps & t, size_t pitch, int seg)
{
  using namespace cudavision;
  constexpr int P = kBlurDirectRows;
  const auto taps = blur_direct_taps<R> (t.x, t.radius_x (), t.y, t.radius_y ());
  std::vector<uint8_t> src (pitch * in.rows), dst (pitch * in.rows);
  for (int y = 0; y < in.rows; y++)
    std::copy (in.ptr (y), in.ptr (y) + in.cols, src.data () + y * pitch);
  const int lanes = ((in.cols + 15) / 16 + seg - 1) / seg * seg;
  using Sums = uint32_t[2 * kStripWords];
  std::vector<uint32_t> flat ((size_t) lanes * P * 2 * kStripWords);
  auto acc = [&] (int l, int p) -> Sums & { return *reinterpret_cast<Sums *> (&flat[((size_t) l * P + p) * 2 * kStripWords]); };
  for (int y0 = 0; y0 < in.rows; y0 += P) {
    for (int i = 0; i < P + 2 * R; i++) {
      const uint8_t *row = src.data () + (size_t) blur_detail::reflect101 (y0 - R + i, in.rows) * pitch;
      for (int l = 0; l < lanes; l++) {
        const StripEdge edge = l % seg == 0 ? StripEdge::Left : l % seg == seg - 1 ? StripEdge::Right : StripEdge::None;
        uint32_t w[kStripWords];
        strip_load_row (row, 16 * l, in.cols, edge, w);
        for (int p = 0; p < P; p++) {
          const int k = i - p;
          if (k >= 0 && k <= 2 * R)
            strip_accumulate (w, taps.y[k >= R ? k - R : R - k], k == 0, acc (l, p));
        }
      }
      if (i < 2 * R)
        continue;
      const int p = i - 2 * R, y = y0 + p;
      for (int l = 0; l < lanes && y < in.rows; l++) {
        const Sums & a = acc (l, p);
        const Sums & left = l % seg == 0 ? a : acc (l - 1, p);
        const Sums & right = l % seg == seg - 1 ? a : acc (l + 1, p);
        const int le = l % seg == 0 ? 8 : 6, re = l % seg == seg - 1 ? 8 : 0;
        uint32_t out[4];
        strip_row_pass<R> (a, left[le], left[le + 1], right[re], right[re + 1], taps, out);
        for (int b = 0; b < 16 && 16 * l + b < in.cols; b++)
          dst[(size_t) y * pitch + 16 * l + b] = (uint8_t) (out[b >> 2] >> (8 * (b & 3)));
      }
    }
  }
  return pitched_to_mat (dst, pitch, in.rows, in.cols);
}

/* The streaming kernel's lane code for radius classes 1 and 2
 * (blur_direct.cu's stream_unit): each input row unpacked once
 * (strip_unpack_row), an output row's column sums from its 2R + 1 rows
 * (strip_column_sums), the row pass by two-way dot products
 * (strip_row_pass_dp2a), the pairs beside a lane's 16 sums from the
 * neighbouring lanes of its segment or, at a segment's ends, from the halo
 * word. Rows and pixels outside the frame reflect through strip_load_row
 * (the kernel's unaligned form). */
template <int R>
static cv::Mat
stream_model (const cv::Mat & in, const cudavision::BlurTaps & t, size_t pitch, int seg)
{
  using namespace cudavision;
  const auto taps = blur_direct_taps<R> (t.x, t.radius_x (), t.y, t.radius_y ());
  EXPECT_TRUE (taps.xb_ok);
  std::vector<uint8_t> src (pitch * in.rows), dst (pitch * in.rows);
  for (int y = 0; y < in.rows; y++)
    std::copy (in.ptr (y), in.ptr (y) + in.cols, src.data () + y * pitch);
  const int lanes = ((in.cols + 15) / 16 + seg - 1) / seg * seg;
  using Row = uint32_t[kStripSums];
  std::vector<uint32_t> sums ((size_t) lanes * kStripSums);
  auto at = [&] (int l) -> Row & { return *reinterpret_cast<Row *> (&sums[(size_t) l * kStripSums]); };
  for (int y = 0; y < in.rows; y++) {
    for (int l = 0; l < lanes; l++) {
      const bool first = l % seg == 0, last = l % seg == seg - 1;
      const StripEdge edge = first ? StripEdge::Left : last ? StripEdge::Right : StripEdge::None;
      Row u[2 * R + 1];
      for (int k = 0; k <= 2 * R; k++) {
        uint32_t w[kStripWords];
        strip_load_row (src.data () + (size_t) blur_detail::reflect101 (y - R + k, in.rows) * pitch, 16 * l, in.cols,
            edge, w);
        strip_unpack_row (w, first ? kLeftPairSel : kRightPairSel, u[k]);
      }
      strip_column_sums<R> ([&] (int k) -> const Row & { return u[k]; }, taps.y, at (l));
    }
    for (int l = 0; l < lanes; l++) {
      const bool first = l % seg == 0, last = l % seg == seg - 1;
      const Row & a = at (l);
      const uint32_t left = first ? a[8] : hd_byte_perm (at (l - 1)[6], at (l - 1)[7], 0x7632);
      const uint32_t right = last ? a[8] : hd_byte_perm (at (l + 1)[0], at (l + 1)[1], 0x5410);
      uint32_t out[4];
      strip_row_pass_dp2a<R> (a, left, right, taps, out);
      for (int b = 0; b < 16 && 16 * l + b < in.cols; b++)
        dst[(size_t) y * pitch + 16 * l + b] = (uint8_t) (out[b >> 2] >> (8 * (b & 3)));
    }
  }
  return pitched_to_mat (dst, pitch, in.rows, in.cols);
}

/* GRAY8 blurs the streaming kernel takes (radius classes 1 and 2, row taps
 * that fit a byte), by its lane code: OpenCV's pixels, sizes and segments
 * as below. */
TEST (BlurCpu, StreamingLaneCodeIsBitExact)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 5 }, { 7, 3 }, { 8, 17 }, { 16, 4 }, { 17, 19 },
    { 97, 61 }, { 641, 47 } };
  struct K {
    int kx, ky;
    double sx, sy;
  };
  const K kernels[] = { { 3, 3, 0.8, 0.8 }, { 5, 5, 1.1, 1.1 }, { 5, 5, 0.35, 2.0 }, { 5, 3, 2.0, 0.5 },
    { 3, 5, 0.6, 1.4 }, { 5, 5, 9.0, 9.0 }, { 3, 1, 1.0, 1.0 } };
  int runs = 0;
  for (const auto & s : sizes) {
    const cv::Mat in = random_mat (s[0], s[1], CV_8UC1, s[0] * 13 + s[1]);
    for (const K & k : kernels) {
      const cudavision::BlurTaps t = cudavision::make_blur_taps (k.kx, k.ky, k.sx, k.sy);
      cv::Mat expected;
      cv::GaussianBlur (in, expected, cv::Size (k.kx, k.ky), k.sx, k.sy, cv::BORDER_REFLECT_101);
      for (int seg : { 16, 2 }) {
        const size_t pitch = ((size_t) s[0] + 255) / 256 * 256;
        const cv::Mat got = std::max (t.radius_x (), t.radius_y ()) <= 1 ? stream_model<1> (in, t, pitch, seg)
                                                                        : stream_model<2> (in, t, pitch, seg);
        const Diff d = compare (got, expected);
        EXPECT_EQ (d.differing, 0) << size_str (in) << " k " << k.kx << "x" << k.ky << " sigma " << k.sx << ","
                                   << k.sy << " seg " << seg << " max " << d.max_abs;
        runs++;
      }
    }
  }
  EXPECT_EQ (runs, 10 * 7 * 2);
  /* the identity along x (a centre tap of 256) is no byte: that blur takes
   * another kernel */
  EXPECT_FALSE ((cudavision::blur_direct_taps<1> (cudavision::make_blur_taps (1, 3, 1.0, 1.0).x, 0,
                     cudavision::make_blur_taps (1, 3, 1.0, 1.0).y, 1))
                    .xb_ok);
}

/* GRAY8 blurs the direct kernel takes (radius classes 1 to 4, a centre tap
 * of 256 included), by its lane code: OpenCV's pixels, for widths that
 * leave 0 to 15 pixels in the last lane, frames narrower than a lane and
 * shorter than the kernel, rows with no slack after them (pitch = width
 * rounded up to 4) and the device's 256-byte pitch, in segments of 32
 * lanes and of 2. */
TEST (BlurCpu, DirectKernelLaneCodeIsBitExact)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 5 }, { 5, 9 }, { 7, 3 }, { 8, 17 }, { 9, 16 },
    { 13, 33 }, { 16, 4 }, { 17, 19 }, { 97, 61 }, { 641, 47 } };
  struct K {
    int kx, ky;
    double sx, sy;
  };
  const K kernels[] = { { 3, 3, 0.8, 0.8 }, { 5, 5, 1.1, 1.1 }, { 5, 5, 0.35, 2.0 }, { 7, 5, 1.4, 0.9 },
    { 9, 9, 2.0, 2.0 }, { 5, 9, 1.0, 3.0 }, { 9, 3, 4.0, 0.5 }, { 7, 1, 1.2, 1.0 }, { 3, 9, 0.5, 1.7 },
    { 1, 7, 1.0, 1.2 }, { 3, 3, 0.1, 0.1 } };
  int runs = 0;
  for (const auto & s : sizes) {
    const cv::Mat in = random_mat (s[0], s[1], CV_8UC1, s[0] * 17 + s[1]);
    for (const K & k : kernels) {
      const cudavision::BlurTaps t = cudavision::make_blur_taps (k.kx, k.ky, k.sx, k.sy);
      ASSERT_LE (std::max (t.radius_x (), t.radius_y ()), cudavision::kBlurDirectMaxRadius);
      cv::Mat expected;
      cv::GaussianBlur (in, expected, cv::Size (k.kx, k.ky), k.sx, k.sy, cv::BORDER_REFLECT_101);
      for (size_t pitch : { (size_t) (s[0] + 3) / 4 * 4, ((size_t) s[0] + 255) / 256 * 256 })
        for (int seg : { 32, 2 }) {
          cv::Mat got;
          switch (cudavision::blur_radius_class (std::max (t.radius_x (), t.radius_y ()))) {
            case 1: got = direct_model<1> (in, t, pitch, seg); break;
            case 2: got = direct_model<2> (in, t, pitch, seg); break;
            case 3: got = direct_model<3> (in, t, pitch, seg); break;
            default: got = direct_model<4> (in, t, pitch, seg); break;
          }
          const Diff d = compare (got, expected);
          EXPECT_EQ (d.differing, 0) << size_str (in) << " k " << k.kx << "x" << k.ky << " sigma " << k.sx << ","
                                     << k.sy << " pitch " << pitch << " seg " << seg << " max " << d.max_abs;
          runs++;
        }
    }
  }
  EXPECT_EQ (runs, 13 * 11 * 2 * 2);
  /* Auto is the direct kernel on GRAY8 frames of 1080p and more up to 5x5,
   * the fused one elsewhere (what measured the fastest) */
  const auto five = cudavision::make_blur_taps (5, 5, 1.1, 1.1);
  EXPECT_EQ (cudavision::blur_default_variant (1, 3840, 2160, five), cudavision::BlurVariant::Direct);
  EXPECT_EQ (cudavision::blur_default_variant (1, 2560, 1440, five), cudavision::BlurVariant::Direct);
  EXPECT_EQ (cudavision::blur_default_variant (1, 1920, 1080, five), cudavision::BlurVariant::Direct);
  EXPECT_EQ (cudavision::blur_default_variant (1, 1280, 720, five), cudavision::BlurVariant::Fused);
  EXPECT_EQ (cudavision::blur_default_variant (4, 3840, 2160, five), cudavision::BlurVariant::Fused);
  EXPECT_EQ (cudavision::blur_default_variant (1, 3840, 2160, cudavision::make_blur_taps (11, 11, 1.5, 1.5)),
      cudavision::BlurVariant::Fused);
  EXPECT_EQ (cudavision::blur_default_variant (1, 3840, 2160, cudavision::make_blur_taps (9, 9, 1.4, 1.4)),
      cudavision::BlurVariant::Fused);
  for (const cudavision::BlurTaps & one :
      { cudavision::make_blur_taps (3, 3, 0.1, 0.1), cudavision::make_blur_taps (1, 7, 1.0, 1.2) }) {
    ASSERT_EQ (one.x[0], 256);
    EXPECT_EQ (cudavision::blur_default_variant (1, 64, 64, one), cudavision::BlurVariant::Fused);
  }
  EXPECT_EQ (cudavision::blur_default_variant (1, 64, 64, cudavision::make_blur_taps (5, 5, 1.1, 1.1)),
      cudavision::BlurVariant::Fused);
  EXPECT_EQ (cudavision::blur_default_variant (4, 64, 64, cudavision::make_blur_taps (5, 5, 1.1, 1.1)),
      cudavision::BlurVariant::Fused);
  EXPECT_EQ (cudavision::blur_default_variant (1, 64, 64, cudavision::make_blur_taps (11, 11, 1.5, 1.5)),
      cudavision::BlurVariant::Fused);
}

static std::vector<std::string> log_lines;

static void
capture_log (const gchar * domain, GLogLevelFlags, const gchar * message, gpointer)
{
  log_lines.push_back (std::string (domain ? domain : "") + ": " + message);
}

static bool
logged (const std::string & a, const std::string & b)
{
  for (const auto & l : log_lines)
    if (l.find (a) != std::string::npos && l.find (b) != std::string::npos)
      return true;
  return false;
}

TEST (BlurCpu, KernelSizeValidation)
{
  GstElement *e = gst_element_factory_make ("cudablur", nullptr);
  ASSERT_NE (e, nullptr);
  gdouble sigma = 0, sigma_y = -1;
  gint k = -1;
  g_object_get (e, "sigma", &sigma, "sigma-y", &sigma_y, "kernel-size", &k, nullptr);
  EXPECT_EQ (sigma, 1.5);
  EXPECT_EQ (sigma_y, 0.0);
  EXPECT_EQ (k, 0);

  g_object_set (e, "kernel-size", 5, nullptr);
  log_lines.clear ();
  const GLogFunc old = g_log_set_default_handler (capture_log, nullptr);
  for (int bad : { 4, 1, 30, 33, -1 }) {
    g_object_set (e, "kernel-size", bad, nullptr);
    g_object_get (e, "kernel-size", &k, nullptr);
    EXPECT_EQ (k, 5) << bad;
    /* a warning naming the value: ours for 4, 1 and 30, GObject's range
     * check for 33 and -1 */
    EXPECT_TRUE (logged ("kernel-size", "\"" + std::to_string (bad) + "\"") ||
        logged ("kernel-size " + std::to_string (bad), "keeping 5"))
        << bad;
  }
  g_log_set_default_handler (old, nullptr);
  EXPECT_EQ (log_lines.size (), 5u);
  g_object_set (e, "kernel-size", 31, nullptr);
  g_object_get (e, "kernel-size", &k, nullptr);
  EXPECT_EQ (k, 31);
  g_object_set (e, "kernel-size", 0, nullptr);
  g_object_get (e, "kernel-size", &k, nullptr);
  EXPECT_EQ (k, 0);
  gst_object_unref (e);
}

/* kernel-size=0 with a large sigma: capped at 31 taps on both backends. */
TEST (BlurCpu, DerivedSizeIsCapped)
{
  const cv::Mat in = random_mat (64, 48, CV_8UC1, 9);
  const cv::Mat out = through ("cudablur backend=cpu sigma=8", in);
  ASSERT_FALSE (out.empty ());
  EXPECT_EQ (compare (out, opencv_blur (in, { 8.0, 31, 0 })).differing, 0);
}

TEST (BlurCpu, PipelineWithEveryFormat)
{
  for (const char *f : { "GRAY8", "NV12", "I420", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR" }) {
    BusResult r = run_pipeline (std::string ("videotestsrc num-buffers=3 ! video/x-raw,format=") + f +
        ",width=321,height=239 ! cudablur backend=cpu sigma=2 ! fakesink");
    EXPECT_TRUE (r.eos) << f << (r.errors.empty () ? "" : r.errors[0]);
  }
  /* 3-byte RGB and packed 4:2:2 are not taken */
  for (const char *f : { "RGB", "YUY2" }) {
    BusResult r = run_pipeline (std::string ("videotestsrc num-buffers=1 ! video/x-raw,format=") + f +
        " ! cudablur backend=cpu ! fakesink");
    EXPECT_FALSE (r.eos) << f;
  }
}

/* ------------------------------------------------- blur: YUV, packed RGB */

/* Every plane of a frame of `format` (Y, then NV12's UV as 2 channels or
 * I420's U and V; packed formats: one plane), read where the buffer's
 * video meta says (padded rows too), copied. */
static std::vector<cv::Mat>
frame_planes (GstBuffer * buf, GstVideoFormat format, int w, int h, const char *feature = nullptr)
{
  GstCaps *caps = gst_caps_from_string (caps_string (format, w, h, feature).c_str ());
  std::vector<cv::Mat> planes = buffer_planes (buf, caps);
  gst_caps_unref (caps);
  return planes;
}

/* `in` (taken) through `element`, the same format out: the output's planes
 * (none when nothing came out). */
static std::vector<cv::Mat>
planes_through (const std::string & element, GstBuffer * in, GstVideoFormat format, int w, int h)
{
  GstBuffer *out = run_harness (element, caps_string (format, w, h), caps_string (format, w, h), in);
  if (!out)
    return {};
  std::vector<cv::Mat> planes = frame_planes (out, format, w, h);
  gst_buffer_unref (out);
  return planes;
}

/* One frame of `format` (made by rgb_to_buffer, rows padded by `pad` bytes
 * when > 0) through cudablur: every plane is cv::GaussianBlur of the same
 * plane of the input, byte for byte. */
static void
check_blur_planes (const BlurCase & c, const cv::Mat & rgb, GstVideoFormat format, int pad, const std::string & what)
{
  GstBuffer *in = rgb_to_buffer (rgb, format);
  if (pad > 0)
    in = with_row_padding (in, format, rgb.cols, rgb.rows, pad);
  const std::vector<cv::Mat> src = frame_planes (in, format, rgb.cols, rgb.rows);
  const std::string where = what + " " + gst_video_format_to_string (format) +
      (pad ? " pad " + std::to_string (pad) : "") +
      " " + blur_element (c);
  const std::vector<cv::Mat> out = planes_through (blur_element (c), in, format, rgb.cols, rgb.rows);
  ASSERT_EQ (out.size (), src.size ()) << where;
  for (size_t p = 0; p < out.size (); p++) {
    const Diff d = compare (out[p], opencv_blur (src[p], c));
    EXPECT_EQ (d.differing, 0) << where << ", plane " << p << " (" << size_str (src[p]) << ") max " << d.max_abs;
  }
}

/* The planes buffer_planes gives for NV12 and I420 are the ones meant: an
 * odd-sized frame's chroma rounds up. */
TEST (BlurCpu, YuvPlaneShapes)
{
  const cv::Mat rgb = random_rgb (321, 239, 4);
  GstBuffer *nv12 = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12), *i420 = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_I420);
  const std::vector<cv::Mat> a = frame_planes (nv12, GST_VIDEO_FORMAT_NV12, 321, 239);
  const std::vector<cv::Mat> b = frame_planes (i420, GST_VIDEO_FORMAT_I420, 321, 239);
  ASSERT_EQ (a.size (), 2u);
  ASSERT_EQ (b.size (), 3u);
  EXPECT_EQ (size_str (a[0]), "321x239x1");
  EXPECT_EQ (size_str (a[1]), "161x120x2");
  EXPECT_EQ (size_str (b[0]), "321x239x1");
  EXPECT_EQ (size_str (b[1]), "161x120x1");
  EXPECT_EQ (size_str (b[2]), "161x120x1");
  /* the same frame: NV12's UV is I420's U and V interleaved */
  std::vector<cv::Mat> uv;
  cv::split (a[1], uv);
  EXPECT_EQ (compare (uv[0], b[1]).differing, 0);
  EXPECT_EQ (compare (uv[1], b[2]).differing, 0);
  EXPECT_EQ (compare (a[0], b[0]).differing, 0);
  gst_buffer_unref (nv12);
  gst_buffer_unref (i420);
}

/* Colour photographs (odd heights among them: chroma rows round up), one
 * fitted to 321x239 (chroma 161x120) and noise of that size, every case. */
TEST (BlurCpu, Nv12AndI420PlanesMatchOpenCV)
{
  std::vector<std::pair<std::string, cv::Mat>> frames;
  for (const char *name : { "astronaut.png", "building.jpg", "sudoku.png", "iceblock.jpg" })
    frames.emplace_back (name, load_rgb (data_path (name)));
  frames.emplace_back ("building.jpg at 321x239", fit_picture (load_rgb (data_path ("building.jpg")), { 321, 239 }));
  frames.emplace_back ("noise 321x239", random_rgb (321, 239, 11));
  int runs = 0;
  for (const auto & [what, rgb] : frames)
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 })
      for (const BlurCase & c : kBlurCases) {
        check_blur_planes (c, rgb, f, 0, what);
        runs++;
      }
  EXPECT_EQ (runs, 6 * 2 * 7);
}

/* Producers with odd row pitches: every plane padded by an odd number of
 * bytes (NV12's UV rows then start at odd addresses). */
TEST (BlurCpu, Nv12AndI420PaddedRows)
{
  const cv::Mat photo = fit_picture (load_rgb (data_path ("astronaut.png")), { 321, 239 });
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 })
    for (int pad : { 1, 7, 64 })
      for (const BlurCase & c : { kBlurCases[0], kBlurCases[4], kBlurCases[6] })
        check_blur_planes (c, photo, f, pad, "astronaut.png at 321x239");
}

/* NV12's UV plane is blurred as two channels: not as one row of bytes
 * twice as wide (U and V mixed), and it is blurred at all. The test can
 * fail. */
TEST (BlurCpu, Nv12ChromaIsBlurredPerChannel)
{
  const cv::Mat rgb = load_rgb (data_path ("astronaut.png"));
  const BlurCase c = kBlurCases[0];
  GstBuffer *in = rgb_to_buffer (rgb, GST_VIDEO_FORMAT_NV12);
  const std::vector<cv::Mat> src = frame_planes (in, GST_VIDEO_FORMAT_NV12, rgb.cols, rgb.rows);
  const std::vector<cv::Mat> out = planes_through (blur_element (c), in, GST_VIDEO_FORMAT_NV12, rgb.cols, rgb.rows);
  ASSERT_EQ (out.size (), 2u);
  EXPECT_EQ (compare (out[1], opencv_blur (src[1], c)).differing, 0);
  const cv::Mat mixed = opencv_blur (src[1].reshape (1), c).reshape (2);
  EXPECT_GT (compare (out[1], mixed).differing, 1000);
  EXPECT_GT (compare (out[1], src[1]).differing, 1000);
  /* and I420's U and V are NV12's channels, blurred the same */
  const std::vector<cv::Mat> i420 =
      planes_through (blur_element (c), rgb_to_buffer (rgb, GST_VIDEO_FORMAT_I420), GST_VIDEO_FORMAT_I420, rgb.cols,
          rgb.rows);
  ASSERT_EQ (i420.size (), 3u);
  std::vector<cv::Mat> uv;
  cv::split (out[1], uv);
  EXPECT_EQ (compare (i420[0], out[0]).differing, 0);
  EXPECT_EQ (compare (i420[1], uv[0]).differing, 0);
  EXPECT_EQ (compare (i420[2], uv[1]).differing, 0);
}

/* Every 4-byte RGB layout (noise in the x / A byte, which is blurred like
 * the colours), as cv::GaussianBlur blurs the 4-channel image. */
TEST (BlurCpu, EveryFourByteLayoutMatchesOpenCV)
{
  const cv::Mat photo = load_rgb (data_path ("building.jpg"));
  const cv::Mat noise = random_rgb (321, 239, 12);
  for (GstVideoFormat f : kFourByteRgbFormats) {
    for (const BlurCase & c : { kBlurCases[0], kBlurCases[4], kBlurCases[6] }) {
      check_blur_planes (c, photo, f, 0, "building.jpg");
      check_blur_planes (c, noise, f, 0, "noise 321x239");
    }
    check_blur_planes (kBlurCases[1], noise, f, 5, "noise 321x239");
  }
}

/* ------------------------------------------------------------ otsu */

TEST (OtsuCpu, BundledImagesMatchOpenCV)
{
  for (const auto & path : test_images ())
    check_otsu ("cudaotsu backend=cpu", to_gray (load_rgb (path)), path);
}

TEST (OtsuCpu, OddSizesAndSpecialFrames)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 641, 479 } };
  for (const auto & s : sizes)
    check_otsu ("cudaotsu backend=cpu", random_mat (s[0], s[1], CV_8UC1, s[0] * 7 + s[1]),
        std::to_string (s[0]) + "x" + std::to_string (s[1]));
  check_otsu ("cudaotsu backend=cpu", cv::Mat (37, 23, CV_8UC1, cv::Scalar (128)), "constant");
  cv::Mat two (40, 30, CV_8UC1, cv::Scalar (10));
  two.rowRange (0, 13).setTo (200);
  check_otsu ("cudaotsu backend=cpu", two, "two levels");
}

/* sudoku (558x563: chroma rows round up) and coins (384x303), whole, and
 * at 321x239 with rows padded by an odd number of bytes. */
TEST (OtsuCpu, Nv12AndI420LumaMatchesOpenCV)
{
  for (const char *name : { "sudoku.png", "coins.png" }) {
    const cv::Mat rgb = load_rgb (data_path (name));
    /* the luma is not cv::cvtColor's grey (limited range): the test can
     * tell which plane was read */
    cv::Mat unused;
    EXPECT_NE (opencv_otsu (expected_gray (rgb, GST_VIDEO_FORMAT_NV12), unused, false),
        opencv_otsu (to_gray (rgb), unused, false)) << name;
    const cv::Mat small = fit_picture (rgb, { 321, 239 });
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      check_otsu_yuv ("cudaotsu backend=cpu", rgb, f, 0, name);
      check_otsu_yuv ("cudaotsu backend=cpu", small, f, 7, std::string (name) + " at 321x239");
    }
  }
}

/* The test can fail: invert changes the output, the meta follows the frame. */
TEST (OtsuCpu, InvertMatters)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("coins.png")));
  int m1 = -1, m2 = -1;
  const cv::Mat a = otsu_through ("cudaotsu backend=cpu", in, &m1);
  const cv::Mat b = otsu_through ("cudaotsu backend=cpu invert=true", in, &m2);
  EXPECT_EQ (compare (a, b).differing, (long) in.total ());
  EXPECT_EQ (m1, m2);
  const cv::Mat c = otsu_through ("cudaotsu backend=cpu attach-meta=false", in, &m1);
  EXPECT_EQ (m1, -1);
  EXPECT_EQ (compare (a, c).differing, 0);
}

/* post-messages: one element message per frame with the threshold and the
 * frame's times; none by default. */
TEST (OtsuCpu, MessagesCarryThresholdAndTimes)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("text.png")));
  cv::Mat unused;
  const int t = (int) opencv_otsu (in, unused, false);
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, in.cols, in.rows);
  for (bool post : { true, false }) {
    GstHarness *h = gst_harness_new_parse (post ? "cudaotsu backend=cpu post-messages=true attach-meta=false"
                                                : "cudaotsu backend=cpu attach-meta=true");
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
    GstBuffer *buf = mat_to_buffer (in, GST_VIDEO_FORMAT_GRAY8);
    GST_BUFFER_PTS (buf) = 5 * GST_SECOND;
    GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
    GstBuffer *out = gst_harness_push_and_pull (h, buf);
    ASSERT_NE (out, nullptr);
    EXPECT_EQ (gst_buffer_get_cv_otsu_meta (out) != nullptr, !post);
    gst_buffer_unref (out);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    if (!post) {
      EXPECT_EQ (m, nullptr);
    } else {
      ASSERT_NE (m, nullptr);
      const GstStructure *s = gst_message_get_structure (m);
      EXPECT_TRUE (gst_structure_has_name (s, "cudaotsu"));
      guint thr = 999;
      guint64 ts = 0, st = 0, rt = 0, dur = 0;
      EXPECT_TRUE (gst_structure_get_uint (s, "threshold", &thr));
      EXPECT_TRUE (gst_structure_get_uint64 (s, "timestamp", &ts));
      EXPECT_TRUE (gst_structure_get_uint64 (s, "stream-time", &st));
      EXPECT_TRUE (gst_structure_get_uint64 (s, "running-time", &rt));
      EXPECT_TRUE (gst_structure_get_uint64 (s, "duration", &dur));
      EXPECT_EQ ((int) thr, t);
      EXPECT_EQ (ts, 5 * GST_SECOND);
      EXPECT_EQ (st, 5 * GST_SECOND);
      EXPECT_EQ (rt, 5 * GST_SECOND);
      EXPECT_EQ (dur, 40 * GST_MSECOND);
      gst_message_unref (m);
      EXPECT_EQ (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT), nullptr);
    }
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

TEST (OtsuCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudaotsu", nullptr);
  ASSERT_NE (e, nullptr);
  gint mode = -1;
  gboolean invert = TRUE, post = TRUE, meta = FALSE;
  g_object_get (e, "mode", &mode, "invert", &invert, "post-messages", &post, "attach-meta", &meta, nullptr);
  EXPECT_EQ (mode, 0);
  EXPECT_FALSE (invert);
  EXPECT_FALSE (post);
  EXPECT_FALSE (meta);  /* no host wait unless someone reads the threshold */
  gst_util_set_object_arg (G_OBJECT (e), "mode", "threshold-only");
  g_object_get (e, "mode", &mode, nullptr);
  EXPECT_EQ (mode, 1);
  gst_object_unref (e);
  /* GRAY8 and the luma of NV12 and I420 in, GRAY8 out */
  for (const char *f : { "GRAY8", "NV12", "I420" }) {
    BusResult ok = run_pipeline (std::string ("videotestsrc num-buffers=2 ! video/x-raw,format=") + f +
        ",width=321,height=239 ! cudaotsu backend=cpu ! video/x-raw,format=GRAY8 ! fakesink");
    EXPECT_TRUE (ok.eos) << f << (ok.errors.empty () ? "" : ok.errors[0]);
  }
  BusResult r = run_pipeline ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA ! cudaotsu backend=cpu ! fakesink");
  EXPECT_FALSE (r.eos);
}

/* Frames whose histogram is `hist` (pixel order does not matter to Otsu). */
static cv::Mat
frame_of (const std::vector<uint32_t> & hist, int width)
{
  uint64_t n = 0;
  for (uint32_t h : hist)
    n += h;
  const int rows = (int) ((n + width - 1) / width);
  cv::Mat m (rows, width, CV_8UC1);
  uint8_t *p = m.data;
  for (int v = 0; v < 256; v++)
    for (uint32_t i = 0; i < hist[v]; i++)
      *p++ = (uint8_t) v;
  /* pad to a full rectangle with the last value and count it */
  while (p < m.data + m.total ())
    *p++ = 255;
  return m;
}

static std::vector<uint32_t>
histogram (const cv::Mat & m)
{
  std::vector<uint32_t> h (256, 0);
  for (int y = 0; y < m.rows; y++)
    for (int x = 0; x < m.cols; x++)
      h[m.at<uint8_t> (y, x)]++;
  return h;
}

/* The search the GPU runs, on the host: fast path and exact recurrence
 * both give OpenCV's threshold, on the images, random frames and
 * histograms made to be hard (gaps next to the optimum, near-ties, one
 * outlier pixel, more than 2^23 pixels so that OpenCV skips leading bins). */
TEST (OtsuCpu, DeviceSearchMatchesOpenCVOnTheHost)
{
  std::vector<cv::Mat> frames;
  for (const auto & path : test_images ())
    frames.push_back (to_gray (load_rgb (path)));
  for (int i = 0; i < 40; i++)
    frames.push_back (random_mat (13 + 17 * i, 7 + 11 * i, CV_8UC1, 1000 + i));
  cv::RNG rng (42);
  for (int i = 0; i < 400; i++) {
    std::vector<uint32_t> h (256, 0);
    const int kind = i % 5;
    const int bins = 1 + rng.uniform (0, 12);
    for (int b = 0; b < bins; b++) {
      const int v = kind == 0 ? rng.uniform (0, 256) : (rng.uniform (0, 32) * 8);  /* gaps */
      h[v] += kind == 1 ? 1 + rng.uniform (0, 3) : kind == 2 ? 1000 : 1 + rng.uniform (0, 5000);
    }
    if (kind == 3)
      h[rng.uniform (0, 256)] += 1;  /* an outlier */
    frames.push_back (frame_of (h, 1 + rng.uniform (0, 97)));
  }
  /* symmetric two-level frames: exact ties between thresholds */
  for (int a = 0; a < 250; a += 37) {
    std::vector<uint32_t> h (256, 0);
    h[a] = 500;
    h[a + 5] = 500;
    frames.push_back (frame_of (h, 50));
  }
  /* more than 2^23 pixels: OpenCV skips bins while q1 < FLT_EPSILON */
  {
    std::vector<uint32_t> h (256, 0);
    h[2] = 1;  /* skipped: its moment never enters OpenCV's mu1 */
    h[3] = 1;
    h[40] = 9000000;
    h[41] = 1;
    h[200] = 3000000;
    h[201] = 77;
    frames.push_back (frame_of (h, 4096));
    h[2] = 0;
    h[3] = 2;
    h[90] = 5;
    frames.push_back (frame_of (h, 4000));
  }

  int exact_used = 0;
  for (size_t i = 0; i < frames.size (); i++) {
    const cv::Mat & f = frames[i];
    cv::Mat unused;
    const int t = (int) opencv_otsu (f, unused, false);
    const std::vector<uint32_t> h = histogram (f);
    bool used = false;
    EXPECT_EQ (cudavision::otsu_threshold_host (h.data (), false, &used), t) << "frame " << i << " " << size_str (f);
    EXPECT_EQ (cudavision::otsu_threshold_host (h.data (), true, nullptr), t) << "frame " << i << " (exact)";
    exact_used += used;
  }
  /* both paths were exercised */
  EXPECT_GT (exact_used, 10);
  EXPECT_LT (exact_used, (int) frames.size () - 10);
}
