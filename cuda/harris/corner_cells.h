/* cudavision — goodFeaturesToTrack's minimum-distance selection in
 * parallel, with the greedy's result exactly.
 *
 * The greedy (corner_select.h): walk the candidates strongest first (keys
 * descending, corner_key_yx), keep one when no kept corner lies closer
 * than min_distance. Put differently: a candidate is kept iff no *kept*
 * stronger candidate is too close. Only candidates closer than
 * min_distance interact, so the frame is cut into square cells of side
 * T >= min_distance (16, 32 or 64 pixels) and each cell walks its own
 * candidates, strongest first, in parallel with the others:
 *
 *  - a candidate with a kept, stronger, too-close corner in a cell around
 *    it is rejected at once (kept is final);
 *  - otherwise it is kept once every neighbouring cell that can hold a
 *    too-close pixel has decided all its candidates stronger than this one
 *    (that cell's "frontier", the key of its next undecided candidate, is
 *    below ours) and a second look at their kept corners still finds none;
 *  - otherwise it waits, and its cell with it.
 * The cell holding the strongest undecided candidate of the frame never
 * waits, so the walk always advances; far-apart cells advance together.
 * OpenCV's grid of round(min_distance) cells and 3x3 neighbourhood finds
 * every too-close kept corner (two cells apart means at least
 * round(d) + 1 > d pixels apart), so the greedy with the plain distance
 * test is exactly goodFeaturesToTrack's.
 *
 * Memory per cell c (all written by the candidate kernel first):
 *   keys[c * T² ...]        its candidates, strongest first, count[c] of them
 *   frontier[c]             key of its next undecided candidate, 0 when done
 *   kept[c * kept_slots ..] its kept corners in order, then a 0 (sentinel)
 *   state[c]                next candidate, kept count (owner only)
 * A cell publishes a decision with release stores (the kept key, then the
 * frontier) and reads its neighbours with acquire loads, so whatever it
 * reads is this frame's: a kept key, or the 0 after the last one.
 *
 * The same code runs in the CUDA kernel (corner_selection.cu, one thread
 * per cell, all threads resident: a cooperative launch) and on the host in
 * tests/gst/test_harris_math.cpp, where a scheduler interleaves the cells
 * in shuffled orders and compares with the greedy. `Mem` provides the
 * accesses (atomics on the device, plain memory on the host). */
#pragma once

#include "harris_math.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace cudavision {

struct CellGrid {
  int width = 0, height = 0;
  bool all = true;      /* min_distance < 1: every candidate is kept */
  int shift = 4;        /* cell side T = 1 << shift */
  int cols = 0, rows = 0;
  int rings = 1;        /* cells on each side that can hold a too-close pixel */
  int kept_slots = 1;   /* per cell: the most it can keep, plus the sentinel */
  double min_d2 = 0;    /* min_distance², as OpenCV squares it (double) */

  CV_HD int side () const { return 1 << shift; }
  CV_HD int cells () const { return cols * rows; }
  CV_HD size_t key_slots () const { return (size_t) side () * side (); }
};

/* Side of a square in which any two pixels are closer than min_distance
 * (its diagonal is 0.943 min_distance): at most one kept corner per
 * square. Distances that small are exact in float. */
inline double
kept_square_side (double min_distance)
{
  return min_distance / 1.5;
}

inline CellGrid
make_cell_grid (int width, int height, double min_distance)
{
  CellGrid g;
  g.width = width;
  g.height = height;
  g.all = !(min_distance >= 1);
  g.shift = (g.all || min_distance <= 16) ? 4 : min_distance <= 32 ? 5 : 6;
  const int t = g.side ();
  g.cols = (width + t - 1) / t;
  g.rows = (height + t - 1) / t;
  g.min_d2 = min_distance * min_distance;
  if (g.all) {
    g.rings = 0;
    g.kept_slots = 1;
    return g;
  }
  g.rings = (int) std::ceil (min_distance / t);
  const double per_side = std::ceil (t / kept_square_side (min_distance));
  const double most = per_side * per_side < (double) t * t ? per_side * per_side : (double) t * t;
  g.kept_slots = (int) most + 1;
  return g;
}

/* The most corners the selection can keep on the frame: every interior
 * pixel without the distance test, else one per kept square (and per the
 * cells' slots). Sizes the ordered list. */
