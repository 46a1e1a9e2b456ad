/* The face detector's host planning for the device (cuda/face/
 * face_batches.h): every level in exactly one batch, batches within their
 * memory cap and level count, integral layouts that do not overlap, the
 * level lookup of BatchMap; and haar::stage_sums_exact, which decides
 * whether the deep stages may sum a stage over the lanes of a warp: true
 * for every cascade opencv-data ships, false for cascades whose sums would
 * round differently in another order. No GPU. */
#include "../../cuda/face/face_batches.h"
#include "../../cuda/face/haar_eval.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <set>

using namespace cudavision;
using namespace cudavision::facedetect;

namespace {

void
expect_valid (const FacePlan & p, size_t cap_bytes, const std::string & what)
{
  ASSERT_EQ (p.descs.size (), p.levels.size ()) << what;
  int next = 0;
  for (const FaceBatch & b : p.batches) {
    EXPECT_EQ (b.first, next) << what << ": batches are consecutive runs of levels";
    ASSERT_GT (b.count, 0) << what;
    EXPECT_LE (b.count, kMaxBatchLevels) << what;
    size_t end = 0, carries_end = 0;
    long windows = 0;
    for (int i = b.first; i < b.first + b.count; i++) {
      const LevelDesc & d = p.descs[i];
      const FaceLevel & l = p.levels[i];
      EXPECT_EQ (d.offset, end) << what << " level " << i << ": packed, no overlap";
      /* the carries between tiles: every row of the integral per tile
       * column, every column per tile row, one block per tile, packed */
      const LevelCarries c = level_carries (d);
      EXPECT_EQ (c.rows, carries_end) << what << " level " << i;
      const size_t across = (size_t) (l.width + 1 + kIntegralTileWidth - 1) / kIntegralTileWidth;
      const size_t down = (size_t) (l.height + 1 + kIntegralTileHeight - 1) / kIntegralTileHeight;
      EXPECT_EQ (c.cols - c.rows, across * (l.height + 1)) << what;
      EXPECT_EQ (c.blocks - c.cols, down * (l.width + 1)) << what;
      EXPECT_EQ (c.end - c.blocks, across * down) << what;
      carries_end = c.end;
      /* a lane's 4 columns are inside the pitch or past it, never across */
      EXPECT_EQ (d.pitch % 4, 0) << what;
      EXPECT_GE (d.pitch, l.width + 1) << what;
      EXPECT_EQ (d.pitch % kIntegralAlign, 0) << what;
      EXPECT_EQ (d.width, l.width);
      EXPECT_EQ (d.grid_x, l.grid_x);
      EXPECT_EQ (d.scale, l.scale);
      end += (size_t) d.pitch * (l.height + 1);
      windows += (long) l.grid_x * l.grid_y;
    }
    EXPECT_EQ (b.integral_elements, end) << what;
    EXPECT_EQ (b.carry_elements, carries_end) << what;
    EXPECT_LE (carries_end, p.max_carry_elements) << what;
    EXPECT_EQ (b.windows, windows) << what;
    EXPECT_LE (b.windows, (long) INT32_MAX) << what;
    if (b.count > 1) {
      EXPECT_LE (end * 2 * sizeof (uint32_t), cap_bytes) << what << ": only a lone level may pass the cap";
    }
    EXPECT_LE (end, p.max_integral_elements);
    next = b.first + b.count;
  }
  EXPECT_EQ (next, (int) p.levels.size ()) << what << ": every level searched once";
}

/* A frame to plan: its size, the scale factor and the batches' cap. */
struct PlanCase {
  int w, h;
  double factor;
  size_t cap;
};

}  // namespace

