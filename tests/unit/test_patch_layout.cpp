/* The deep face kernel's window patches laid out against shared-memory
 * bank conflicts (cuda/face/patch_layout.h), on the CPU:
 *  - each stage's weak classifiers are a permutation of OpenCV's, their
 *    features' values unchanged (the first two rectangles may trade
 *    places, with their weights);
 *  - the modelled wavefronts never exceed OpenCV's order, stage by stage,
 *    and on the default frontal face cascade the deep stages take at
 *    least 25% fewer;
 *  - every feature read from a patch at the corners its node holds gives
 *    OpenCV's value bit for bit, on random integral words and on images;
 *  - the deep kernel's 32-lane sums over a patch equal OpenCV's
 *    left-to-right sums, stage by stage;
 *  - the layout is the same every time; trees and patches too large for
 *    the packed corners keep OpenCV's layout and no patch pitch.
 * Built with -ffp-contract=off, as the device code uses _rn intrinsics.
 * Needs opencv-data's cascades (skipped without). */
#include "../../cuda/face/patch_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

using namespace cudavision;

namespace {

const std::string kHaarDir = "/usr/share/opencv4/haarcascades/";

/* The upright-feature stump cascades of opencv-data (alt_tree: 8000
 * weak classifiers, the largest). */
const char *kStumpCascades[] = { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt.xml",
  "haarcascade_eye.xml", "haarcascade_frontalcatface.xml", "haarcascade_profileface.xml",
  "haarcascade_frontalface_alt_tree.xml" };

bool
have_cascades ()
{
  return std::filesystem::exists (kHaarDir + "haarcascade_frontalface_default.xml");
}

HaarCascade
load (const std::string & file)
{
  HaarCascade c;
  std::string err;
  EXPECT_TRUE (load_haar_cascade (kHaarDir + file, &c, &err)) << err;
  return c;
}

/* A cascade compiled twice: in OpenCV's order and laid out. */
struct Compiled {
  haar::CompiledCascade plain, arranged;
};

Compiled
compile_both (const std::string & file)
{
  const HaarCascade hc = load (file);
  return { haar::compile_cascade (hc, false), haar::compile_cascade (hc) };
}

template <typename T>
void
append (std::string & s, const T & v)
{
  s.append (reinterpret_cast<const char *> (&v), sizeof v);
}

/* What a node computes: its rectangles with their weights (the first two
 * in either order), threshold and leaves. */
std::string
value_key (const haar::Node & n)
{
  std::string rect[3];
  for (int r = 0; r < 3; r++) {
    append (rect[r], n.rect[r]);
    append (rect[r], n.weight[r]);
  }
  if (rect[1] < rect[0])
    std::swap (rect[0], rect[1]);
  std::string k = rect[0] + rect[1] + rect[2];
  append (k, n.threshold);
  append (k, n.left_val);
  append (k, n.right_val);
  return k;
}

/* The node of `plain` each node of `arranged` came from: the first
 * unused one of its stage with the same value_key. */
std::vector<int>
origins (const haar::CompiledCascade & plain, const haar::CompiledCascade & arranged)
{
  std::vector<int> from (arranged.nodes.size (), -1);
  for (const haar::Stage & s : plain.stages) {
    std::multimap<std::string, int> left;
    for (int i = s.first; i < s.first + s.count; i++)
      left.insert ({ value_key (plain.nodes[i]), i });
    for (int i = s.first; i < s.first + s.count; i++) {
      auto it = left.find (value_key (arranged.nodes[i]));
      if (it == left.end ())
        continue;
      from[i] = it->second;
      left.erase (it);
    }
  }
  return from;
}

/* An integral image of random pixels, `pitch` words a row. */
std::vector<uint32_t>
random_integral (int w, int h, int pitch, std::mt19937 & rng, int levels)
{
  std::vector<uint32_t> sum ((size_t) pitch * (h + 1), 0);
  for (int y = 0; y < h; y++) {
    uint32_t row = 0;
    for (int x = 0; x < w; x++) {
      row += levels > 0 ? rng () % levels : 255u; /* 0: every pixel white */
      sum[(size_t) (y + 1) * pitch + x + 1] = sum[(size_t) y * pitch + x + 1] + row;
    }
  }
  return sum;
}

/* A window's (W + 1) x (H + 1) integral corners at the patch pitch, as
 * the deep kernel copies them. */
std::vector<uint32_t>
patch_of (const uint32_t *window, int pitch, const haar::CompiledCascade & c)
{
  std::vector<uint32_t> patch ((size_t) c.patch_pitch * (c.window_height + 1), 0xdeadbeef);
  for (int y = 0; y <= c.window_height; y++)
    for (int x = 0; x <= c.window_width; x++)
      patch[(size_t) y * c.patch_pitch + x] = window[(size_t) y * pitch + x];
  return patch;
}

uint32_t
bits (float v)
{
  uint32_t b;
  std::memcpy (&b, &v, sizeof b);
  return b;
}

uint64_t
bits (double v)
{
  uint64_t b;
  std::memcpy (&b, &v, sizeof b);
  return b;
}

/* A stump cascade of one stage with windows of w x h. */
HaarCascade
synthetic_stumps (int w, int h, float weight1 = 4.f)
{
  HaarCascade c;
  c.window_width = w;
  c.window_height = h;
  c.max_nodes_per_tree = 1;
  HaarFeature f;
  f.nrects = 2;
  f.rects[0] = { 0, 0, w, h, -1.f };
  f.rects[1] = { 1, 1, w / 2, h / 2, weight1 };
  c.features.push_back (f);
  for (int t = 0; t < 40; t++) {
    c.leaves.push_back (0.5f);
    c.leaves.push_back (-0.25f);
    c.nodes.push_back ({ 0, -1, 0, 0.f });
    c.trees.push_back ({ t, 1, 2 * t });
  }
  c.stages.push_back ({ 0, 40, 0.f });
  return c;
}

}  // namespace

