/* cudavision — the deep kernel's window patches, laid out against
 * shared-memory bank conflicts (patch_layout.h). */
#include "patch_layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace cudavision {
namespace haar {

namespace {

/* A round's loads: four of the first rectangle, four of the second, four
 * of the third, at the corners patch_rect gives. */
constexpr int kRoundLoads = 12;

/* A rectangle's corners in the order read (+ - - +), by `order`: the
 * top-left, top-right, bottom-left and bottom-right corners, the added
 * ones exchanged by bit 0, the subtracted ones by bit 1. */
std::array<unsigned, 4>
rect_corners (const uint8_t *r, int pitch, unsigned order)
{
  const unsigned tl = (unsigned) (r[1] * pitch + r[0]), bl = tl + (unsigned) (r[3] * pitch);
  const unsigned tr = tl + r[2], br = bl + r[2];
  return { order & 1 ? br : tl, order & 2 ? bl : tr, order & 2 ? tr : bl, order & 1 ? tl : br };
}

/* patch_rect's word for corners read at c[0..3] (c[0] + c[3] == c[1] +
 * c[2], as for every rectangle): the first and the steps to the second and
 * the third. */
uint32_t
pack_patch_rect (const std::array<unsigned, 4> & c)
{
  const uint32_t d1 = c[1] - c[0], d2 = c[2] - c[0];
  return c[0] | (d1 & 0x7ffu) << 10 | d2 << 21;
}

/* Whether patch_rect can say every corner of a (W + 1) x (H + 1) patch of
 * `pitch`: offsets under kPatchRectMaxWords, steps no longer. */
bool
patch_fits (const CompiledCascade & c, int pitch)
{
  return (long) pitch * (c.window_height + 1) <= kPatchRectMaxWords;
}

/* A node's rectangles in the patch: each in `order` (2 bits a rectangle
 * from bit 0). */
void
set_patch_rects (Node & n, int pitch, unsigned order)
{
  uint32_t w[3];
  for (int r = 0; r < 3; r++)
    w[r] = pack_patch_rect (rect_corners (n.rect[r], pitch, (order >> (2 * r)) & 3));
  n.left = (int) w[0];
  n.right = (int) w[1];
  n.patch_rect2 = w[2];
}

/* The annealing's energy: wavefronts first, then the sum over banks of
 * the squared number of distinct addresses, which tells a load whose
 * worst bank is about to empty from one that stays as bad and so gives
 * the search a slope where the wavefronts alone are flat. */
constexpr long kWavefrontWeight = 16;

/* One warp-wide load: how many lanes read each patch offset (in the
 * planner's storage), how many distinct offsets each bank holds and how
 * many banks hold k of them, so that a lane comes and goes in O(1). Adds
 * and removals update the planner's totals of wavefronts and energy. */
class WarpLoad {
public:
  explicit WarpLoad (uint8_t *lanes) : lanes_ (lanes) { banks_holding_[0] = kPatchBanks; }
  void add (unsigned o, long & wavefronts, long & energy)
  {
    if (lanes_[o]++ != 0)
      return;  /* a broadcast: no new wavefront */
    const int k = bank_[o % kPatchBanks]++;
    banks_holding_[k]--;
    banks_holding_[k + 1]++;
    energy += 2 * k + 1;
    if (k == worst_) {
      worst_++;
      wavefronts++;
      energy += kWavefrontWeight;
    }
  }
  void remove (unsigned o, long & wavefronts, long & energy)
  {
    if (--lanes_[o] != 0)
      return;
    const int k = bank_[o % kPatchBanks]--;
    banks_holding_[k]--;
    banks_holding_[k - 1]++;
    energy -= 2 * k - 1;
    if (k == worst_ && banks_holding_[k] == 0) {
      worst_--;
      wavefronts--;
      energy -= kWavefrontWeight;
    }
  }
  /* what add (o) would add to the energy */
  long add_energy (unsigned o) const
  {
    if (lanes_[o] != 0)
      return 0;
    const int k = bank_[o % kPatchBanks];
    return (k == worst_ ? kWavefrontWeight : 0) + 2 * k + 1;
  }

private:
  uint8_t *lanes_;
  std::array<uint8_t, kPatchBanks> bank_ {};
  std::array<uint8_t, kPatchLanes + 1> banks_holding_ {};
  int worst_ = 0;  /* 0 when no lane is active: the kernel skips the load */
};

/* Splitmix64: a fixed sequence, so that a cascade gets the same layout
 * every time it is loaded. */
class Rng {
public:
  explicit Rng (uint64_t seed) : s_ (seed) {}
  uint64_t next ()
  {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  unsigned below (unsigned n) { return (unsigned) ((next () >> 32) * n >> 32); }
  double uniform () { return (double) (next () >> 11) * 0x1p-53; }

private:
  uint64_t s_;
};

/* A weak classifier of the stage being planned: its corner offsets at the
 * pitch for each rectangle and corner order, and where it stands. */
struct Item {
  int node = 0;
  bool three = false;  /* has a third rectangle: the kernel loads it */
  uint16_t corners[3][4][4] {};  /* [rectangle][order][load] */
  int round = 0;
  bool swap = false;     /* rectangles 0 and 1 exchanged */
  uint8_t order[3] {};   /* corner order of the XML's rectangle r */
};

/* What of an item the search changes. */
struct Placement {
  int round = 0;
  bool swap = false;
  uint8_t order[3] {};

