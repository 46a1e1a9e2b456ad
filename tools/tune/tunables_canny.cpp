/* cudavision-tune — cudacanny's kernels, through canny () with the
 * element's defaults (thresholds 50 / 150, Sobel 3x3, L1, no pre-blur);
 * canny.histogram and canny.median with the automatic median threshold,
 * computed on the device. canny.tile (32x8: its shared-memory tiles, or a
 * warp per tile), canny.weak (32x4: a warp per open tile) and canny.median
 * (one warp) have fixed blocks: listed, and skipped by the tuner.
 *
 * On the tuner's uniform random frames nearly every pixel is an edge
 * candidate: for canny.merge (whose grid is fixed by the tile count) that
 * is the hysteresis' worst case, as bench/'s canny.l2.noise. */
#include "tunable.h"

#include "../../cuda/canny/canny.h"
#include "../../cuda/compose/canny_prepasses.h"

using namespace cudavision;

namespace cvtune {
namespace {

/* The detector's device scratch, grown to the largest size and kept. */
CannyScratch &
scratch (TuneInputs & in)
{
  return in.object<CannyScratch> ("canny.scratch", [] { return std::make_shared<CannyScratch> (); });
}

/* dst (the output arena) never aliases src (the input arena), as canny ()
 * requires. The launcher queues the tile kernel and the global steps; each
 * kernel is timed on its own segment. */
CudaStatus
detect (CannyAuto mode, const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  CannyParams p;
  p.auto_threshold = mode;
  return canny (in.src8 (w, h, 1), in.dst8 (w, h, 1), p, &scratch (in), canny_prepasses (), policy, stream);
}

struct Kernel {
  const KernelTraits & (*traits) ();
  CannyAuto mode;
  const char *note;
};
const Kernel kKernels[] = {
  { canny_tile_traits, CannyAuto::Off, "" },
  { canny_merge_traits, CannyAuto::Off, "random frames: nearly every pixel an edge candidate" },
  { canny_weak_traits, CannyAuto::Off, "" },
  { canny_histogram_traits, CannyAuto::Median, "auto-threshold=median" },
  { canny_median_traits, CannyAuto::Median, "auto-threshold=median" },
};

struct Registrations {
  std::vector<RegisterTunable> regs;
  Registrations ()
  {
    for (const Kernel & k : kKernels) {
      const KernelTraits & t = k.traits ();
      const CannyAuto mode = k.mode;
      Tunable tu;
      tu.name = t.name;
      tu.traits = &t;
      tu.launch = [=] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
        return detect (mode, p, s, w, h, in);
      };
      tu.note = k.note;
      regs.emplace_back (std::move (tu));
    }
  }
};
const Registrations registrations;

}  // namespace
}  // namespace cvtune
