/* cudavision — the deep kernel's window patches, laid out against
 * shared-memory bank conflicts.
 *
 * facedetect.deep evaluates a window with a warp over a copy of its
 * integral corners in shared memory (its patch, rows `pitch` words
 * apart): lane l takes weak classifiers l, l + 32, ... of a stage, so each
 * of the warp's shared loads (one corner of one rectangle) gathers 32
 * different features' corners. A word's bank is its offset modulo 32 (the
 * patch's base is the same for every lane), and a load takes as many
 * wavefronts as the most distinct addresses one bank holds among its
 * active lanes (lanes reading one address share it). In OpenCV's order
 * that averages 2.4 wavefronts a load on the default frontal face cascade.
 *
 * What may change without changing any value the cascade computes:
 *  - which weak classifiers of a stage share a round of 32 lanes: the
 *    stage sums are exact in any order (stage_sums_exact);
 *  - the order of a feature's first two rectangles, whose weighted values
 *    meet in one float addition (commutative); a third stays last;
 *  - which corner of a rectangle is read first, second, third, fourth, as
 *    long as the two added and the two subtracted stay so (a uint32 sum):
 *    the nodes of a stump cascade hold each rectangle's corners in the
 *    patch in the order chosen (patch_rect, haar_eval.h), which the
 *    kernel unpacks with shifts and adds where it computed them from the
 *    rectangle with multiply-adds (no more registers: 48);
 *  - the pitch (any, from W + 1).
 * arrange_patch_layout chooses them by simulated annealing over a model of
 * the kernel's loads (patch_cost): deterministic, about 25 ms when a
 * cascade is loaded. It also gathers the features with a third rectangle
 * into as few rounds as they fill: a round where no lane has one skips
 * those four loads. On the default frontal face cascade, stages 4-24 (the
 * deep kernel's): 1172 loads and 2862 wavefronts a window in OpenCV's
 * order, 908 and about 1590 laid out (tools/face_patch_layout.cpp). */
#pragma once

#include "haar_eval.h"

#include <cstdint>
#include <vector>

namespace cudavision {
namespace haar {

/* Lanes of a warp: the deep kernel's weak classifiers per round. */
constexpr int kPatchLanes = 32;
/* Banks of shared memory, one 32-bit word wide. */
constexpr int kPatchBanks = 32;

/* The shared loads of some rounds, as the kernel issues them. */
struct PatchCost {
  long loads = 0;       /* warp-wide loads with at least one active lane */
  long wavefronts = 0;  /* their wavefronts */

  PatchCost & operator+= (const PatchCost & o)
  {
    loads += o.loads;
    wavefronts += o.wavefronts;
    return *this;
  }
};

/* The shared loads of the deep kernel over stages [first, last) of a
 * compiled cascade, 32 lanes: rounds of 32 consecutive nodes (the last
 * one partial), in each the four corner loads of rectangle 0, of
 * rectangle 1 (every active lane) and of rectangle 2 (the lanes whose
 * feature has a third). Stumps with a patch pitch: at the corners their
 * nodes hold; otherwise at their rectangles' in a patch of pitch
 * patch_pitch_of (), top-left, top-right, bottom-left, bottom-right. */
PatchCost patch_cost (const CompiledCascade & c, int first, int last);

/* How arrange_patch_layout searches; the defaults are compile_cascade's.
 * Searched at every pitch on the default frontal face cascade (stages
 * 4-24, tools/face_patch_layout.cpp --sweep), the pitches from 25 to 40
 * but 31-33 came within 3% of each other after the search, and 25 among
 * the best, where OpenCV's order gave 2.42-2.65 wavefronts a load (3.35
 * at 32): the default tries the old odd pitch, (W + 1) | 1, alone. */
struct PatchLayoutParams {
  /* false: OpenCV's order and corners at first_pitch */
  bool search = true;
  /* the pitches tried: first_pitch (0: (W + 1) | 1, at least W + 1)
   * and the next pitches - 1; a larger one costs shared memory, and so
   * L1, a warp's patch each */
  int first_pitch = 0;
  int pitches = 1;
  /* annealing moves per weak classifier and pitch: 24 take about 25 ms
   * for the 2913 of the default frontal face cascade (a 2-core VM, -O2),
   * and more gain little (32: 1%, 300: 7% fewer wavefronts); at most
   * move_budget a pitch over the whole cascade, so that larger ones
   * (frontalface_alt_tree: 8000 weak classifiers) load as fast */
  int moves = 24;
  long move_budget = 72000;
  uint64_t seed = 0x5eed;
};

/* arrange_patch_layout with explicit parameters. */
void arrange_patch_layout (CompiledCascade & c, const PatchLayoutParams & p);

}  // namespace haar
}  // namespace cudavision
