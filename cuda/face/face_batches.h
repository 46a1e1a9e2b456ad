/* cudavision — how the face detector's pyramid is laid out on the device
 * and cut into launches (plan_face_batches), shared by the host
 * (facedetect.cpp, unit tests) and the kernels.
 *
 * Every level's integral images live side by side in two device buffers
 * (sums and squared sums), so that one launch of each kernel serves many
 * levels: the block, row or window index of a launch says which level it
 * belongs to through a BatchMap, passed by value. A batch is the run of
 * consecutive levels that one set of launches covers; a new batch starts
 * when the integrals would pass a memory cap or the map would overflow,
 * so huge frames and small scale factors cost more launches, never more
 * memory than the cap (or than level 0 alone). Pure C++. */
#pragma once

#include "face_levels.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../core/hd.h"

namespace cudavision {
namespace facedetect {

/* One level as the kernels see it (an array of these lives on the device). */
struct LevelDesc {
  double scale_x = 0, scale_y = 0;  /* resize: 1. / (level size / frame size), as OpenCV */
  size_t offset = 0;      /* first element of the level's integrals in the batch's buffers */
  int width = 0, height = 0;  /* the level image; its integrals are (height + 1) x (width + 1) */
  int pitch = 0;          /* integral row pitch, elements */
  int step = 2;           /* window step */
  int grid_x = 0, grid_y = 0;  /* window grid */
  float scale = 1.f;      /* the level's factor: window positions in frame pixels */
  int win_width = 0, win_height = 0;  /* the window in frame pixels */
  int index = 0;          /* the level's number in the frame's pyramid */
  int key_x_shift = 32, key_y_shift = 48;  /* the frame's FaceKey layout (the same in every level) */
  size_t carry_offset = 0; /* first of the level's integral carries (LevelCarries) in the batch's buffer */
};

/* The integrals are built in tiles of the integral, (height + 1) x
 * (width + 1) entries (face_integral.cu): a warp's 32 lanes take 4
 * columns each, and every tile row is one aligned 512-byte run. */
constexpr int kIntegralTileWidth = 128;
constexpr int kIntegralTileHeight = 32;
CV_HD int tile_columns (int entries) { return (entries + kIntegralTileWidth - 1) / kIntegralTileWidth; }
CV_HD int tile_rows (int entries) { return (entries + kIntegralTileHeight - 1) / kIntegralTileHeight; }

/* Where a level's carries between tiles start (elements of two words: the
 * pixels' and the squares' sums), over its integral's (height + 1) rows
 * and (width + 1) columns: per row and tile column, the row's sums left
 * of the tile (rows: [tile column][row]); per column and tile row, the
 * column's sums above the tile (cols: [tile row][column]); per tile, the
 * sums of every row of its tile row left of it (blocks: [tile column]
 * [tile row]). */
struct LevelCarries {
  size_t rows, cols, blocks, end;
};
CV_HD LevelCarries level_carries (const LevelDesc & d)
{
  const size_t across = (size_t) tile_columns (d.width + 1), down = (size_t) tile_rows (d.height + 1);
  LevelCarries c;
  c.rows = d.carry_offset;
  c.cols = c.rows + across * (size_t) (d.height + 1);
  c.blocks = c.cols + down * (size_t) (d.width + 1);
  c.end = c.blocks + across * down;
  return c;
}

/* An accepted window, as the device lists it: its frame position and
 * level in the high bits (so that keys sort as the host sorts FaceRects:
 * by y, x, then size, which grows with the level), its class root for the
 * grouping in the low bits (face_grouping.cu). The fields above the root are
 * as wide as the frame needs (face_key_layout): the radix sort's passes
 * cover only those bits (4 passes of 8 bits up to 4K instead of 6). */
using FaceKey = unsigned long long;
constexpr int kFaceKeySortBit = 20;           /* bits below: the root */
constexpr int kMaxFaceLevels = 1 << 12;
constexpr int kMaxFaceCoordinate = 0xffff;
constexpr unsigned kMaxGroupedFaces = 1u << kFaceKeySortBit;

/* Where x and y start, and where the sorted bits end, for a frame of
 * `width` x `height` with `levels` levels: the level and y as many bits as
 * their largest values need, x as many as `width` needs, so that x, and
 * with it a real key's sorted bits, is never all ones (unused keys are,
 * and sort last). At most 12 + 16 + 16 bits above the root. */
struct FaceKeyLayout {
  int x_shift = 32, y_shift = 48, end_bit = 64;
};
inline int
face_key_bits (unsigned v)
{
  int b = 0;
  while (v >> b)
    b++;
  return b;
}
inline FaceKeyLayout
face_key_layout (int width, int height, int levels)
{
  FaceKeyLayout l;
  l.x_shift = kFaceKeySortBit + face_key_bits ((unsigned) std::max (levels - 1, 0));
  l.y_shift = l.x_shift + face_key_bits ((unsigned) width);
  l.end_bit = l.y_shift + face_key_bits ((unsigned) std::max (height - 1, 0));
  return l;
}

CV_HD FaceKey face_key (int x, int y, int level, int x_shift, int y_shift)
{
  return ((FaceKey) y << y_shift) | ((FaceKey) x << x_shift) | ((FaceKey) level << kFaceKeySortBit);
}
CV_HD int key_y (FaceKey k, int y_shift) { return (int) (k >> y_shift); }
CV_HD int key_x (FaceKey k, int x_shift, int y_shift)
{
  return (int) ((k >> x_shift) & ((1ull << (y_shift - x_shift)) - 1));
}
CV_HD int key_level (FaceKey k, int x_shift)
{
  return (int) ((k >> kFaceKeySortBit) & ((1ull << (x_shift - kFaceKeySortBit)) - 1));
}
CV_HD int key_root (FaceKey k) { return (int) (k & (kMaxGroupedFaces - 1)); }

/* Division by a fixed d >= 1 as a multiply-high and a shift, exact for
 * every dividend 0 <= n < 2^31 (an int's range: every index divided here
 * is a unit of a BatchMap, whose total is an int). With l = ceil (log2 d)
 * and m = ceil (2^(31 + l) / d), e = m d - 2^(31 + l) is in [0, d), so
 * n m / 2^(31 + l) = n / d + n e / (d 2^(31 + l)), and n e < 2^31 2^l
 * keeps the second term below 1 / d: its floor is n / d's. m < 2^32 (d
 * a power of two: 2^31; otherwise d > 2^(l - 1)). The product is taken
 * of 2n (< 2^32) so that the shift, l, is never negative:
 * floor (n m / 2^(31 + l)) = (umulhi (2n, m)) >> l. 3 instructions where
 * an integer division took about 35 (tests/unit/test_face_batches.cpp
 * checks every unit of every level at several frame sizes). */
struct RowDivisor {
  uint32_t magic = 1u << 31; /* d = 1 */
  int shift = 0;
};
inline RowDivisor
row_divisor (int d)
{
  RowDivisor r;
  r.shift = 0;
  while ((1ll << r.shift) < (long long) d)
    r.shift++;
  r.magic = (uint32_t) (((1ull << (31 + r.shift)) + (unsigned long long) d - 1) / (unsigned long long) d);
  return r;
}
CV_HD int
divide (int n, const RowDivisor & r)
{
  const uint32_t x = (uint32_t) n << 1;
  return (int) (CV_HD_PICK (__umulhi (x, r.magic), (uint32_t) (((uint64_t) x * r.magic) >> 32)) >> r.shift);
}

/* Units (rows, blocks, windows) of the levels of one launch: level i owns
 * units [begin[i], begin[i + 1]). Passed by value (kernel parameter). */
constexpr int kMaxBatchLevels = 48;
/* level_of's buckets: units in runs of 2^bucket_shift, as many as make
 * kBatchBuckets at most */
constexpr int kBatchBuckets = 128;
struct BatchMap {
  int count = 0;
  int begin[kMaxBatchLevels + 1] = {};
  /* the levels' units in rows of this many (make_batch_map's `row`) */
  RowDivisor row[kMaxBatchLevels] = {};
  /* bucket_level[b]: the level of unit b << bucket_shift (the first of
   * bucket b), [kBatchBuckets]: the last level */
  int bucket_shift = 0;
  uint8_t bucket_level[kBatchBuckets + 1] = {};