  static Placement of (const Item & it) { return { it.round, it.swap, { it.order[0], it.order[1], it.order[2] } }; }
  void to (Item & it) const
  {
    it.round = round;
    it.swap = swap;
    std::copy (order, order + 3, it.order);
  }
};

/* The annealing's temperatures, from accepting an exchange that costs
 * one more wavefront about one time in 25 down to about never, and the
 * share of exchanges among the moves. Tried on the default frontal face
 * cascade: within a few percent over 0.3-3 (start), 0.02-0.3 (end) and
 * 0.2-0.8 exchanges; what changes the result is the number of moves. */
constexpr double kStartTemperature = 0.3 * kWavefrontWeight, kEndTemperature = 0.03 * kWavefrontWeight;
constexpr unsigned kExchangesIn1024 = 820;

/* The layout of one stage at one pitch: simulated annealing over two
 * moves, a weak classifier given the best arrangement in its round
 * (best_response, never worse) and two weak classifiers of different
 * rounds exchanged, each then arranged anew (accepted or undone by the
 * temperature). Started from a greedy layout: the weak classifiers with a
 * third rectangle first, each arranged best among those before it. */
class StagePlanner {
public:
  StagePlanner (const std::vector<Node> & nodes, const Stage & s, int pitch, int patch_h)
  {
    const int n = s.count;
    first_ = s.first;
    rounds_ = (n + kPatchLanes - 1) / kPatchLanes;
    items_.resize (n);
    for (int i = 0; i < n; i++) {
      Item & it = items_[i];
      const Node & nd = nodes[s.first + i];
      it.node = s.first + i;
      it.three = nd.weight[2] != 0.f;
      for (int r = 0; r < 3; r++)
        for (unsigned o = 0; o < 4; o++) {
          const std::array<unsigned, 4> c = rect_corners (nd.rect[r], pitch, o);
          for (int k = 0; k < 4; k++)
            it.corners[r][o][k] = (uint16_t) c[k];
        }
    }
    /* the third rectangles gathered in as few rounds as they fill (the
     * others skip their loads); exchanges keep it so */
    std::stable_partition (items_.begin (), items_.end (), [] (const Item & it) { return it.three; });
    for (int i = 0; i < n; i++)
      items_[i].round = i / kPatchLanes;
    const size_t offsets = (size_t) pitch * patch_h;
    lanes_.assign ((size_t) rounds_ * kRoundLoads * offsets, 0);
    for (int i = 0; i < rounds_ * kRoundLoads; i++)
      loads_.emplace_back (lanes_.data () + i * offsets);
    for (Item & it : items_) {
      best_response (it);
      place (it, true);
    }
    keep_best ();
  }

