/* cudablur and cudaotsu on the GPU: against OpenCV for every bundled image,
 * sizes from 1x1 to 3840x2160 and every block-sizing mode (the pixels must
 * not depend on the launch shape); the cuda/ API directly for the fused
 * and two-pass blurs (identical, every radius class, aligned and unaligned
 * buffers) and for both Otsu search paths; device chains. NV12 and I420:
 * blurred plane by plane (every plane cv::GaussianBlur's of that plane),
 * their luma binarized, to system memory, device frames and nvcodec's
 * memory:CUDAMemory; every 4-byte RGB layout.
 * Skips (exit 77) without a CUDA device. */
#include "../common/harness.h"
#include "../common/otsu_util.h"
#include "../common/video_frames.h"

#include "../../cuda/blur/blur.h"
#include "../../cuda/common/cuda_raii.h"
#include "../../cuda/common/device_info.h"
#include "../../core/policy/launch_policy.h"
#include "../../cuda/otsu/otsu.h"
#include "../../core/policy/tuning_table.h"
#include "gstcvmemory.h"
#include "gstcvotsumeta.h"

#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudamemory.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace cvtest;

struct BlurCase {
  double sigma;
  int ksize;
  double sigma_y;
};

static const BlurCase kBlurCases[] = { { 1.5, 0, 0 }, { 0.8, 3, 0 }, { 1.0, 7, 3.0 }, { 3.0, 31, 0.6 } };

static std::string
blur_element (const BlurCase & c, const char *mode)
{
  char buf[256];
  std::snprintf (buf, sizeof (buf), "cudablur backend=cuda sigma=%.17g kernel-size=%d sigma-y=%.17g %s", c.sigma,
      c.ksize, c.sigma_y, mode);
  return buf;
}

static cv::Mat
opencv_blur (const cv::Mat & in, int kx, int ky, double sx, double sy)
{
  cv::Mat out;
  cv::GaussianBlur (in, out, cv::Size (kx, ky), sx, sy, cv::BORDER_REFLECT_101);
  return out;
}

static void
check_blur (const std::string & element, const cv::Mat & in, const BlurCase & c, const std::string & what)
{
  const cv::Mat out = through (element, in);
  ASSERT_FALSE (out.empty ()) << what << " " << element;
  const Diff d = compare (out, opencv_blur (in, c.ksize, c.ksize, c.sigma, c.sigma_y));
  /* The target is max |diff| <= 1; the kernels are designed bit-exact. */
  EXPECT_LE (d.max_abs, 1) << what << " " << size_str (in) << " " << element;
  EXPECT_EQ (d.differing, 0) << what << " " << size_str (in) << " " << element << " max " << d.max_abs;
}

/* Device images for the cuda/ API. */
struct DevImage {
  uint8_t *base = nullptr;
  uint8_t *data = nullptr;
  size_t pitch = 0;
  int w = 0, h = 0, c = 1;

  /* offset > 0 misaligns rows (pitch odd too), forcing the scalar paths. */
  DevImage (int w_, int h_, int c_, int offset = 0) : w (w_), h (h_), c (c_) {
    if (offset == 0) {
      EXPECT_EQ (cudaMallocPitch ((void **) &base, &pitch, (size_t) w * c, h), cudaSuccess);
      data = base;
    } else {
      pitch = (size_t) w * c + 3;
      EXPECT_EQ (cudaMalloc ((void **) &base, pitch * h + offset), cudaSuccess);
      data = base + offset;
    }
  }
  ~DevImage () { cudaFree (base); }
  DevImage (const DevImage &) = delete;
  DevImage & operator= (const DevImage &) = delete;

  void upload (const cv::Mat & m) {
    ASSERT_EQ (cudaMemcpy2D (data, pitch, m.data, m.step, (size_t) w * c, h, cudaMemcpyHostToDevice), cudaSuccess);
    /* pageable copies may return before the DMA lands; the tests' streams
     * do not wait for the legacy default stream */
    ASSERT_EQ (cudaStreamSynchronize (0), cudaSuccess);
  }
  cv::Mat download () const {
    cv::Mat m (h, w, CV_8UC (c));
    EXPECT_EQ (cudaMemcpy2D (m.data, m.step, data, pitch, (size_t) w * c, h, cudaMemcpyDeviceToHost), cudaSuccess);
    return m;
  }
  cudavision::ConstImage8 cview () const { return { data, pitch, w, h }; }
  cudavision::Image8 view () { return { data, pitch, w, h }; }
};

struct NamedPolicy {
  std::string name;
  std::unique_ptr<cudavision::LaunchPolicy> policy;
};

/* Every mode, and static shapes that stress the tiling: one 1024-wide
 * row, narrow and odd widths. */