inline size_t
kept_bound (const CellGrid & g)
{
  if (g.width < 3 || g.height < 3)
    return 0;
  const size_t interior = (size_t) (g.width - 2) * (size_t) (g.height - 2);
  if (g.all)
    return interior;
  const double s = kept_square_side (std::sqrt (g.min_d2));
  const double squares = std::ceil (g.width / s) * std::ceil (g.height / s);
  size_t b = interior;
  if (squares < (double) b)
    b = (size_t) squares;
  const size_t slots = (size_t) g.cells () * (size_t) (g.kept_slots - 1);
  return slots < b ? slots : b;
}

/* Can cell (cx, cy) hold a pixel too close to (x, y)? Its nearest pixel
 * decides: the float distance grows with |dx| and |dy|. */
CV_HD bool
cell_in_reach (const CellGrid & g, int x, int y, int cx, int cy)
{
  const int t = g.side ();
  const int x0 = cx * t, y0 = cy * t;
  const int nx = x < x0 ? x0 : x > x0 + t - 1 ? x0 + t - 1 : x;
  const int ny = y < y0 ? y0 : y > y0 + t - 1 ? y0 + t - 1 : y;
  return corners_too_close (x - nx, y - ny, g.min_d2);
}

/* Per-cell bookkeeping its owner keeps between calls. */
struct CellState {
  uint32_t next;  /* index of the next undecided candidate */
  uint32_t kept;  /* kept so far */
};

/* Is a corner of `cell` kept, stronger than `key` and too close to
 * (x, y)? Its kept list is strongest first and ends in a 0. */
template <typename Mem>
CV_HD bool
kept_too_close (const CellGrid & g, Mem & m, int cell, uint64_t key, int x, int y)
{
  for (int j = 0; j < g.kept_slots; j++) {
    const uint64_t e = m.kept_acquire (cell, j);
    if (e < key) /* weaker (decided after our frontier check), or the sentinel */
      return false;
    if (corners_too_close (x - corner_key_x (e), y - corner_key_y (e), g.min_d2))
      return true;
  }
  return false;
}

enum class CellWalk { Done, Waiting };

/* Advances `cell` as far as its neighbours allow. `*moved` is set when a
 * candidate was decided. */
template <typename Mem>
CV_HD CellWalk
advance_cell (const CellGrid & g, Mem & m, int cell, bool *moved)
{
  CellState st = m.state (cell);
  const uint32_t n = m.count (cell);
  const int cx = cell % g.cols, cy = cell / g.cols;
  const int gx0 = cx - g.rings < 0 ? 0 : cx - g.rings, gx1 = cx + g.rings >= g.cols ? g.cols - 1 : cx + g.rings;
  const int gy0 = cy - g.rings < 0 ? 0 : cy - g.rings, gy1 = cy + g.rings >= g.rows ? g.rows - 1 : cy + g.rings;
  CellWalk walk = CellWalk::Done;
  while (st.next < n) {
    if (m.pause ()) { /* the host scheduler's interleaving; never on the device */
      walk = CellWalk::Waiting;
      break;
    }
    const uint64_t key = m.key (cell, st.next);
    const int x = corner_key_x (key), y = corner_key_y (key);

    /* 1. a kept stronger corner too close: rejected, whatever is pending */
    bool reject = false;
    for (int yy = gy0; yy <= gy1 && !reject; yy++)
      for (int xx = gx0; xx <= gx1 && !reject; xx++)
        reject = cell_in_reach (g, x, y, xx, yy) && kept_too_close (g, m, yy * g.cols + xx, key, x, y);

    if (!reject) {
      /* 2. every stronger candidate in reach decided? */
      bool ready = true;
      for (int yy = gy0; yy <= gy1 && ready; yy++)
        for (int xx = gx0; xx <= gx1 && ready; xx++)
          if ((xx != cx || yy != cy) && cell_in_reach (g, x, y, xx, yy))
            ready = m.frontier_acquire (yy * g.cols + xx) < key;
      if (!ready) {
        walk = CellWalk::Waiting;
        break;
      }
      /* 3. decided: look again, a neighbour may have kept one since step 1 */
      for (int yy = gy0; yy <= gy1 && !reject; yy++)
        for (int xx = gx0; xx <= gx1 && !reject; xx++)
          reject = cell_in_reach (g, x, y, xx, yy) && kept_too_close (g, m, yy * g.cols + xx, key, x, y);
    }

    if (!reject) {
      if (st.kept + 1 < (uint32_t) g.kept_slots) { /* always true: kept_slots bounds a cell's corners */
        m.kept_relaxed_store (cell, st.kept + 1, 0);
        m.kept_release (cell, st.kept, key);
        st.kept++;
      }
      m.emit (key);
    }
    st.next++;
    m.frontier_release (cell, st.next < n ? m.key (cell, st.next) : 0);
    *moved = true;
  }
  m.set_state (cell, st);
  return walk;
}