  /* `moves` annealing moves, then best responses until none improves;
   * returns the wavefronts of the best layout seen. */
  long anneal (long moves, Rng & rng)
  {
    const int n = (int) items_.size ();
    if (n == 0)
      return 0;
    const double cool = moves > 1 ? std::pow (kEndTemperature / kStartTemperature, 1.0 / (double) (moves - 1)) : 1.0;
    double t = kStartTemperature;
    for (long m = 0; m < moves; m++, t *= cool) {
      Item & a = items_[rng.below (n)];
      if (rounds_ > 1 && rng.below (1024) < kExchangesIn1024) {
        Item & b = items_[rng.below (n)];
        if (a.round != b.round && a.three == b.three)
          exchange (a, b, t, rng);
      } else {
        place (a, false);
        best_response (a);
        place (a, true);
      }
      if (wavefronts_ < best_wavefronts_ || (wavefronts_ == best_wavefronts_ && energy_ < best_energy_))
        keep_best ();
    }
    /* from the best seen, down to a local minimum */
    for (size_t i = 0; i < items_.size (); i++) {
      place (items_[i], false);
      best_[i].to (items_[i]);
    }
    for (Item & it : items_)
      place (it, true);
    for (int sweep = 0; sweep < 4; sweep++) {
      const long before = energy_;
      for (Item & it : items_) {
        place (it, false);
        best_response (it);
        place (it, true);
      }
      if (energy_ >= before)
        break;
    }
    if (wavefronts_ <= best_wavefronts_)
      keep_best ();
    return best_wavefronts_;
  }

  /* The stage's nodes in the best layout, into `out`: round by round
   * (in a round, in the XML's order), each with its rectangles and corner
   * order arranged. */
  void write (const std::vector<Node> & plain, int pitch, std::vector<Node> & out) const
  {
    std::vector<size_t> by_round (items_.size ());
    for (size_t i = 0; i < by_round.size (); i++)
      by_round[i] = i;
    std::sort (by_round.begin (), by_round.end (), [this] (size_t a, size_t b) {
      return std::make_pair (best_[a].round, items_[a].node) < std::make_pair (best_[b].round, items_[b].node);
    });
    for (size_t at = 0; at < by_round.size (); at++) {
      const Item & it = items_[by_round[at]];
      const Placement & p = best_[by_round[at]];
      Node nd = plain[it.node];
      if (p.swap) {
        std::swap (nd.rect[0], nd.rect[1]);
        std::swap (nd.weight[0], nd.weight[1]);
      }
      set_patch_rects (nd, pitch,
          (unsigned) p.order[p.swap ? 1 : 0] | (unsigned) p.order[p.swap ? 0 : 1] << 2 | (unsigned) p.order[2] << 4);
      out[(size_t) first_ + at] = nd;
    }
  }

private:
  /* the rectangle that the kernel's g-th group of four loads reads */
  static int rect_of (const Item & it, int g) { return g == 2 ? 2 : g ^ (int) it.swap; }
  WarpLoad & load (const Item & it, int g, int k) { return loads_[(size_t) it.round * kRoundLoads + 4 * g + k]; }

  void place (const Item & it, bool add)
  {
    WarpLoad *l = &loads_[(size_t) it.round * kRoundLoads];
    for (int g = 0; g < (it.three ? 3 : 2); g++) {
      const uint16_t *o = it.corners[rect_of (it, g)][it.order[rect_of (it, g)]];
      for (int k = 0; k < 4; k++) {
        if (add)
          l[4 * g + k].add (o[k], wavefronts_, energy_);
        else
          l[4 * g + k].remove (o[k], wavefronts_, energy_);
      }
    }
  }

  /* What rectangle r's loads would add to group g in corner order o:
   * the pair of loads that order bit `bit` decides (0: loads 0 and 3,
   * 1: loads 1 and 2). */
  long pair_cost (const Item & it, int g, int r, unsigned o, int bit)
  {
    const int k0 = bit ? 1 : 0, k1 = bit ? 2 : 3;
    return load (it, g, k0).add_energy (it.corners[r][o][k0]) + load (it, g, k1).add_energy (it.corners[r][o][k1]);
  }