static std::vector<NamedPolicy>
policies ()
{
  cudavision::DeviceDescription dev;
  EXPECT_TRUE (cudavision::query_current_device (&dev).ok ());
  using cudavision::BlockSizing;
  using cudavision::LaunchPolicy;
  std::vector<NamedPolicy> out;
  out.push_back ({ "static", std::make_unique<LaunchPolicy> (dev, BlockSizing::Static) });
  for (auto s : { cudavision::BlockShape { 1024, 1 }, cudavision::BlockShape { 64, 2 },
           cudavision::BlockShape { 7, 3 }, cudavision::BlockShape { 32, 32 } })
    out.push_back ({ "static " + s.str (), std::make_unique<LaunchPolicy> (dev, BlockSizing::Static, s) });
  out.push_back ({ "empirical-table (empty)", std::make_unique<LaunchPolicy> (dev, BlockSizing::EmpiricalTable,
                                                  cudavision::BlockShape {},
                                                  std::make_shared<cudavision::TuningTable> ()) });
  out.push_back ({ "model", std::make_unique<LaunchPolicy> (dev, BlockSizing::Model) });
  return out;
}

/* ------------------------------------------------------------ blur */

/* Every mode with the default and the largest kernel; the other cases in
 * the static mode (the cuda/ API test below covers every radius class with
 * every mode). */
static void
check_blur_modes (const cv::Mat & in, const std::string & what)
{
  for (size_t i = 0; i < sizeof (kBlurCases) / sizeof (kBlurCases[0]); i++) {
    const BlurCase & c = kBlurCases[i];
    const bool all_modes = i == 0 || i == 3;
    for (const char *mode : kBlockSizingModes) {
      check_blur (blur_element (c, mode), in, c, what);
      if (!all_modes)
        break;
    }
  }
}

TEST (BlurGpu, BundledImagesEveryMode)
{
  for (const auto & path : test_images ()) {
    const cv::Mat rgb = load_rgb (path);
    check_blur_modes (to_gray (rgb), path);
    check_blur_modes (to_rgba (rgb, 5), path);
  }
}

TEST (BlurGpu, SizesFrom1x1To4K)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 641, 479 }, { 1920, 1080 }, { 3840, 2160 } };
  for (const auto & s : sizes)
    for (int type : { CV_8UC1, CV_8UC4 })
      check_blur_modes (random_mat (s[0], s[1], type, s[0] * 17 + s[1] + type), "random");
}

/* Device frames out: the element's output stays on the GPU until mapped. */
TEST (BlurGpu, DeviceMemoryOut)
{
  const cv::Mat in = to_rgba (load_rgb (data_path ("astronaut.png")), 1);
  const cv::Mat out = through ("cudablur backend=cuda sigma=2", in, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  ASSERT_FALSE (out.empty ());
  EXPECT_EQ (compare (out, opencv_blur (in, 13, 13, 2, 2)).differing, 0);
}

/* The implementations give the same pixels, and OpenCV's, for every
 * radius class, channel count, launch shape and alignment (Direct runs on
 * GRAY8 up to radius 4 with aligned rows, and is Fused elsewhere). Widths
 * that are multiples of 16 take the direct kernel's aligned form: one
 * lane (16 x 5), a segment's end lanes past the frame (48 x 37), a frame
 * of two bands of segments, one partial (304 x 77), and 4K. */
TEST (BlurGpu, FusedAndTwoPassIdenticalEveryRadius)
{
  const auto pols = policies ();
  cudavision::Stream stream;
  ASSERT_TRUE (stream.create ().ok ());
  cudavision::DeviceBuffer scratch;
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 37, 23 }, { 16, 5 }, { 48, 37 }, { 304, 77 }, { 641, 479 },
    { 1920, 1080 }, { 3840, 2160 } };
  int runs = 0;
  for (const auto & s : sizes) {
    /* under compute-sanitizer the 1080p and 4K frames add launches, not kernels */
    if (sanitizer_pass () && s[0] >= 1920)
      continue;
    for (int c : { 1, 4 }) {
      if (s[0] >= 3840 && c != 1) /* 4K RGBA: SizesFrom1x1To4K, through the element */
        continue;
      const cv::Mat in = random_mat (s[0], s[1], CV_8UC (c), s[0] + 7 * s[1] + c);
      for (int offset : { 0, 1 }) {
        DevImage src (s[0], s[1], c, offset), fused (s[0], s[1], c, offset), two (s[0], s[1], c),
            direct (s[0], s[1], c, offset);
        src.upload (in);
        for (int k = 1; k <= 31; k += 2) {
          const int ky = k == 1 ? 3 : (k % 4 == 1 ? k : k - 2);  /* different vertical sizes too */
          const double sx = 0.3 + 0.2 * k, sy = 0.25 + 0.15 * ky;
          const cudavision::BlurTaps taps = cudavision::make_blur_taps (k, ky, sx, sy);
          const cv::Mat expected = opencv_blur (in, k, ky, sx, sy);
          for (const auto & p : pols) {
            /* every policy on the small sizes; two on the large ones */
            if (s[0] >= 641 && p.name != "static" && p.name != "model")
              continue;
            const std::string what = size_str (in) + " k " + std::to_string (k) + "x" + std::to_string (ky) + " " +
                p.name + (offset ? " unaligned" : "");
            ASSERT_TRUE (cudavision::gaussian_blur (src.cview (), fused.view (), c, taps, *p.policy, stream.get (),
                nullptr, cudavision::BlurVariant::Fused).ok ()) << what;
            ASSERT_TRUE (cudavision::gaussian_blur (src.cview (), two.view (), c, taps, *p.policy, stream.get (),
                &scratch, cudavision::BlurVariant::TwoPass).ok ()) << what;
            ASSERT_TRUE (cudavision::gaussian_blur (src.cview (), direct.view (), c, taps, *p.policy, stream.get (),
                nullptr, cudavision::BlurVariant::Direct).ok ()) << what;
            ASSERT_TRUE (stream.synchronize ().ok ()) << what;
            const cv::Mat a = fused.download (), b = two.download ();
            EXPECT_EQ (compare (a, b).differing, 0) << what << ": fused and two-pass differ";
            EXPECT_EQ (compare (a, direct.download ()).differing, 0) << what << ": fused and direct differ";
            const Diff d = compare (a, expected);
            EXPECT_LE (d.max_abs, 1) << what;
            EXPECT_EQ (d.differing, 0) << what << " max " << d.max_abs;
            runs++;
          }
        }
      }
    }
  }
  EXPECT_GT (runs, 1000);
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
}

