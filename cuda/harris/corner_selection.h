/* cudavision — goodFeaturesToTrack's corner selection on the device, from
 * a response map to the final list (CornerDetector's second half).
 *
 * Queued on the stream, no host wait:
 *  1. harris.candidates, one block per cell (corner_cells.h) of the frame:
 *     threshold at quality x maximum (read on the device), the 3x3 test,
 *     the cell's candidates sorted strongest first in shared memory;
 *  2. (min_distance >= 1) the greedy's result (corner_cells.h). With
 *     min_distance <= 16, each candidate's stronger, too-close ones listed
 *     (a thread per candidate), then rounds in which every undecided
 *     candidate decides from its list: up to 32768 candidates in one
 *     block (decisions in shared memory), up to about a candidate per 8
 *     pixels over the whole grid (harris.select, a grid barrier a round).
 *     Else, or beyond, harris.select's cell walk: one thread per cell, all
 *     resident (a cooperative launch), cells walking their candidates in
 *     parallel. All are queued; the count on the device picks the one
 *     that works, the others return at once;
 *  3. the kept corners in goodFeaturesToTrack's order (keys descending):
 *     2048-key tiles sorted by cub::BlockRadixSort, then each corner's rank
 *     = its place in its tile + the keys above it in the other tiles
 *     (binary searches, a warp per corner); for lists that may be very long
 *     (no distance test on large frames) cub::DeviceRadixSort over a
 *     zero-padded list instead. The count never reaches the host first:
 *     every kernel reads it on the device;
 *  4. the first max_corners of them, as Corner, into a device list (for
 *     drawing) and into the caller's pinned host memory (the one copy to
 *     the host, written by the kernel), with a header. */
#pragma once

#include "corner_cells.h"
#include "../../core/harris/corner_params.h"
#include "../../core/harris/corner_select.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>

namespace cudavision {

/* What the selection writes ahead of the corners in host memory. */
struct CornerListHeader {
  uint32_t count;      /* corners in the list (after max_corners) */
  uint32_t candidates; /* candidates after the 3x3 test */
  uint32_t kept;       /* kept by the distance test (before max_corners) */
  uint32_t reserved;
};

/* How step 3 orders the kept corners; Auto picks by the list's bound. */
enum class CornerOrder { Auto, Tiles, RadixSort };

/* Which step 2 runs for 16-pixel cells: Auto by the candidate count (one
 * block, grid-wide rounds, or the cell walk); tests force the grid-wide
 * rounds (Rounds, where they fit) or the cell walk. */
enum class CornerSelectPath { Auto, Rounds, Walk };

class CornerSelection {
public:
  /* Queues steps 1-4 for `response`, whose maximum is at `max_ordered`
   * (float_to_ordered, on the device). `host` (pinned, device-accessible)
   * receives the header and the first `host_capacity` corners. */
  CudaStatus enqueue (ImageView<const float> response, const uint32_t * max_ordered, const CornerDetectParams & p,
      const LaunchPolicy & policy, cudaStream_t stream, CornerListHeader * host, size_t host_capacity);

  /* The last list on the device, strongest first; its length is in the
   * header. */
  const Corner *device_list () const { return list_.as<const Corner> (); }
  const uint32_t *device_count () const { return counters_.as<const uint32_t> () + 2; }
  /* The most corners the last enqueue can list (sizes a host buffer). */
  size_t capacity () const { return out_capacity_; }

  /* Tests: force one ordering path. */
  void force_order (CornerOrder o) { order_ = o; }
  void force_path (CornerSelectPath p) { path_ = p; }

  void release ();

private:
  DeviceBuffer counters_;                  /* [0] candidates, [1] kept, [2] listed, [4..6] rounds */
  DeviceBuffer keys_, counts_, frontier_, kept_, state_;
  DeviceBuffer offsets_, owner_;           /* the rounds' numbering */
  DeviceBuffer neighbours_, neighbour_count_, decisions_;
  DeviceBuffer unordered_, ordered_, sort_temp_;
  DeviceBuffer list_;
  size_t out_capacity_ = 0;
  CornerOrder order_ = CornerOrder::Auto;
  CornerSelectPath path_ = CornerSelectPath::Auto;
  int coresident_blocks_ = 0;              /* of harris.select, cached */
  int sm_count_ = 0;
  bool cooperative_ = true;
};

const KernelTraits & harris_candidates_traits ();

}  // namespace cudavision