  /* The corner order of rectangle r in group g that adds the least, bit
   * by bit (the two pairs of loads are apart); ties keep the current. */
  unsigned best_order (const Item & it, int g, int r, long *cost)
  {
    unsigned o = it.order[r];
    *cost = 0;
    for (int bit = 0; bit < 2; bit++) {
      const long keep = pair_cost (it, g, r, o, bit), flip = pair_cost (it, g, r, o ^ (1u << bit), bit);
      if (flip < keep)
        o ^= 1u << bit;
      *cost += std::min (keep, flip);
    }
    return o;
  }

  /* The arrangement of an item taken out of its round that adds the
   * least energy back (the rectangle swap, then each rectangle's order). */
  void best_response (Item & it)
  {
    long best = -1;
    bool best_swap = it.swap;
    uint8_t best_order_of[2] = { it.order[0], it.order[1] };
    for (int s = 0; s < 2; s++) {
      Item trial = it;
      trial.swap = s ? !it.swap : it.swap;
      long cost = 0;
      uint8_t order[2];
      for (int g = 0; g < 2; g++) {
        long c;
        const int r = rect_of (trial, g);
        order[r] = (uint8_t) best_order (trial, g, r, &c);
        cost += c;
      }
      if (best < 0 || cost < best) {
        best = cost;
        best_swap = trial.swap;
        best_order_of[0] = order[0];
        best_order_of[1] = order[1];
      }
    }
    it.swap = best_swap;
    it.order[0] = best_order_of[0];
    it.order[1] = best_order_of[1];
    if (it.three) {
      long c;
      it.order[2] = (uint8_t) best_order (it, 2, 2, &c);
    }
  }

  /* a and b change rounds, each then arranged anew; undone when the
   * annealing refuses it */
  void exchange (Item & a, Item & b, double t, Rng & rng)
  {
    const long before = energy_;
    const Placement pa = Placement::of (a), pb = Placement::of (b);
    place (a, false);
    place (b, false);
    std::swap (a.round, b.round);
    best_response (a);
    place (a, true);
    best_response (b);
    place (b, true);
    if (accept (energy_ - before, t, rng))
      return;
    place (a, false);
    place (b, false);
    pa.to (a);
    pb.to (b);
    place (a, true);
    place (b, true);
  }

  static bool accept (long delta, double t, Rng & rng)
  {
    return delta <= 0 || rng.uniform () < std::exp (-(double) delta / t);
  }

  void keep_best ()
  {
    best_.resize (items_.size ());
    for (size_t i = 0; i < items_.size (); i++)
      best_[i] = Placement::of (items_[i]);
    best_wavefronts_ = wavefronts_;
    best_energy_ = energy_;
  }