/* The direct kernel's streaming form (3x3 and 5x5 GRAY8) on the widths that
 * take each of its row sources: multiples of 16 read through the
 * shared-memory ring, the others through registers, with runs that end
 * mid-frame and frames of few rows. Few launches, so compute-sanitizer's
 * racecheck finishes it (FusedAndTwoPassIdenticalEveryRadius sweeps every
 * radius and takes minutes under racecheck). */
TEST (BlurGpu, DirectStreamingEqualsOpenCV)
{
  cudavision::Stream stream;
  ASSERT_TRUE (stream.create ().ok ());
  const auto pols = policies ();
  const int sizes[][2] = { { 16, 3 }, { 16, 5 }, { 37, 23 }, { 48, 37 }, { 304, 77 }, { 641, 479 }, { 1280, 720 },
    { 1922, 97 } };
  int runs = 0;
  for (const auto & s : sizes) {
    const cv::Mat in = random_mat (s[0], s[1], CV_8UC1, 11 * s[0] + s[1]);
    for (int offset : { 0, 1 }) {
      DevImage src (s[0], s[1], 1, offset), direct (s[0], s[1], 1, offset);
      src.upload (in);
      for (int k : { 3, 5 }) {
        for (double sigma : { 0.5, 0.8, 1.7 }) {
          const cudavision::BlurTaps taps = cudavision::make_blur_taps (k, k, sigma, sigma);
          const std::string what = size_str (in) + " k " + std::to_string (k) + " sigma " + std::to_string (sigma) +
              (offset ? " unaligned" : "");
          ASSERT_TRUE (cudavision::gaussian_blur (src.cview (), direct.view (), 1, taps, *pols.front ().policy,
              stream.get (), nullptr, cudavision::BlurVariant::Direct).ok ()) << what;
          ASSERT_TRUE (stream.synchronize ().ok ()) << what;
          const Diff d = compare (direct.download (), opencv_blur (in, k, k, sigma, sigma));
          EXPECT_EQ (d.differing, 0) << what << " max " << d.max_abs;
          runs++;
        }
      }
    }
  }
  EXPECT_EQ (runs, 96);
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
}

/* Our chain on device frames equals the same chain on the CPU backend. */
TEST (BlurGpu, DeviceChainEqualsCpuChain)
{
  const std::string src = "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=RGBA,width=643,height=481 ! ";
  const std::string tail = " ! video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  auto gpu = pull_all (src + "cudagray backend=cuda ! cudablur backend=cuda sigma=2.2 ! cudaotsu backend=cuda" + tail);
  auto cpu = pull_all (src + "cudagray backend=cpu ! cudablur backend=cpu sigma=2.2 ! cudaotsu backend=cpu" + tail);
  ASSERT_EQ (gpu.size (), 4u);
  ASSERT_EQ (cpu.size (), 4u);
  for (size_t i = 0; i < gpu.size (); i++)
    EXPECT_EQ (compare (gpu[i], cpu[i]).differing, 0) << "frame " << i;
}

/* ------------------------------------------------- blur: YUV, packed RGB */

/* Every plane of a frame of `format` (Y, then NV12's UV as 2 channels or
 * I420's U and V; packed formats: one plane), mapped on the host where the
 * buffer's video meta says, copied. */
static std::vector<cv::Mat>
frame_planes (GstBuffer * buf, GstVideoFormat format, int w, int h)
{
  GstCaps *caps = gst_caps_from_string (caps_string (format, w, h).c_str ());
  std::vector<cv::Mat> planes = buffer_planes (buf, caps);
  gst_caps_unref (caps);
  return planes;
}

/* One frame of `format` (rgb_to_buffer's, rows padded by `pad` bytes when
 * > 0) through `element`, the same format out in `out_feature` memory
 * (nullptr: system): every plane is cv::GaussianBlur of the same plane of
 * the input, byte for byte. */
