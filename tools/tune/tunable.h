/* cudavision-tune — the registry of tunable kernels.
 *
 * Each kernel family registers its kernels in one small file
 * (tunables_<family>.cpp): a name (the KernelTraits name, the table key),
 * the traits, and a launch function that runs the family's normal launcher
 * on random frames. The tuner forces a block shape for that kernel through
 * the LaunchPolicy it passes, so the timed code path is the one the
 * elements run. A launcher may queue other kernels too: only the segment
 * from the tuned kernel's policy choice to the next choice (or the end of
 * the launch function) is timed.
 *
 * Adding a family: a tunables_<family>.cpp with
 *   static const cvtune::RegisterTunable reg ({ name, &traits, launch });
 * listed in tools/meson.build. */
#pragma once

#include "search_space.h"

#include "../../cuda/common/cuda_check.h"
#include "../../cuda/common/cuda_raii.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cvtune {

/* Random device frames for the launch functions, rotated through a set
 * larger than the L2 cache (as bench/ does), so that frames are read from
 * device memory, as a frame fresh from upstream would be. Frame `i` of the
 * rotation is picked by iteration(). */
class TuneInputs {
public:
  /* Allocates and fills the arenas: each at least 3x the L2 size and 2x
   * `max_frame_bytes`. */
  cudavision::CudaStatus init (size_t max_frame_bytes);

  void set_iteration (int i) { iteration_ = i; }
  int iteration () const { return iteration_; }

  /* Uniform random bytes, `bpp` bytes per pixel, pitch aligned as our
   * buffer pool aligns it. */
  cudavision::ConstImage8 src8 (int width, int height, int bpp) const;
  /* An output frame (a separate arena). */
  cudavision::Image8 dst8 (int width, int height, int bpp) const;
  /* Floats uniform in [-1, 1) (e.g. a corner response). */
  cudavision::ImageView<const float> src_f32 (int width, int height) const;

  /* Device scratch of at least `bytes`, kept across calls under `name`. */
  cudavision::DeviceBuffer & scratch (const std::string & name, size_t bytes);
  /* A host object kept across calls under `name` (a detector with its own
   * device buffers, a device state); created by `make` the first time. */
  template <typename T>
  T & object (const std::string & name, std::function<std::shared_ptr<T> ()> make)
  {
    auto & slot = objects_[name];
    if (!slot)
      slot = make ();
    return *static_cast<T *> (slot.get ());
  }
  /* Frees the scratch and objects (between kernels). */
  void release_state ();

private:
  uint8_t *frame (const cudavision::DeviceBuffer & arena, size_t frame_bytes) const;

  cudavision::DeviceBuffer in_, out_, f32_;
  size_t arena_bytes_ = 0;
  int iteration_ = 0;
  std::map<std::string, cudavision::DeviceBuffer> scratch_;
  std::map<std::string, std::shared_ptr<void>> objects_;
};

/* Runs the family's launcher once on `width` x `height` frames from `in`,
 * asking `policy` for every shape. Asynchronous on `stream` (a launcher
 * that must wait, e.g. for a count, may). */
using TuneLaunch = std::function<cudavision::CudaStatus (const cudavision::LaunchPolicy & policy,
    cudaStream_t stream, int width, int height, TuneInputs & in)>;

struct Tunable {
  std::string name;                          /* == traits->name */
  const cudavision::KernelTraits *traits = nullptr;
  TuneLaunch launch;
  /* Frame sizes to measure for the run's sizes; empty: the same. A
   * launcher that runs the kernel at several sizes per frame (the face
   * detector's and the flow's pyramid levels) is measured at one of them
   * per launch, since a measurement has one table key: this lists every
   * level size the run's sizes produce. */
  std::function<std::vector<FrameSize> (const std::vector<FrameSize> &)> expand_sizes;
  /* Said by --list, and in the report when it matters. */
  std::string note;
  /* At most this many warm-up and timed launches per shape (0: the run's
   * --warmup and --iters): for launches that are whole, expensive and
   * steady detections (the face detector's), where the run's defaults would
   * spend most of a full run on one family. */
  int max_warmup = 0;
  int max_iters = 0;
  /* Kernels whose output this one reads in an order their block shape
   * sets (the face detector's rounds read the list the first kernel
   * appended, a block's windows after a block's): they run at the shape
   * the run has just tuned for them (its table's, at the same work size)
   * while this one's candidates are timed, not at their static shape, and
   * the runner measures them first. The table then holds shapes that were
   * timed together, as the table mode launches them. */
  std::vector<std::string> tuned_with;
  /* For a kernel whose time steps up where the content's work outgrows
   * what one pass of its grid holds (the face detector's rounds: a second
   * pass for the last windows of a longer list), how much a shape's pass
   * holds on `dev`. Among the shapes within kHeadroomTies of the fastest,
   * which the tuner's content cannot tell apart, the table then keeps the
   * one that holds the most, so that a camera's longer list still takes
   * one pass (docs/BLOCK-SIZING.md, "What the face detector taught the
   * tuner"). */
  std::function<double (cudavision::BlockShape, const cudavision::DeviceDescription &)> headroom;
  /* Why the kernel cannot be measured on this machine (a data file it
   * needs is missing), or empty. The runner skips it with that note and
   * --list shows it. Host work only: it runs without a GPU. */
  std::function<std::string ()> unavailable;
};

/* Tunable::headroom's ties: within 3% of the fastest. The rounds' shapes
 * on the synthetic photograph at 640x480 lie within 52-56 us, and one
 * shape's time moves by about 1% between tuner runs (H100); at 5% the
 * rule also gave up speed where every shape's pass is short of the list
 * anyway (1024x1024: 928 threads kept over 864, 4.7% slower on the
 * photograph, 1.2% on the portraits' whole frame). */
constexpr double kHeadroomTies = 0.03;

/* Every registered tunable, sorted by name. */
const std::vector<Tunable> & tunables ();

/* The order cudavision-tune measures `ts` in: each after those of them it
 * is tuned with (Tunable::tuned_with), the rest as given. */
std::vector<const Tunable *> tuning_order (std::vector<const Tunable *> ts);

struct RegisterTunable {
  explicit RegisterTunable (Tunable t);
};

}  // namespace cvtune
