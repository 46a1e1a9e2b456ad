/* cudavision-tune — cudablur's kernels, for the radius classes the usual
 * settings compile to: the element's default (sigma 1.5: 11 taps, radius
 * 5) and the 5x5 / sigma 1.1 of the examples and benchmarks (radius 2);
 * GRAY8 and RGBA; the fused kernel, the two-pass rows and columns, and on
 * GRAY8 up to radius 4 the direct kernel (what Auto runs there). */
#include "tunable.h"

#include "../../cuda/blur/blur.h"
#include "../../cuda/blur/blur_direct.h" /* kBlurDirectMaxRadius */

#include <utility>

using namespace cudavision;

namespace cvtune {
namespace {

struct Setting {
  int ksize;
  double sigma;
};
const Setting kSettings[] = { { 5, 1.1 }, { 11, 1.5 } };

CudaStatus
blur (int channels, const BlurTaps & taps, BlurVariant v, const LaunchPolicy & policy, cudaStream_t stream, int w,
    int h, TuneInputs & in)
{
  DeviceBuffer *scratch = nullptr;
  if (v == BlurVariant::TwoPass)
    scratch = &in.scratch ("blur.mid", blur_scratch_bytes (channels, w, h));
  return gaussian_blur (in.src8 (w, h, channels), in.dst8 (w, h, channels), channels, taps, policy, stream, scratch,
      v);
}

/* One registration per (setting, channels, kernel). The two-pass launcher
 * queues rows then columns; each is timed on its own segment. */
struct Registrations {
  std::vector<RegisterTunable> regs;
  Registrations ()
  {
    for (const Setting & st : kSettings) {
      const BlurTaps taps = make_blur_taps (st.ksize, st.ksize, st.sigma, st.sigma);
      const int radius = taps.radius_x ();
      for (int channels : { 1, 4 }) {
        const std::pair<const KernelTraits *, BlurVariant> kernels[] = {
          { &blur_fused_traits (channels, radius), BlurVariant::Fused },
          { &blur_rows_traits (channels, radius), BlurVariant::TwoPass },
          { &blur_columns_traits (channels, radius), BlurVariant::TwoPass },
          { channels == 1 && radius <= kBlurDirectMaxRadius ? &blur_direct_traits (radius) : nullptr,
              BlurVariant::Direct },
        };
        for (const auto & kernel : kernels) {
          if (!kernel.first)
            continue;
          const KernelTraits & t = *kernel.first;
          const BlurVariant v = kernel.second;
          Tunable tu;
          tu.name = t.name;
          tu.traits = &t;
          tu.launch = [=] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
            return blur (channels, taps, v, p, s, w, h, in);
          };
          tu.note = "ksize " + std::to_string (st.ksize) + ", sigma " + std::to_string (st.sigma).substr (0, 3) +
              (channels == 1 ? ", GRAY8" : ", RGBA");
          regs.emplace_back (std::move (tu));
        }
      }
    }
  }
};
const Registrations registrations;

}  // namespace
}  // namespace cvtune