static void
check_blur_planes (const std::string & element, const BlurCase & c, const cv::Mat & rgb, GstVideoFormat format,
    int pad, const char *out_feature, const std::string & what)
{
  const int w = rgb.cols, h = rgb.rows;
  GstBuffer *in = rgb_to_buffer (rgb, format);
  if (pad > 0)
    in = with_row_padding (in, format, w, h, pad);
  const std::vector<cv::Mat> src = frame_planes (in, format, w, h);
  const std::string where = what + " " + gst_video_format_to_string (format) +
      (pad ? " pad " + std::to_string (pad) : "") +
      (out_feature ? std::string (" ") + out_feature + " out" : "") + " " + element;
  GstBuffer *out = run_harness (element, caps_string (format, w, h), caps_string (format, w, h, out_feature), in);
  ASSERT_NE (out, nullptr) << where;
  const std::vector<cv::Mat> got = frame_planes (out, format, w, h);
  gst_buffer_unref (out);
  ASSERT_EQ (got.size (), src.size ()) << where;
  for (size_t p = 0; p < got.size (); p++) {
    const Diff d = compare (got[p], opencv_blur (src[p], c.ksize, c.ksize, c.sigma, c.sigma_y));
    EXPECT_EQ (d.differing, 0) << where << ", plane " << p << " (" << size_str (src[p]) << ") max " << d.max_abs;
  }
}

/* Colour photographs (sudoku: odd height, chroma rows round up), one fitted
 * to 321x239 (chroma 161x120) and noise of that size: every mode with the
 * default and the largest kernel, the other cases in the static mode.
 * NV12's chroma takes its own launches (split, two 1-channel blurs,
 * merge), each sized by the mode. */
TEST (BlurGpu, Nv12AndI420EveryMode)
{
  std::vector<std::pair<std::string, cv::Mat>> frames;
  for (const char *name : { "astronaut.png", "building.jpg", "sudoku.png" })
    frames.emplace_back (name, load_rgb (data_path (name)));
  frames.emplace_back ("building.jpg at 321x239", fit_picture (frames[1].second, { 321, 239 }));
  frames.emplace_back ("noise 321x239", random_rgb (321, 239, 11));
  int runs = 0;
  for (const auto & [what, rgb] : frames) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      for (size_t i = 0; i < sizeof (kBlurCases) / sizeof (kBlurCases[0]); i++) {
        const BlurCase & c = kBlurCases[i];
        for (const char *mode : kBlockSizingModes) {
          check_blur_planes (blur_element (c, mode), c, rgb, f, 0, nullptr, what);
          runs++;
          if (i != 0 && i != 3)
            break;
        }
      }
    }
  }
  EXPECT_EQ (runs, 5 * 2 * (2 * 7 + 2));
}

/* HD and 4K frames, whose planes take the other kernels: a 5x5 blur of a
 * 1-channel plane of 1080p and more is the direct kernel (the luma of both,
 * and 4K's chroma planes after the split), the default kernel the fused
 * one; an odd size too. */
TEST (BlurGpu, Nv12AndI420LargeFrames)
{
  const BlurCase five { 1.1, 5, 0 };
  const cv::Mat photo = fit_picture (load_rgb (data_path ("building.jpg")), { 1920, 1080 });
  const int sizes[][2] = { { 1920, 1080 }, { 1921, 1081 }, { 3840, 2160 } };
  for (const auto & s : sizes) {
    /* under compute-sanitizer the 4K frame adds launches, not kernels */
    if (sanitizer_pass () && s[0] >= 3840)
      continue;
    const cv::Mat noise = random_rgb (s[0], s[1], s[0] + s[1]);
    const std::string what = "noise " + std::to_string (s[0]) + "x" + std::to_string (s[1]);
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      for (const char *mode : { kBlockSizingModes[0], kBlockSizingModes[5], kBlockSizingModes[6] })
        check_blur_planes (blur_element (five, mode), five, noise, f, 0, nullptr, what);
      check_blur_planes (blur_element (kBlurCases[0], kBlockSizingModes[0]), kBlurCases[0], noise, f, 0, nullptr, what);
    }
  }
  for (const char *mode : kBlockSizingModes)
    check_blur_planes (blur_element (five, mode), five, photo, GST_VIDEO_FORMAT_NV12, 0, nullptr,
        "building.jpg at 1920x1080");
}

/* Producers with odd row pitches: every plane padded (NV12's UV rows then
 * start at odd addresses on the host), uploaded into the element's frames. */
TEST (BlurGpu, Nv12AndI420PaddedRows)
{
  const cv::Mat photo = fit_picture (load_rgb (data_path ("astronaut.png")), { 321, 239 });
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 })
    for (int pad : { 1, 7, 64 })
      for (const BlurCase & c : kBlurCases)
        check_blur_planes (blur_element (c, kBlockSizingModes[0]), c, photo, f, pad, nullptr,
            "astronaut.png at 321x239");
}

/* Device frames out (memory:CudaVisionMemory), mapped on the host by the
 * test: NV12 in every mode, I420 in the static one. */