TEST (PatchLayout, EachStageIsAPermutationOfOpenCVs)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  for (const char *file : kStumpCascades) {
    const auto [plain, arranged] = compile_both (file);
    ASSERT_TRUE (arranged.stumps && arranged.sums_exact) << file;
    ASSERT_GT (arranged.patch_pitch, arranged.window_width) << file;
    ASSERT_EQ (plain.stages.size (), arranged.stages.size ()) << file;
    for (size_t s = 0; s < plain.stages.size (); s++) {
      EXPECT_EQ (plain.stages[s].first, arranged.stages[s].first) << file;
      EXPECT_EQ (plain.stages[s].count, arranged.stages[s].count) << file;
      EXPECT_EQ (plain.stages[s].threshold, arranged.stages[s].threshold) << file;
    }
    /* a bijection inside every stage */
    const std::vector<int> from = origins (plain, arranged);
    std::vector<int> seen (plain.nodes.size (), 0);
    for (size_t s = 0; s < arranged.stages.size (); s++) {
      const haar::Stage & st = arranged.stages[s];
      for (int i = st.first; i < st.first + st.count; i++) {
        ASSERT_GE (from[i], st.first) << file << " stage " << s << " node " << i << ": from no node of its stage";
        ASSERT_LT (from[i], st.first + st.count) << file;
        seen[from[i]]++;
      }
    }
    EXPECT_EQ (std::count (seen.begin (), seen.end (), 1), (long) seen.size ()) << file;
    /* and the kernels' tiles hold the arranged nodes (their `left` the
     * corner code: tiled_node), the deep kernel's PatchNodes their fields
     * bit for bit */
    const haar::CascadeView av = arranged.view ();
    ASSERT_NE (av.patch_nodes, nullptr) << file;
    for (size_t i = 0; i < arranged.nodes.size (); i++) {
      const haar::Node t = haar::load_node (arranged.node_words.data (), (int) i);
      const haar::Node tiled = haar::tiled_node (arranged.nodes[i], true);
      ASSERT_EQ (std::memcmp (&t, &tiled, sizeof t), 0) << file << " node " << i;
      const haar::Node & n = arranged.nodes[i];
      haar::PatchNode pn = haar::load_patch_node (av, (unsigned) i);
      pn.rect[2] = av.patch_rect2s[i];
      for (int r = 0; r < 3; r++) {
        EXPECT_EQ (pn.rect[r], haar::patch_rect (n, r)) << file << " node " << i;
        EXPECT_EQ ((float) pn.weight[r], n.weight[r]) << file << " node " << i;
      }
      EXPECT_EQ (bits (pn.threshold), bits (n.threshold)) << file << " node " << i;
      EXPECT_EQ (bits (pn.left_val), bits (n.left_val)) << file << " node " << i;
      EXPECT_EQ (bits (pn.right_val), bits (n.right_val)) << file << " node " << i;
    }
  }
}