  std::vector<Item> items_;
  std::vector<uint8_t> lanes_;
  std::vector<WarpLoad> loads_;
  std::vector<Placement> best_;
  int first_ = 0, rounds_ = 0;
  long energy_ = 0, wavefronts_ = 0;
  long best_energy_ = 0, best_wavefronts_ = 0;
};

/* patch_cost of the stage's nodes in a patch of `pitch`: at the corners
 * they hold (rects_held) or at their rectangles'. */
PatchCost patch_stage_cost (const std::vector<Node> & nodes, const Stage & s, int pitch, bool rects_held);

/* Every stage planned at `pitch`: the nodes written to `out`, the
 * wavefronts returned. A stage the search leaves worse than OpenCV's order
 * (it need not start from it) keeps that order. */
long
plan_at (const CompiledCascade & c, int pitch, long moves_per_node, uint64_t seed, std::vector<Node> & out)
{
  long total = 0;
  out = c.nodes;
  for (size_t si = 0; si < c.stages.size (); si++) {
    const Stage & s = c.stages[si];
    StagePlanner sp (c.nodes, s, pitch, c.window_height + 1);
    Rng rng (seed ^ (0x9e3779b97f4a7c15ull * (si + 1)) ^ ((uint64_t) pitch << 32));
    const long planned = sp.anneal (moves_per_node * s.count, rng);
    sp.write (c.nodes, pitch, out);
    std::vector<Node> plain (c.nodes.begin () + s.first, c.nodes.begin () + s.first + s.count);
    for (Node & n : plain)
      set_patch_rects (n, pitch, 0);
    const long kept = patch_stage_cost (plain, { 0, s.count, 0.f, 0 }, pitch, true).wavefronts;
    if (kept < planned)
      std::copy (plain.begin (), plain.end (), out.begin () + s.first);
    total += std::min (kept, planned);
  }
  return total;
}

PatchCost
patch_stage_cost (const std::vector<Node> & nodes, const Stage & s, int pitch, bool rects_held)
{
  PatchCost cost;
  for (int base = 0; base < s.count; base += kPatchLanes) {
    const int lanes = std::min (kPatchLanes, s.count - base);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 4; k++) {
        /* distinct offsets of the load, then the most in one bank */
        std::vector<unsigned> offsets;
        for (int l = 0; l < lanes; l++) {
          const Node & n = nodes[(size_t) (s.first + base + l)];
          if (r == 2 && n.weight[2] == 0.f)
            continue;
          if (rects_held) {
            const PatchCorners pc = unpack_patch_rect (patch_rect (n, r));
            const unsigned at[4] = { pc.o, pc.o + pc.d1, pc.o + pc.d2, pc.o + pc.d1 + pc.d2 };
            offsets.push_back (at[k]);
          } else {
            offsets.push_back (rect_corners (n.rect[r], pitch, 0)[k]);
          }
        }
        if (offsets.empty ())
          continue;
        std::sort (offsets.begin (), offsets.end ());
        offsets.erase (std::unique (offsets.begin (), offsets.end ()), offsets.end ());
        std::array<int, kPatchBanks> per_bank {};
        for (unsigned o : offsets)
          per_bank[o % kPatchBanks]++;
        cost.loads++;
        cost.wavefronts += *std::max_element (per_bank.begin (), per_bank.end ());
      }
  }
  return cost;
}

}  // namespace

PatchCost
patch_cost (const CompiledCascade & c, int first, int last)
{
  PatchCost cost;
  for (int si = std::max (0, first); si < last && si < (int) c.stages.size (); si++)
    cost += patch_stage_cost (c.nodes, c.stages[si], c.patch_pitch > 0 ? c.patch_pitch : (c.window_width + 1) | 1,
        c.stumps && c.patch_pitch > 0);
  return cost;
}

void
arrange_patch_layout (CompiledCascade & c, const PatchLayoutParams & p)
{
  c.patch_pitch = 0;
  /* the kernel copies a patch row with a lane per column */
  const int patch_w = c.window_width + 1;
  if (!c.stumps || !c.sums_exact || patch_w > kPatchLanes ||
      !std::all_of (c.nodes.begin (), c.nodes.end (), patch_weights_exact))
    return;
  const int first_pitch = p.first_pitch > 0 ? std::max (patch_w, p.first_pitch) : patch_w | 1;
  if (!p.search) {
    if (patch_fits (c, first_pitch)) {
      for (Node & n : c.nodes)
        set_patch_rects (n, first_pitch, 0);
      c.patch_pitch = first_pitch;
    }
    return;
  }
  const long moves = std::min<long> (p.moves, p.move_budget / std::max<long> (1, (long) c.nodes.size ()));
  long best = -1;
  std::vector<Node> nodes, best_nodes;
  for (int pitch = first_pitch; pitch < first_pitch + std::max (1, p.pitches) && patch_fits (c, pitch); pitch++) {
    const long w = plan_at (c, pitch, moves, p.seed, nodes);
    /* the smaller pitch on a tie: less shared memory */
    if (best < 0 || w < best) {
      best = w;
      c.patch_pitch = pitch;
      best_nodes.swap (nodes);
    }
  }
  if (best >= 0)
    c.nodes = std::move (best_nodes);
}

void
arrange_patch_layout (CompiledCascade & c, bool search)
{
  PatchLayoutParams p;
  p.search = search;
  arrange_patch_layout (c, p);
}

}  // namespace haar
}  // namespace cudavision