TEST (BlurGpu, Nv12AndI420DeviceMemoryOut)
{
  const cv::Mat photo = load_rgb (data_path ("sudoku.png"));
  const cv::Mat small = fit_picture (photo, { 321, 239 });
  for (const char *mode : kBlockSizingModes) {
    check_blur_planes (blur_element (kBlurCases[0], mode), kBlurCases[0], photo, GST_VIDEO_FORMAT_NV12, 0,
        GST_CAPS_FEATURE_MEMORY_CUDAVISION, "sudoku.png");
    check_blur_planes (blur_element (kBlurCases[3], mode), kBlurCases[3], small, GST_VIDEO_FORMAT_NV12, 7,
        GST_CAPS_FEATURE_MEMORY_CUDAVISION, "sudoku.png at 321x239");
  }
  for (const BlurCase & c : kBlurCases)
    check_blur_planes (blur_element (c, kBlockSizingModes[0]), c, small, GST_VIDEO_FORMAT_I420, 0,
        GST_CAPS_FEATURE_MEMORY_CUDAVISION, "sudoku.png at 321x239");
}

/* Every 4-byte RGB layout (noise in the x / A byte, blurred like the
 * colours), as cv::GaussianBlur blurs the 4-channel image; ARGB and xBGR
 * to device frames too. */
TEST (BlurGpu, EveryFourByteLayout)
{
  const cv::Mat photo = load_rgb (data_path ("building.jpg"));
  const cv::Mat noise = random_rgb (321, 239, 12);
  for (GstVideoFormat f : kFourByteRgbFormats) {
    for (const BlurCase & c : kBlurCases) {
      check_blur_planes (blur_element (c, kBlockSizingModes[0]), c, photo, f, 0, nullptr, "building.jpg");
      check_blur_planes (blur_element (c, kBlockSizingModes[5]), c, noise, f, 5, nullptr, "noise 321x239");
    }
  }
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_xBGR })
    for (const char *mode : kBlockSizingModes)
      check_blur_planes (blur_element (kBlurCases[0], mode), kBlurCases[0], photo, f, 0,
          GST_CAPS_FEATURE_MEMORY_CUDAVISION, "building.jpg");
}

/* What an appsink named "out" received, frame by frame. */
struct PulledFrame {
  std::vector<cv::Mat> planes;  /* mapped on the host */
  bool cuda_memory = false;     /* every memory a GstCudaMemory */
  bool cuda_caps = false;       /* caps with memory:CUDAMemory */
};