TEST (PatchLayout, NeverMoreWavefrontsThanOpenCVsOrder)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  for (const char *file : kStumpCascades) {
    const auto [plain, arranged] = compile_both (file);
    EXPECT_EQ (plain.patch_pitch, (plain.window_width + 1) | 1) << file;
    for (int s = 0; s < (int) plain.stages.size (); s++) {
      const haar::PatchCost a = haar::patch_cost (plain, s, s + 1), b = haar::patch_cost (arranged, s, s + 1);
      EXPECT_LE (b.wavefronts, a.wavefronts) << file << " stage " << s;
      EXPECT_GE (b.wavefronts, b.loads) << file << " stage " << s << ": a load is one wavefront at least";
    }
  }
  /* the deep kernel's stages of the default cascade (schedule 2, 4):
   * 2862 wavefronts in OpenCV's order, about 1590 laid out */
  const auto [plain, arranged] = compile_both ("haarcascade_frontalface_default.xml");
  const int n = (int) plain.stages.size ();
  const haar::PatchCost a = haar::patch_cost (plain, 4, n), b = haar::patch_cost (arranged, 4, n);
  EXPECT_EQ (a.wavefronts, 2862);
  EXPECT_EQ (a.loads, 1172);
  EXPECT_LE (b.wavefronts * 4, a.wavefronts * 3) << b.wavefronts << " vs " << a.wavefronts;
  EXPECT_LT (b.loads, a.loads);
}

/* Every node read from a patch at the corners it holds (the deep kernel's
 * PatchRectLoad), and read from the integral at its (maybe swapped)
 * rectangles (the other kernels), against its origin in OpenCV's order:
 * the same rectangle sums and feature value, bit for bit. Random integral
 * words (any uint32 sums) and integrals of random pixels. */
TEST (PatchLayout, FeaturesKeepOpenCVsValues)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  std::mt19937 rng (5);
  for (const char *file : kStumpCascades) {
    const auto [plain, arranged] = compile_both (file);
    const std::vector<int> from = origins (plain, arranged);
    const int pitch = 77;
    for (int trial = 0; trial < 6; trial++) {
      std::vector<uint32_t> sum;
      if (trial < 2) {
        sum.resize ((size_t) pitch * 80);
        for (uint32_t & v : sum)
          v = (uint32_t) rng ();
      } else {
        sum = random_integral (pitch - 1, 79, pitch, rng, trial == 2 ? 2 : trial == 5 ? 0 : 256);
      }
      const uint32_t *window = sum.data () + (size_t) (rng () % 8) * pitch + rng () % 8;
      const std::vector<uint32_t> patch = patch_of (window, pitch, arranged);
      const float norm = trial == 0 ? 1.f : std::ldexp ((float) (rng () % 1000 + 1), -(int) (rng () % 20));
      for (size_t i = 0; i < arranged.nodes.size (); i++) {
        const haar::Node & a = arranged.nodes[i];
        const haar::Node & p = plain.nodes[from[i]];
        const float want = haar::feature_value (p, window, pitch, norm);
        const float from_patch =
            haar::feature_value<haar::PatchRectLoad> (a, patch.data (), arranged.patch_pitch, norm);
        const float from_integral = haar::feature_value (a, window, pitch, norm);
        /* the front and stages kernels' reading: shared corners once */
        const float shared = haar::stump_feature_value (haar::tiled_node (a, true), window, pitch, norm);
        const float shared_plain = haar::stump_feature_value (haar::tiled_node (p, true), window, pitch, norm);
        ASSERT_EQ (bits (from_patch), bits (want)) << file << " node " << i << " trial " << trial;
        ASSERT_EQ (bits (from_integral), bits (want)) << file << " node " << i << " trial " << trial;
        ASSERT_EQ (bits (shared), bits (want)) << file << " node " << i << " trial " << trial;
        ASSERT_EQ (bits (shared_plain), bits (want)) << file << " node " << i << " trial " << trial;
        /* the deep kernel's: its PatchNode's sum in integers, exact on
         * integrals of images (trials 2 on; the random words of 0 and 1
         * are sums no image has) */
        if (trial >= 2) {
          const haar::CascadeView av = arranged.view ();
          const float deep = haar::patch_feature_value (av, haar::load_patch_node (av, (unsigned) i), (unsigned) i,
              haar::PatchWords (patch.data ()), norm);
          ASSERT_EQ (bits (deep), bits (want)) << file << " node " << i << " trial " << trial;
        }
        /* the rectangles: the same sums, rectangles 0 and 1 maybe traded */
        const bool swapped = std::memcmp (a.rect[0], p.rect[0], 4) != 0 || a.weight[0] != p.weight[0];
        for (int r = 0; r < 3; r++) {
          const int pr = r < 2 && swapped ? 1 - r : r;
          ASSERT_EQ (haar::node_rect_sum<haar::PatchRectLoad> (patch.data (), arranged.patch_pitch, a, r),
              haar::node_rect_sum<haar::GlobalLoad> (window, pitch, p, pr))
              << file << " node " << i << " rectangle " << r;
        }
      }
    }
  }
}

