/* cudavision-tune — cudaotsu's kernels. The histogram kernel has a fixed
 * 32x8 block (its last block runs the search, one thread per bin): listed,
 * and skipped by the tuner. */
#include "tunable.h"

#include "../../cuda/otsu/otsu.h"

using namespace cudavision;

namespace cvtune {
namespace {

/* The device state the kernels read the threshold from, zeroed once. */
OtsuDeviceState &
state (TuneInputs & in, cudaStream_t stream)
{
  DeviceBuffer & b = in.scratch ("otsu.state", sizeof (OtsuDeviceState));
  auto *st = b.as<OtsuDeviceState> ();
  in.object<bool> ("otsu.state.ready", [&] {
    otsu_state_init (st, stream);
    return std::make_shared<bool> (true);
  });
  return *st;
}

const RegisterTunable histogram ({ otsu_histogram_traits ().name, &otsu_histogram_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return otsu_threshold (in.src8 (w, h, 1), &state (in, s), p, s);
    } });

const RegisterTunable binarize ({ otsu_binarize_traits ().name, &otsu_binarize_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return otsu_binarize (in.src8 (w, h, 1), in.dst8 (w, h, 1), &state (in, s), false, p, s);
    } });

}  // namespace
}  // namespace cvtune