static std::vector<PulledFrame>
pull_planes (const std::string & description)
{
  std::vector<PulledFrame> out;
  GError *err = nullptr;
  GstElement *pipe = gst_parse_launch (description.c_str (), &err);
  if (err) {
    ADD_FAILURE () << "cannot build " << description << ": " << err->message;
    g_clear_error (&err);
  }
  if (!pipe)
    return out;
  if (shared_context ())
    gst_element_set_context (pipe, shared_context ());
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND)) {
    PulledFrame f;
    GstBuffer *b = gst_sample_get_buffer (s);
    GstCaps *caps = gst_sample_get_caps (s);
    f.cuda_memory = gst_buffer_n_memory (b) > 0;
    for (guint i = 0; i < gst_buffer_n_memory (b); i++)
      f.cuda_memory = f.cuda_memory && gst_is_cuda_memory (gst_buffer_peek_memory (b, i));
    f.cuda_caps = gst_caps_features_contains (gst_caps_get_features (caps, 0), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    f.planes = buffer_planes (b, caps);
    out.push_back (f);
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

/* `frames` NV12 frames from each backend, and the GPU's Y and UV planes
 * the CPU's, frame for frame. */
static void
expect_nv12_frames_equal (const std::vector<PulledFrame> & gpu, const std::vector<PulledFrame> & cpu, size_t frames)
{
  ASSERT_EQ (gpu.size (), frames);
  ASSERT_EQ (cpu.size (), frames);
  for (size_t i = 0; i < gpu.size (); i++) {
    ASSERT_EQ (gpu[i].planes.size (), 2u);
    for (size_t p = 0; p < 2; p++)
      EXPECT_EQ (compare (gpu[i].planes[p], cpu[i].planes[p]).differing, 0) << "frame " << i << " plane " << p;
  }
}

/* nvcodec's memory:CUDAMemory out: appsink's buffers hold GstCudaMemory,
 * and their planes mapped on the host are the CPU backend's, which are
 * cv::GaussianBlur's of the input planes. */
TEST (BlurGpu, CudaMemoryOutNv12AndI420)
{
  for (const char *f : { "NV12", "I420" }) {
    for (const char *size : { "width=321,height=239", "width=1920,height=1080" }) {
      const std::string head = "filesrc location=" + data_path ("building.jpg") +
          " ! jpegdec ! videoconvert ! videoscale ! video/x-raw," + size + " ! imagefreeze num-buffers=2 ! "
          "videoconvert ! video/x-raw,format=" + f + " ! ";
      const std::string what = std::string (f) + " " + size;
      const auto in = pull_planes (head + "appsink name=out sync=false");
      const auto cpu = pull_planes (head + "cudablur backend=cpu sigma=1.5 ! appsink name=out sync=false");
      const auto gpu = pull_planes (head + "cudablur backend=cuda sigma=1.5 ! video/x-raw(memory:CUDAMemory),format=" +
          f + " ! appsink name=out sync=false");
      ASSERT_EQ (in.size (), 2u) << what;
      ASSERT_EQ (cpu.size (), 2u) << what;
      if (gpu.empty () && std::string (f) == "I420" && std::string (size).find ("height=239") != std::string::npos) {
        /* GStreamer 1.22's GstCudaMemory overlaps the U and V planes of
         * odd-height I420: such caps are refused rather than garbled;
         * without the filter the element takes another memory */
        std::printf ("%s: memory:CUDAMemory refused (overlapping planes in this GStreamer)\n", what.c_str ());
        const auto other = pull_planes (head + "cudablur backend=cuda sigma=1.5 ! appsink name=out sync=false");
        ASSERT_EQ (other.size (), 2u) << what;
        for (size_t i = 0; i < other.size (); i++)
          for (size_t p = 0; p < other[i].planes.size (); p++)
            EXPECT_EQ (compare (other[i].planes[p], cpu[i].planes[p]).differing, 0) << what << " plane " << p;
        continue;
      }
      ASSERT_EQ (gpu.size (), 2u) << what << ": memory:CUDAMemory did not negotiate";
      for (size_t i = 0; i < gpu.size (); i++) {
        EXPECT_TRUE (gpu[i].cuda_caps) << what << " frame " << i;
        EXPECT_TRUE (gpu[i].cuda_memory) << what << " frame " << i << ": not GstCudaMemory";
        EXPECT_FALSE (cpu[i].cuda_memory) << what;
        ASSERT_EQ (gpu[i].planes.size (), in[i].planes.size ()) << what;
        ASSERT_EQ (cpu[i].planes.size (), in[i].planes.size ()) << what;
        for (size_t p = 0; p < gpu[i].planes.size (); p++) {
          EXPECT_EQ (compare (gpu[i].planes[p], cpu[i].planes[p]).differing, 0)
              << what << " frame " << i << " plane " << p;
          EXPECT_EQ (compare (gpu[i].planes[p], opencv_blur (in[i].planes[p], 11, 11, 1.5, 1.5)).differing, 0)
              << what << " frame " << i << " plane " << p;
        }
      }
    }
  }
}

/* nvcodec's elements on either side, where installed: CUDAMemory in from
 * cudaupload, read in place, CUDAMemory out to cudadownload. */
TEST (BlurGpu, Nv12BetweenCudauploadAndCudadownload)
{
  for (const char *name : { "cudaupload", "cudadownload" }) {
    if (!have_element (name))
      GTEST_SKIP () << "nvcodec's " << name << " is not available";
  }
  const std::string head = "videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=NV12,width=642,height=481 ! ";
  const auto gpu = pull_planes (head + "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudablur backend=cuda sigma=2 ! "
                                       "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw,format=NV12 ! "
                                       "appsink name=out sync=false");
  const auto cpu = pull_planes (head + "cudablur backend=cpu sigma=2 ! appsink name=out sync=false");
  ASSERT_NO_FATAL_FAILURE (expect_nv12_frames_equal (gpu, cpu, 3));
}

/* NV12 on device frames between our elements: two blurs, then the Otsu
 * binarization of the luma, equal to the same chain on the CPU backend. */
TEST (BlurGpu, Nv12DeviceChainEqualsCpuChain)
{
  const std::string src = "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=NV12,width=643,height=481 ! ";
  const std::string chain = "cudablur backend=%s sigma=1.2 ! cudablur backend=%s kernel-size=5 sigma=2 sigma-y=0.7";
  auto with = [&] (const char *b, const std::string & tail) { return src + with_backend (chain, b) + tail; };
  const std::string nv12 = " ! video/x-raw,format=NV12 ! appsink name=out sync=false";
  const auto gpu = pull_planes (with ("cuda", nv12)), cpu = pull_planes (with ("cpu", nv12));
  ASSERT_NO_FATAL_FAILURE (expect_nv12_frames_equal (gpu, cpu, 4));
  const std::string otsu = " ! cudaotsu backend=%s ! video/x-raw,format=GRAY8 ! appsink name=out sync=false";
  auto with_otsu = [&] (const char *b) { return with (b, with_backend (otsu, b)); };
  const auto gpu_bin = pull_all (with_otsu ("cuda")), cpu_bin = pull_all (with_otsu ("cpu"));
  ASSERT_EQ (gpu_bin.size (), 4u);
  ASSERT_EQ (cpu_bin.size (), 4u);
  for (size_t i = 0; i < gpu_bin.size (); i++) {
    EXPECT_EQ (compare (gpu_bin[i], cpu_bin[i]).differing, 0) << "frame " << i << " (binarized)";
    EXPECT_GT (cv::countNonZero (gpu_bin[i]), 0) << "frame " << i;
  }
}

/* ------------------------------------------------------------ otsu */

/* cudaotsu on the GPU in block-sizing `mode`. */
static std::string
otsu_element (const char *mode)
{
  return std::string ("cudaotsu backend=cuda ") + mode;
}

TEST (OtsuGpu, BundledImagesEveryMode)
{
  for (const auto & path : test_images ()) {
    const cv::Mat g = to_gray (load_rgb (path));
    for (const char *mode : kBlockSizingModes)
      check_otsu (otsu_element (mode), g, path);
  }
}

TEST (OtsuGpu, SizesFrom1x1To4K)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 641, 479 }, { 1920, 1080 }, { 3840, 2160 } };
  for (const auto & s : sizes) {
    const cv::Mat in = random_mat (s[0], s[1], CV_8UC1, s[0] * 3 + s[1]);
    /* a smooth, bimodal-ish frame too: random noise has a flat histogram */
    cv::Mat smooth;
    cv::GaussianBlur (in, smooth, cv::Size (0, 0), 5);
    const std::string what = std::to_string (s[0]) + "x" + std::to_string (s[1]);
    for (const char *mode : kBlockSizingModes)
      check_otsu (otsu_element (mode), in, what);
    check_otsu (otsu_element (kBlockSizingModes[0]), smooth, what + " smooth");
    check_otsu (otsu_element (kBlockSizingModes[4]), smooth, what + " smooth");
  }
  check_otsu (otsu_element (""), cv::Mat (37, 23, CV_8UC1, cv::Scalar (128)), "constant");
}