/* The corner codes (tiled_node, for the kernels that read the integral):
 * every shared corner is one, every code but the plain ones shares two,
 * and OpenCV's edge features on the default frontal face cascade share
 * as many as they can (stages 0-1: 16 of 200 loads, 2-3: 42 of 500). */
TEST (PatchLayout, CornerCodesShareOnlyEqualCorners)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  for (const char *file : kStumpCascades) {
    const auto [plain, arranged] = compile_both (file);
    for (const haar::CompiledCascade *cc : { &plain, &arranged })
      for (const haar::Node & n : cc->nodes) {
        auto corner = [&n] (int r, int k) {
          return std::make_pair (n.rect[r][0] + (k & 1) * n.rect[r][2], n.rect[r][1] + (k >> 1) * n.rect[r][3]);
        };
        int same = 0;
        for (int k = 0; k < 4; k++)
          same += corner (0, k) == corner (1, k);
        const int code = haar::corner_code (n);
        if (n.weight[2] != 0.f)
          EXPECT_EQ (code, haar::kCornersThree) << file;
        else
          EXPECT_EQ (code == haar::kCornersTwo ? 0 : 2, std::min (same, 2)) << file;
        const int shared[][2] = { { 0, 2 }, { 1, 3 }, { 0, 1 }, { 2, 3 } };
        if (code >= haar::kShareLeft) {
          for (int k : shared[code - haar::kShareLeft])
            EXPECT_TRUE (corner (0, k) == corner (1, k)) << file;
        }
      }
  }
  const auto [plain, arranged] = compile_both ("haarcascade_frontalface_default.xml");
  auto saved = [&] (const haar::CompiledCascade & cc, int first, int last) {
    int n = 0;
    for (int s = first; s < last; s++)
      for (int i = cc.stages[s].first; i < cc.stages[s].first + cc.stages[s].count; i++)
        n += haar::corner_code (cc.nodes[i]) >= haar::kShareLeft ? 2 : 0;
    return n;
  };
  EXPECT_EQ (saved (plain, 0, 2), 16);
  EXPECT_EQ (saved (plain, 2, 4), 42);
  EXPECT_EQ (saved (arranged, 0, 2), 16);
  EXPECT_EQ (saved (arranged, 2, 4), 42);
}

/* The deep kernel's stage sums over a window patch: lane l adds weak
 * classifiers l, l + 32, ... of the arranged stage, then the lanes meet
 * in a butterfly; every lane must hold OpenCV's left-to-right sum over
 * the stage in its own order, bit for bit, so that every decision is
 * OpenCV's. Every window of images of random blocks, every stage. */