TEST (FaceBatches, CoverEveryLevelOnceWithinTheCap)
{
  const PlanCase cases[] = { { 24, 24, 1.1, kBatchIntegralBytes }, { 640, 480, 1.1, kBatchIntegralBytes },
    { 1920, 1080, 1.1, kBatchIntegralBytes }, { 3840, 2160, 1.1, kBatchIntegralBytes }, { 3840, 2160, 1.1, 1 << 20 },
    { 1920, 1080, 1.01, kBatchIntegralBytes }, { 100, 3000, 1.05, 1 << 16 },
    { 16384, 16384, 1.1, kBatchIntegralBytes } };
  for (const PlanCase & c : cases) {
    FaceDetectParams p;
    p.scale_factor = c.factor;
    const std::vector<FaceLevel> levels = plan_face_levels (c.w, c.h, 24, 24, p);
    ASSERT_FALSE (levels.empty ());
    const FacePlan plan = plan_face_batches (levels, c.w, c.h, c.cap);
    const std::string what = std::to_string (c.w) + "x" + std::to_string (c.h) + " factor " +
        std::to_string (c.factor) + " cap " + std::to_string (c.cap);
    expect_valid (plan, c.cap, what);
    if (c.w == 1920 && c.factor == 1.1 && c.cap == kBatchIntegralBytes) {
      EXPECT_EQ (plan.batches.size (), 1u) << "1080p searches its whole pyramid in one batch";
    }
    if (c.factor == 1.01) {
      EXPECT_GT (plan.batches.size (), 1u) << "hundreds of levels need several maps";
    }
  }
}

TEST (FaceBatches, ResizeScalesAreOpenCVs)
{
  const std::vector<FaceLevel> levels = plan_face_levels (1920, 1080, 24, 24, {});
  const FacePlan plan = plan_face_batches (levels, 1920, 1080);
  for (size_t i = 0; i < levels.size (); i++) {
    EXPECT_EQ (plan.descs[i].scale_x, 1. / ((double) levels[i].width / 1920)) << i;
    EXPECT_EQ (plan.descs[i].scale_y, 1. / ((double) levels[i].height / 1080)) << i;
  }
}

TEST (FaceBatches, LevelOfFindsTheOwningLevel)
{
  const std::vector<FaceLevel> levels = plan_face_levels (1280, 720, 24, 24, {});
  const FacePlan plan = plan_face_batches (levels, 1280, 720);
  const BatchMap m = make_batch_map (plan, plan.batches[0], [] (const LevelDesc & d) { return d.grid_x * d.grid_y; });
  ASSERT_EQ (m.count, (int) levels.size ());
  for (int l = 0; l < m.count; l++) {
    const int first = m.begin[l], last = m.begin[l + 1] - 1;
    if (last < first)
      continue;  /* a level without windows owns no unit */
    EXPECT_EQ (m.level_of (first), l);
    EXPECT_EQ (m.level_of (last), l);
    EXPECT_EQ (m.level_of ((first + last) / 2), l);
  }
  EXPECT_EQ (m.total (), (int) plan.batches[0].windows);
}

/* BatchMap::level_of (its bucket table, then a search between two
 * levels) against the binary search over every level, and the rows'
 * division by a multiply-high (facedetect::divide) against the integer
 * division, for every unit of every batch: the cascade kernels' maps of
 * windows (rows of grid_x) and front blocks (rows of the blocks across a
 * level, 32 windows wide, 1 to 8 rows of windows tall), at frame sizes
 * from 32x24 to 4K, with scale factors 1.1 and 1.05, and with small batch
 * caps (many batches: maps that start at a later level). */
