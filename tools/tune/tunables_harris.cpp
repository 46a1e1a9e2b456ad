/* cudavision-tune — cudaharris's kernels. The response kernel has a fixed
 * 32x8 block (its shared-memory tile): listed, and skipped by the tuner. */
#include "tunable.h"

#include "../../core/draw/corner_marker.h"
#include "../../cuda/harris/harris.h"

using namespace cudavision;

namespace cvtune {
namespace {

/* A positive frame maximum on the device, as float_to_ordered, for the
 * normalization. */
const uint32_t *
frame_max (TuneInputs & in)
{
  DeviceBuffer & b = in.scratch ("harris.max", sizeof (uint32_t));
  in.object<bool> ("harris.max.ready", [&] {
    const uint32_t v = float_to_ordered (0.75f);
    cudaMemcpy (b.get (), &v, sizeof v, cudaMemcpyHostToDevice);
    cudaStreamSynchronize (nullptr); /* the non-blocking streams do not wait for it */
    return std::make_shared<bool> (true);
  });
  return b.as<const uint32_t> ();
}

CornerDetector &
detector (TuneInputs & in)
{
  return in.object<CornerDetector> ("harris.detector", [] { return std::make_shared<CornerDetector> (); });
}

const RegisterTunable response ({ harris_response_traits ().name, &harris_response_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      const size_t pitch = aligned_pitch ((size_t) w * sizeof (float));
      DeviceBuffer & out = in.scratch ("harris.response", pitch * h);
      return corner_response ({ in.src8 (w, h, 1), true }, { out.as<float> (), pitch, w, h }, CornerParams {}, p, s);
    } });

const RegisterTunable normalize ({ harris_normalize_traits ().name, &harris_normalize_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return corner_normalize (in.src_f32 (w, h), frame_max (in), in.dst8 (w, h, 1), p, s);
    } });

/* The candidate kernel has no launcher of its own: it runs inside
 * CornerDetector::detect, after the (fixed) response kernel, followed by
 * the selection, the ordering and the list (corner_selection.h) and one
 * wait for the list. With quality level 1 no pixel passes the strict
 * threshold (the maximum itself is not above it), so what follows the
 * candidate kernel finds empty cells and an empty list: the timed segment
 * is the candidate kernel plus that short tail and the host's wake-up, the
 * same for every shape. Every pixel is still read and compared, as most of
 * a real frame's are. */
const RegisterTunable candidates ({ harris_candidates_traits ().name, &harris_candidates_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      CornerDetectParams d;
      d.quality_level = 1.0;
      std::vector<Corner> corners;
      return detector (in).detect ({ in.src8 (w, h, 1), true }, d, p, s, &corners);
    },
    {}, "timed inside CornerDetector::detect: includes the (empty) selection after it and the host wake-up" });

/* A textured frame's corners: one per 16x16 cell, at its centre (the
 * default min distance, 10, allows about one per 10x10). */
std::vector<Corner>
corner_grid (int w, int h)
{
  std::vector<Corner> corners;
  for (int y = 8; y < h; y += 16)
    for (int x = 8; x < w; x += 16)
      corners.push_back ({ (float) x, (float) y, 1.f });
  return corners;
}

/* CornerDetector::draw stages the list in pinned memory that its next call
 * overwrites; the element's next detect waits on the stream first, and so
 * does this (outside the timed segment, which starts at the choice). */
const RegisterTunable draw ({ harris_draw_traits ().name, &harris_draw_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      CV_CUDA_TRY (cudaStreamSynchronize (s));
      return detector (in).draw (packed_canvas (in.dst8 (w, h, 4), PackedRgb::RGBA,
                                     OverlayColor::from_argb (kCornerMarkerColor)),
          corner_grid (w, h), p, s);
    },
    {}, "a corner per 16x16 cell, on RGBA; keyed by corners x " + std::to_string (kCornerMarkerPixels) +
        " marker pixels" });

}  // namespace
}  // namespace cvtune