TEST (PatchLayout, DeepKernelSumsAreOpenCVs)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  std::mt19937 rng (9);
  for (const char *file : { "haarcascade_frontalface_default.xml", "haarcascade_eye.xml" }) {
    const auto [plain, arranged] = compile_both (file);
    const haar::CascadeView pv = plain.view (), av = arranged.view ();
    const int w = 96, h = 64, pitch = w + 1;
    /* blocks of random grey: edges and flat parts, so that features vary */
    std::vector<uint32_t> sum ((size_t) pitch * (h + 1), 0), sq (sum.size (), 0);
    std::vector<int> block (16 * 16);
    for (int & b : block)
      b = (int) (rng () % 256);
    for (int y = 0; y < h; y++) {
      uint32_t rs = 0, rq = 0;
      for (int x = 0; x < w; x++) {
        const uint32_t v = (uint32_t) std::min (255, block[(y / 6) * 16 + x / 6] + (int) (rng () % 9));
        rs += v;
        rq += v * v;
        sum[(size_t) (y + 1) * pitch + x + 1] = sum[(size_t) y * pitch + x + 1] + rs;
        sq[(size_t) (y + 1) * pitch + x + 1] = sq[(size_t) y * pitch + x + 1] + rq;
      }
    }
    long windows = 0;
    for (int y = 0; y + plain.window_height <= h; y += 3)
      for (int x = 0; x + plain.window_width <= w; x += 3) {
        const uint32_t *ws = sum.data () + (size_t) y * pitch + x;
        float norm;
        if (!haar::window_norm (ws, sq.data () + (size_t) y * pitch + x, pitch, plain.window_width,
                plain.window_height, &norm))
          continue;
        windows++;
        const std::vector<uint32_t> patch = patch_of (ws, pitch, arranged);
        for (int si = 0; si < (int) plain.stages.size (); si++) {
          const haar::Stage & st = plain.stages[si];
          double want = 0;
          for (int t = 0; t < st.count; t++)
            want = haar::dadd (want, (double) haar::weak_value<true> (pv, st.first + t, ws, pitch, norm));
          std::array<double, 32> lane {};
          for (int l = 0; l < 32; l++)
            for (int t = l; t < st.count; t += 32)
              lane[l] = haar::dadd (lane[l], (double) haar::weak_value<true, haar::PatchRectLoad> (av,
                  st.first + t, patch.data (), arranged.patch_pitch, norm));
          for (int o = 16; o > 0; o >>= 1) {
            std::array<double, 32> next;
            for (int l = 0; l < 32; l++)
              next[l] = haar::dadd (lane[l], lane[l ^ o]);
            lane = next;
          }
          for (int l = 0; l < 32; l++)
            ASSERT_EQ (bits (lane[l]), bits (want)) << file << " window " << x << "," << y << " stage " << si;
          /* the host path through the patch, in thread order */
          const int through_patch = haar::eval_stages<true, haar::PatchRectLoad> (av, patch.data (),
              arranged.patch_pitch, norm, si, si + 1);
          EXPECT_EQ (through_patch, haar::eval_stages<true> (pv, ws, pitch, norm, si, si + 1));
        }
      }
    EXPECT_GT (windows, 200) << file;
  }
}

TEST (PatchLayout, SameLayoutEveryTime)
{
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  const HaarCascade hc = load ("haarcascade_frontalface_default.xml");
  const haar::CompiledCascade a = haar::compile_cascade (hc), b = haar::compile_cascade (hc);
  ASSERT_EQ (a.node_words.size (), b.node_words.size ());
  EXPECT_EQ (std::memcmp (a.node_words.data (), b.node_words.data (), a.node_words.size () * sizeof (haar::NodeWord)),
      0);
  EXPECT_EQ (a.patch_pitch, b.patch_pitch);
}

/* Trees keep OpenCV's nodes (their left / right are links) and get no
 * patch pitch; a stump cascade too tall for the packed corners gets none
 * (the deep kernel then reads it from global memory). */
TEST (PatchLayout, WhereNoLayoutApplies)
{
  const haar::CompiledCascade small = haar::compile_cascade (synthetic_stumps (24, 24));
  EXPECT_EQ (small.patch_pitch, 25);
  const haar::CompiledCascade tall = haar::compile_cascade (synthetic_stumps (24, 60));
  EXPECT_EQ (tall.patch_pitch, 0);
  EXPECT_EQ (tall.nodes[0].left, -1);  /* the leaf link compile_cascade wrote */
  /* the deep kernel sums features in integers: whole weights of a byte */
  EXPECT_EQ (haar::compile_cascade (synthetic_stumps (24, 24, 127.f)).patch_pitch, 25);
  EXPECT_EQ (haar::compile_cascade (synthetic_stumps (24, 24, -128.f)).patch_pitch, 0);
  EXPECT_EQ (haar::compile_cascade (synthetic_stumps (24, 24, 200.f)).patch_pitch, 0);
  EXPECT_EQ (haar::compile_cascade (synthetic_stumps (24, 24, 2.5f)).patch_pitch, 0);
  if (!have_cascades ())
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  const auto [plain, arranged] = compile_both ("haarcascade_frontalface_alt2.xml");
  ASSERT_FALSE (arranged.stumps);
  EXPECT_EQ (arranged.patch_pitch, 0);
  ASSERT_EQ (plain.nodes.size (), arranged.nodes.size ());
  EXPECT_EQ (std::memcmp (plain.nodes.data (), arranged.nodes.data (), plain.nodes.size () * sizeof (haar::Node)), 0);
}