TEST (FaceBatches, LevelOfAndRowDivisionAreExact)
{
  const PlanCase frames[] = { { 32, 24, 1.1, kBatchIntegralBytes }, { 640, 480, 1.1, kBatchIntegralBytes },
    { 1280, 720, 1.1, kBatchIntegralBytes }, { 1920, 1080, 1.1, kBatchIntegralBytes },
    { 1921, 1079, 1.05, kBatchIntegralBytes }, { 3840, 2160, 1.1, kBatchIntegralBytes },
    { 1920, 1080, 1.1, size_t (4) << 20 }, { 777, 555, 1.2, size_t (1) << 20 } };
  long checked = 0;
  for (const PlanCase & f : frames) {
    FaceDetectParams p;
    p.scale_factor = f.factor;
    const FacePlan plan = plan_face_batches (plan_face_levels (f.w, f.h, 24, 24, p), f.w, f.h, f.cap);
    for (const FaceBatch & b : plan.batches) {
      std::vector<std::pair<BatchMap, std::function<int (const LevelDesc &)>>> maps;
      maps.emplace_back (window_map (plan, b), [] (const LevelDesc & d) { return d.grid_x; });
      for (int by : { 1, 3, 8 }) {
        auto across = [] (const LevelDesc & d) { return (d.grid_x + 31) / 32; };
        maps.emplace_back (make_batch_map (
                               plan, b,
                               [by, across] (const LevelDesc & d) { return across (d) * ((d.grid_y + by - 1) / by); },
                               across),
            across);
      }
      for (const auto & [m, row] : maps) {
        for (int u = 0; u < m.total (); u++) {
          const int l = m.level_of (u);
          ASSERT_EQ (l, m.level_of_searched (u)) << f.w << "x" << f.h << " unit " << u;
          const int local = u - m.begin[l], n = row (plan.descs[b.first + l]);
          ASSERT_EQ (divide (local, m.row[l]), local / n) << f.w << "x" << f.h << " unit " << u << " / " << n;
        }
        checked += m.total ();
      }
    }
  }
  EXPECT_GT (checked, 10000000);
}

/* facedetect::divide over an int's whole range of dividends: every
 * divisor up to 4096 at the dividends where rounding is closest (around
 * the multiples of the divisor, and the largest), then random pairs. */
TEST (FaceBatches, RowDivisorIsExactForEveryInt)
{
  auto check = [] (int n, int d, const RowDivisor & r) { ASSERT_EQ (divide (n, r), n / d) << n << " / " << d; };
  for (int d = 1; d <= 4096; d++) {
    const RowDivisor r = row_divisor (d);
    for (int n = 0; n < 3 * d; n++)
      check (n, d, r);
    for (long long q = INT32_MAX / d - 2; q <= INT32_MAX / d; q++)
      for (long long n = q * d - 1; n <= q * d + 1 && n <= INT32_MAX; n++)
        if (n >= 0)
          check ((int) n, d, r);
    check (INT32_MAX, d, r);
  }
  std::mt19937 rng (11);
  for (int i = 0; i < 2000000; i++) {
    const int d = (int) (rng () % (i & 1 ? 0x7fffffffu : 1u << 16)) + 1, n = (int) (rng () & 0x7fffffffu);
    check (n, d, row_divisor (d));
  }
}

/* The keys' layout follows the frame: fields read back as written, the
 * sorted bits order keys as (y, x, level) does, no real key's sorted bits
 * all ones (unused keys sort last), and 4 radix passes of 8 bits from
 * 640x480 to 4K (6 with the fixed 16/16/12-bit layout). */
TEST (FaceBatches, KeyLayoutKeepsTheOrderInFewerBits)
{
  struct Frame {
    int w, h;
  };
  for (const Frame f : { Frame { 1, 1 }, { 24, 24 }, { 640, 480 }, { 1024, 1024 }, { 1920, 1080 }, { 3840, 2160 },
           { 65535, 65535 } }) {
    const int levels = f.w >= 24 && f.h >= 24 ? (int) plan_face_levels (f.w, f.h, 24, 24, {}).size () : 1;
    const FaceKeyLayout k = face_key_layout (f.w, f.h, levels);
    ASSERT_LE (k.end_bit, 64) << f.w << "x" << f.h;
    EXPECT_LE (face_key_layout (kMaxFaceCoordinate, kMaxFaceCoordinate, kMaxFaceLevels).end_bit, 64);
    if (f.w >= 640 && f.w <= 3840) {
      EXPECT_LE ((k.end_bit - kFaceKeySortBit + 7) / 8, 4) << f.w << "x" << f.h << ": radix passes";
    }
    const FaceKey sorted_mask = (k.end_bit == 64 ? ~0ull : (1ull << k.end_bit) - 1) & ~(FaceKey) (kMaxGroupedFaces - 1);
    std::vector<std::array<int, 3>> samples;
    for (int y : { 0, std::min (1, f.h - 1), f.h / 2, f.h - 1 })
      for (int x : { 0, std::min (1, f.w - 1), f.w / 3, f.w - 1 })
        for (int l : { 0, levels / 2, levels - 1 })
          samples.push_back ({ y, x, l });
    for (const auto & a : samples) {
      const FaceKey ka = face_key (a[1], a[0], a[2], k.x_shift, k.y_shift) | 12345;
      EXPECT_EQ (key_y (ka, k.y_shift), a[0]);
      EXPECT_EQ (key_x (ka, k.x_shift, k.y_shift), a[1]);
      EXPECT_EQ (key_level (ka, k.x_shift), a[2]);
      EXPECT_EQ (key_root (ka), 12345);
      EXPECT_NE (ka & sorted_mask, sorted_mask) << "a real key sorts before the unused ones";
      for (const auto & b : samples) {
        const FaceKey kb = face_key (b[1], b[0], b[2], k.x_shift, k.y_shift);
        EXPECT_EQ ((ka & sorted_mask) < (kb & sorted_mask), a < b) << f.w << "x" << f.h;
      }
    }
  }
}