/* sudoku (558x563: chroma rows round up) and coins (384x303) in every
 * mode; at 321x239 with rows padded by an odd number of bytes; device
 * frames out. The luma plane is read where it lies. */
TEST (OtsuGpu, Nv12AndI420LumaEveryMode)
{
  for (const char *name : { "sudoku.png", "coins.png" }) {
    const cv::Mat rgb = load_rgb (data_path (name));
    const cv::Mat small = fit_picture (rgb, { 321, 239 });
    const std::string small_what = std::string (name) + " at 321x239";
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
      for (const char *mode : kBlockSizingModes)
        check_otsu_yuv (otsu_element (mode), rgb, f, 0, name);
      check_otsu_yuv (otsu_element (kBlockSizingModes[0]), small, f, 7, small_what);
      check_otsu_yuv (otsu_element (kBlockSizingModes[5]), rgb, f, 0, name, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
      check_otsu_yuv (otsu_element (kBlockSizingModes[0]), small, f, 1, small_what, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
    }
  }
  /* a 4K decoder frame */
  const cv::Mat big = fit_picture (load_rgb (data_path ("sudoku.png")), { 3840, 2160 });
  check_otsu_yuv (otsu_element (kBlockSizingModes[0]), big, GST_VIDEO_FORMAT_NV12, 0, "sudoku.png at 3840x2160");
  check_otsu_yuv (otsu_element (kBlockSizingModes[6]), big, GST_VIDEO_FORMAT_NV12, 0, "sudoku.png at 3840x2160",
      GST_CAPS_FEATURE_MEMORY_CUDAVISION);
}

/* Several frames through one element: the device histogram is cleaned by
 * the kernel itself, so each frame's threshold is its own. */
TEST (OtsuGpu, ConsecutiveFramesAreIndependent)
{
  std::vector<cv::Mat> frames;
  for (const auto & path : test_images ()) {
    cv::Mat g = to_gray (load_rgb (path));
    cv::resize (g, g, cv::Size (320, 240));
    frames.push_back (g);
  }
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, 320, 240);
  GstHarness *h = gst_harness_new_parse ("cudaotsu backend=cuda attach-meta=true");
  gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < frames.size (); i++) {
      GstBuffer *out = gst_harness_push_and_pull (h, mat_to_buffer (frames[i], GST_VIDEO_FORMAT_GRAY8));
      ASSERT_NE (out, nullptr);
      cv::Mat expected;
      const int t = opencv_otsu (frames[i], expected, false);
      GstCvOtsuMeta *m = gst_buffer_get_cv_otsu_meta (out);
      ASSERT_NE (m, nullptr);
      EXPECT_EQ ((int) m->threshold, t) << "frame " << i << " round " << round;
      GstCaps *c = gst_caps_from_string (caps.c_str ());
      EXPECT_EQ (compare (buffer_to_mat (out, c), expected).differing, 0) << "frame " << i;
      gst_caps_unref (c);
      gst_buffer_unref (out);
    }
  }
  gst_harness_teardown (h);
}