  CV_HD int total () const { return begin[count]; }
  /* The level that owns `unit` (0 <= unit < total ()): the largest level
   * whose first unit is at most `unit`. It is at least the level of its
   * bucket's first unit and at most that of the next bucket's first (or
   * the last level), both from the table; then a binary search between
   * the two, which most units, their bucket inside one level, skip: the
   * same level as the binary search over every level took (5.4 steps of
   * dependent indexed loads at 1080p), in two independent loads. */
  CV_HD int level_of (int unit) const
  {
    const int b = unit >> bucket_shift;
    return search (unit, bucket_level[b], bucket_level[b + 1]);
  }
  /* level_of by the binary search over every level (the table's source) */
  CV_HD int level_of_searched (int unit) const { return search (unit, 0, count - 1); }

private:
  /* The largest level in [lo, hi] whose first unit is at most `unit`
   * (one there is). */
  CV_HD int search (int unit, int lo, int hi) const
  {
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (begin[mid] <= unit)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  }
};

/* Levels [first, first + count) of the frame, searched together. */
struct FaceBatch {
  int first = 0, count = 0;
  size_t integral_elements = 0;  /* per buffer (sums, squares); also the level images' bytes */
  size_t carry_elements = 0;     /* the levels' carries (LevelCarries), two words each */
  long windows = 0;              /* windows of its levels */
};

/* A frame's levels laid out for the device, and its batches. */
struct FacePlan {
  std::vector<FaceLevel> levels;
  std::vector<LevelDesc> descs;  /* same order; offsets relative to the level's batch */
  std::vector<FaceBatch> batches;
  size_t max_integral_elements = 0;  /* the largest batch's */
  size_t max_carry_elements = 0;     /* likewise */
  long max_batch_windows = 0;
  FaceKeyLayout key;                 /* the frame's FaceKey layout (also in every desc) */
};

/* Integral rows are padded to this many elements (128 bytes; a multiple
 * of the 4 columns a lane of the integral kernels takes). */
constexpr int kIntegralAlign = 32;
/* Default memory cap of one batch's two integral buffers. */
constexpr size_t kBatchIntegralBytes = size_t (192) << 20;

/* Lays `levels` (plan_face_levels of a frame_width x frame_height frame)
 * out in batches of at most `cap_bytes` of integrals (a level larger than
 * that is a batch alone; the level images and the carries between tiles
 * add about a fifth: one byte and a sixteenth of two words a pixel) and
 * kMaxBatchLevels levels, whose windows an int can count. */
FacePlan plan_face_batches (const std::vector<FaceLevel> & levels, int frame_width, int frame_height,
    size_t cap_bytes = kBatchIntegralBytes);

/* The map of a batch's levels with `units (desc)` units each, in rows of
 * `row (desc)` (BatchMap::row; 1 where not given). */
template <typename Units, typename Row>
BatchMap
make_batch_map (const FacePlan & plan, const FaceBatch & b, Units units, Row row)
{
  BatchMap m;
  m.count = b.count;
  long acc = 0;
  for (int i = 0; i < b.count; i++) {
    m.begin[i] = (int) acc;
    acc += units (plan.descs[b.first + i]);
    m.row[i] = row_divisor (std::max (1, (int) row (plan.descs[b.first + i])));
  }
  m.begin[b.count] = (int) acc;
  const int last = std::max (0, (int) acc - 1);
  while ((last >> m.bucket_shift) >= kBatchBuckets)
    m.bucket_shift++;
  for (int k = 0; k < kBatchBuckets; k++) {
    const long first = (long) k << m.bucket_shift;
    m.bucket_level[k] = (uint8_t) (first <= last ? m.level_of_searched ((int) first) : std::max (0, b.count - 1));
  }
  m.bucket_level[kBatchBuckets] = (uint8_t) std::max (0, b.count - 1);
  return m;
}
template <typename Units>
BatchMap
make_batch_map (const FacePlan & plan, const FaceBatch & b, Units units)
{
  return make_batch_map (plan, b, units, [] (const LevelDesc &) { return 1; });
}
/* The cascade kernels' map of a batch's windows, in rows of grid_x. */
inline BatchMap
window_map (const FacePlan & plan, const FaceBatch & b)
{
  return make_batch_map (
      plan, b, [] (const LevelDesc & d) { return d.grid_x * d.grid_y; }, [] (const LevelDesc & d) { return d.grid_x; });
}

}  // namespace facedetect
}  // namespace cudavision