namespace {

/* A one-stage cascade of `leaves.size () / 2` stumps with these leaves. */
HaarCascade
stump_cascade (const std::vector<float> & leaves)
{
  HaarCascade c;
  c.window_width = c.window_height = 24;
  c.max_nodes_per_tree = 1;
  HaarFeature f;
  f.nrects = 2;
  f.rects[0] = { 0, 0, 4, 4, -1.f };
  f.rects[1] = { 0, 0, 2, 2, 4.f };
  c.features.push_back (f);
  c.leaves = leaves;
  for (size_t t = 0; t < leaves.size () / 2; t++) {
    c.nodes.push_back ({ 0, -1, 0, 0.f });
    c.trees.push_back ({ (int) t, 1, (int) (2 * t) });
  }
  c.stages.push_back ({ 0, (int) c.trees.size (), 0.f });
  return c;
}

}  // namespace

TEST (StageSums, ExactInAnyOrderIsProvedOrRefused)
{
  /* ordinary leaves: about 40 bits of 53 */
  EXPECT_TRUE (haar::stage_sums_exact (stump_cascade ({ 0.8f, -0.6f, 0.125f, -0.0071f, 1.5f, 0.33f })));
  /* zeros add nothing */
  EXPECT_TRUE (haar::stage_sums_exact (stump_cascade ({ 0.f, 0.f, 0.5f, -0.25f })));
  /* a tiny leaf beside large ones: 1 + 2^-60 - 1 is 0 or 2^-60 by order */
  EXPECT_FALSE (haar::stage_sums_exact (stump_cascade ({ 1.f, -1.f, std::ldexp (1.f, -60), 0.5f })));
  /* subnormal leaves */
  EXPECT_FALSE (haar::stage_sums_exact (stump_cascade ({ 1e-40f, 0.5f, 1000.f, 2.f })));
  /* not finite */
  EXPECT_FALSE (haar::stage_sums_exact (stump_cascade ({ INFINITY, 0.5f })));
  /* and the refusal is right: those sums do depend on the order */
  const double a = ((1.0 + (double) std::ldexp (1.f, -60)) - 1.0), b = ((1.0 - 1.0) + (double) std::ldexp (1.f, -60));
  EXPECT_NE (a, b);
}

TEST (StageSums, EveryShippedCascadeIsExact)
{
  const std::string dir = "/usr/share/opencv4/haarcascades/";
  if (!std::filesystem::exists (dir + "haarcascade_frontalface_default.xml"))
    GTEST_SKIP () << "opencv-data's cascades are not installed";
  std::set<std::string> checked;
  for (const auto & e : std::filesystem::directory_iterator (dir)) {
    HaarCascade c;
    std::string err;
    if (!load_haar_cascade (e.path ().string (), &c, &err))
      continue;  /* tilted features: cascades the detector refuses anyway */
    EXPECT_TRUE (haar::stage_sums_exact (c)) << e.path ();
    checked.insert (e.path ().filename ().string ());
  }
  for (const char *f : { "haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt.xml",
           "haarcascade_frontalface_alt2.xml", "haarcascade_eye.xml" })
    EXPECT_EQ (checked.count (f), 1u) << f;
}