TEST (OtsuGpu, MessagesAndDeviceOutput)
{
  const cv::Mat in = to_gray (load_rgb (data_path ("coins.png")));
  cv::Mat expected;
  const int t = opencv_otsu (in, expected, false);
  int meta = -2;
  const cv::Mat out = otsu_through ("cudaotsu backend=cuda", in, &meta, GST_CAPS_FEATURE_MEMORY_CUDAVISION);
  EXPECT_EQ (compare (out, expected).differing, 0);
  EXPECT_EQ (meta, t);

  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, in.cols, in.rows);
  GstHarness *h = gst_harness_new_parse ("cudaotsu backend=cuda post-messages=true attach-meta=false");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
  GstBuffer *buf = mat_to_buffer (in, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_PTS (buf) = 2 * GST_SECOND;
  GstBuffer *o = gst_harness_push_and_pull (h, buf);
  ASSERT_NE (o, nullptr);
  EXPECT_EQ (gst_buffer_get_cv_otsu_meta (o), nullptr);
  gst_buffer_unref (o);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  ASSERT_NE (m, nullptr);
  guint thr = 999;
  guint64 ts = 0;
  EXPECT_TRUE (gst_structure_get_uint (gst_message_get_structure (m), "threshold", &thr));
  EXPECT_TRUE (gst_structure_get_uint64 (gst_message_get_structure (m), "timestamp", &ts));
  EXPECT_EQ ((int) thr, t);
  EXPECT_EQ (ts, 2 * GST_SECOND);
  gst_message_unref (m);
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static cv::Mat
frame_of (const std::vector<uint32_t> & hist, int width)
{
  uint64_t n = 0;
  for (uint32_t v : hist)
    n += v;
  const int rows = (int) ((n + width - 1) / width);
  cv::Mat m (rows, width, CV_8UC1);
  uint8_t *p = m.data;
  for (int v = 0; v < 256; v++)
    for (uint32_t i = 0; i < hist[v]; i++)
      *p++ = (uint8_t) v;
  while (p < m.data + m.total ())
    *p++ = 255;
  return m;
}

/* The cuda/ API: both search paths give OpenCV's threshold; the device
 * takes the same path as the host model; binarize reads it on the device. */
TEST (OtsuGpu, BothSearchPathsMatchOpenCV)
{
  std::vector<cv::Mat> frames;
  for (const auto & path : test_images ())
    frames.push_back (to_gray (load_rgb (path)));
  cv::RNG rng (7);
  for (int i = 0; i < 60; i++) {
    std::vector<uint32_t> h (256, 0);
    const int bins = 1 + rng.uniform (0, 10);
    for (int b = 0; b < bins; b++)
      h[i % 2 ? rng.uniform (0, 256) : rng.uniform (0, 32) * 8] += 1 + rng.uniform (0, 3000);
    frames.push_back (frame_of (h, 1 + rng.uniform (0, 300)));
  }
  {
    std::vector<uint32_t> h (256, 0);
    h[2] = 1;
    h[3] = 1;
    h[40] = 9000000;
    h[200] = 3000000;
    frames.push_back (frame_of (h, 4096));  /* > 2^23 pixels: OpenCV skips bin 2 */
  }
  const auto pols = policies ();
  cudavision::Stream stream;
  ASSERT_TRUE (stream.create ().ok ());
  cudavision::OtsuDeviceState *st = nullptr;
  ASSERT_EQ (cudaMalloc ((void **) &st, sizeof (*st)), cudaSuccess);
  ASSERT_TRUE (cudavision::otsu_state_init (st, stream.get ()).ok ());
  cudavision::OtsuResult *res = nullptr;
  ASSERT_EQ (cudaMallocHost ((void **) &res, sizeof (*res)), cudaSuccess);
  int exact_paths = 0;
  for (size_t i = 0; i < frames.size (); i++) {
    const cv::Mat & f = frames[i];
    cv::Mat expected;
    const int t = opencv_otsu (f, expected, false);
    std::vector<uint32_t> h (256, 0);
    for (int y = 0; y < f.rows; y++)
      for (int x = 0; x < f.cols; x++)
        h[f.at<uint8_t> (y, x)]++;
    bool host_exact = false;
    cudavision::otsu_threshold_host (h.data (), false, &host_exact);
    DevImage src (f.cols, f.rows, 1), dst (f.cols, f.rows, 1);
    src.upload (f);
    for (bool force : { false, true }) {
      const auto & p = pols[(i + force) % pols.size ()];
      const std::string what = "frame " + std::to_string (i) + " " + size_str (f) + (force ? " exact" : "") + " " + p.name;
      ASSERT_TRUE (cudavision::otsu_threshold (src.cview (), st, *p.policy, stream.get (), force).ok ()) << what;
      ASSERT_TRUE (cudavision::otsu_binarize (src.cview (), dst.view (), st, false, *p.policy, stream.get ()).ok ());
      ASSERT_TRUE (cudavision::otsu_copy_result (st, res, stream.get ()).ok ());
      ASSERT_TRUE (stream.synchronize ().ok ()) << what;
      EXPECT_EQ ((int) res->threshold, t) << what;
      EXPECT_EQ (res->used_exact != 0, force || host_exact) << what;
      EXPECT_EQ (compare (dst.download (), expected).differing, 0) << what;
      exact_paths += !force && res->used_exact;
    }
  }
  EXPECT_GT (exact_paths, 0);
  cudaFreeHost (res);
  cudaFree (st);
}