/* The same selection in rounds, for lists short enough that one block
 * holds a decision per candidate (corner_selection.cu's small path): a
 * candidate is rejected as soon as a stronger, too-close candidate is
 * kept, and kept as soon as every stronger, too-close one is rejected;
 * decisions only go from undecided to final, so deciding every undecided
 * candidate from the last round's decisions, round after round, reaches
 * the greedy's result (the strongest undecided candidate always decides).
 * `Mem` gives count (cell), key (cell, i) (strongest first), index (cell,
 * i) (the candidate's number, below 2^16 * 2^16) and decision (cell, i). */
enum class CornerDecision : uint8_t { Undecided = 0, Kept = 1, Rejected = 2 };

/* Calls fn (cell, i) for every candidate stronger than and too close to
 * candidate i of `cell`, until fn returns false. */
template <typename Mem, typename Fn>
CV_HD void
for_each_stronger_close (const CellGrid & g, const Mem & m, int cell, uint32_t i, Fn fn)
{
  const uint64_t key = m.key (cell, i);
  const int x = corner_key_x (key), y = corner_key_y (key);
  const int cx = cell % g.cols, cy = cell / g.cols;
  const int gx0 = cx - g.rings < 0 ? 0 : cx - g.rings, gx1 = cx + g.rings >= g.cols ? g.cols - 1 : cx + g.rings;
  const int gy0 = cy - g.rings < 0 ? 0 : cy - g.rings, gy1 = cy + g.rings >= g.rows ? g.rows - 1 : cy + g.rings;
  for (int yy = gy0; yy <= gy1; yy++)
    for (int xx = gx0; xx <= gx1; xx++) {
      const int c = yy * g.cols + xx;
      if (!cell_in_reach (g, x, y, xx, yy))
        continue;
      const uint32_t n = m.count (c);
      for (uint32_t j = 0; j < n; j++) {
        const uint64_t e = m.key (c, j);
        if (e <= key) /* strongest first: the rest are weaker (or this one) */
          break;
        if (corners_too_close (x - corner_key_x (e), y - corner_key_y (e), g.min_d2) && !fn (c, j))
          return;
      }
    }
}

/* The decision of a candidate from those of the stronger, too-close ones
 * (each final, or undecided for now). */
struct DecisionFold {
  bool pending = false, rejected = false;

  CV_HD bool add (CornerDecision d)
  {
    rejected |= d == CornerDecision::Kept;
    pending |= d == CornerDecision::Undecided;
    return !rejected; /* a kept one decides it */
  }
  CV_HD CornerDecision result () const
  {
    return rejected ? CornerDecision::Rejected : pending ? CornerDecision::Undecided : CornerDecision::Kept;
  }
};

template <typename Mem>
CV_HD CornerDecision
decide_candidate (const CellGrid & g, const Mem & m, int cell, uint32_t i)
{
  DecisionFold f;
  for_each_stronger_close (g, m, cell, i, [&] (int c, uint32_t j) { return f.add (m.decision (c, j)); });
  return f.result ();
}

/* How many of them the rounds list per candidate: enough for nearly every
 * candidate of dense noise (about 18 candidates within a distance of 10
 * pixels, half of them stronger on average). */
constexpr uint32_t kCornerNeighbourSlots = 24;

/* The numbers (Mem::index) of the candidates candidate i of `cell` depends
 * on, the first `cap` of them into out; returns how many there are (above
 * cap: the list is incomplete, and once the listed ones are all rejected
 * decide_candidate looks at the rest). Built
 * once, it turns each round's look at the cells in reach into a few reads
 * of decisions. */
template <typename Mem, typename Index>
CV_HD uint32_t
stronger_close_list (const CellGrid & g, const Mem & m, int cell, uint32_t i, Index *out, uint32_t cap)
{
  uint32_t n = 0;
  for_each_stronger_close (g, m, cell, i, [&] (int c, uint32_t j) {
    if (n < cap)
      out[n] = (Index) m.index (c, j);
    return ++n <= cap;
  });
  return n;
}

}  // namespace cudavision
