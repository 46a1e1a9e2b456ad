/* cudavision-tune — cudagray's kernels: packed 4-byte (RGBA family) and
 * 3-byte (RGB, BGR) colour to GRAY8. */
#include "tunable.h"

#include "../../cuda/common/luma.h"

using namespace cudavision;

namespace cvtune {
namespace {

CudaStatus
gray (PackedRgb layout, const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  const int bpp = packed_rgb_layout (layout).channels;
  return rgb_to_gray (in.src8 (w, h, bpp), layout, in.dst8 (w, h, 1), policy, stream);
}

const RegisterTunable packed4 ({ gray_packed4_traits ().name, &gray_packed4_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return gray (PackedRgb::RGBA, p, s, w, h, in);
    } });

const RegisterTunable packed3 ({ gray_packed3_traits ().name, &gray_packed3_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return gray (PackedRgb::RGB, p, s, w, h, in);
    } });

}  // namespace
}  // namespace cvtune
