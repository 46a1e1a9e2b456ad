/* cudavision-tune — cudaflow's kernels, with the element's default
 * Lucas-Kanade settings (FlowParams: window 21, 3 levels) on GRAY8.
 *
 * flow.pyrdown and flow.scharr run once per pyramid level, so they are
 * measured one level at a time (levels.h): FlowPyramid::build with the
 * level as the frame, highest level 1 (one pyrdown, keyed by the level it
 * writes) or 0 (one scharr). The tracker and the drawing run on the dense
 * grid of the element's default step, one point per 8x8 cell, between a
 * random frame and the same frame moved by (-1, -1) pixels: real motion,
 * which the tracker follows in a few iterations a level. */
#include "levels.h"
#include "tunable.h"

#include "../../cuda/flow/flow.h"
#include "../../core/draw/corner_marker.h"

using namespace cudavision;

namespace cvtune {
namespace {

constexpr int kGridStep = 8;      /* cudaflow's grid-step default */
constexpr float kMaxFlow = 8.0f;  /* cudaflow's max-flow default */

/* One pyramid, rebuilt by every call: what flow.pyrdown and flow.scharr
 * are timed in. */
CudaStatus
build (int max_level, const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  FlowPyramid & pyr = in.object<FlowPyramid> ("flow.pyramid", [] { return std::make_shared<FlowPyramid> (); });
  return pyr.build ({ in.src8 (w, h, 1), true }, FlowParams {}.window, max_level, policy, stream);
}

/* Two frames' pyramids and the grid's tracking results, for one size: the
 * state cudaflow keeps between frames (the previous pyramid) and after
 * tracking (the point lists that flow-color and the drawing read). */
struct Track {
  FlowPyramid prev, next;
  DeviceBuffer prev_xy, next_xy, status;  /* n x y pairs, n x y pairs, n bytes */
  int n = 0;
  CudaStatus built;
};

CudaStatus
track_grid (const Track & t, const LaunchPolicy & policy, cudaStream_t stream)
{
  return flow_track_grid (t.prev, t.next, kGridStep, t.prev_xy.as<float> (), t.next_xy.as<float> (),
      t.status.as<uint8_t> (), FlowParams {}, true, policy, stream);
}

/* Built on the first call for a size, and tracked once so that the lists
 * hold results. Both frames are views of one random (w+1) x (h+1) frame of
 * the input arena (never written): the second starts one row and one
 * column later and stays inside it. */
Track &
track (const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  return in.object<Track> ("flow.track." + FrameSize { w, h }.str (), [&] {
    auto t = std::make_shared<Track> ();
    const ConstImage8 f = in.src8 (w + 1, h + 1, 1);
    const ConstImage8 a { f.data, f.pitch, w, h };
    const ConstImage8 b { f.data + f.pitch + 1, f.pitch, w, h };
    const FlowParams p;
    t->n = flow_grid_cols (w, kGridStep) * flow_grid_rows (h, kGridStep);
    CudaStatus s = t->prev.build ({ a, true }, p.window, p.max_level, policy, stream);
    if (s.ok ())
      s = t->next.build ({ b, true }, p.window, p.max_level, policy, stream);
    if (s.ok ())
      s = t->prev_xy.allocate ((size_t) t->n * 2 * sizeof (float));
    if (s.ok ())
      s = t->next_xy.allocate ((size_t) t->n * 2 * sizeof (float));
    if (s.ok ())
      s = t->status.allocate ((size_t) t->n);
    if (s.ok ())
      s = track_grid (*t, policy, stream);
    t->built = s;
    return t;
  });
}

/* Level 0 as the element builds it: an RGBA frame's luma, and the frame
 * copied to the output (output=passthrough), in one kernel. */
const RegisterTunable input ({ flow_input_traits ().name, &flow_input_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      FlowPyramid & pyr = in.object<FlowPyramid> ("flow.pyramid", [] { return std::make_shared<FlowPyramid> (); });
      const Image8 out = in.dst8 (w, h, 4);
      return pyr.build_base ({ in.src8 (w, h, 4), false, PackedRgb::RGBA }, FlowParams {}.window, 0, p, s, &out);
    },
    {}, "RGBA in: its luma into level 0 and the frame copied to the output" });

const RegisterTunable pyrdown ({ flow_pyrdown_traits ().name, &flow_pyrdown_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) { return build (1, p, s, w, h, in); },
    [] (const std::vector<FrameSize> & sizes) { return flow_level_sizes (sizes, true); },
    "per pyramid level: the sizes are the levels it reads, the table keys the levels it writes" });

const RegisterTunable scharr ({ flow_scharr_traits ().name, &flow_scharr_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) { return build (0, p, s, w, h, in); },
    [] (const std::vector<FrameSize> & sizes) { return flow_level_sizes (sizes, false); },
    "per pyramid level" });

/* A launch on the size's tracked grid (built on its first call). */
using TrackLaunch =
    std::function<CudaStatus (const Track &, const LaunchPolicy &, cudaStream_t, int, int, TuneInputs &)>;
TuneLaunch
on_track (TrackLaunch f)
{
  return [f] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
    const Track & t = track (p, s, w, h, in);
    return t.built.ok () ? f (t, p, s, w, h, in) : t.built;
  };
}

const RegisterTunable lk ({ flow_lk_traits ().name, &flow_lk_traits (),
    on_track ([] (const Track & t, const LaunchPolicy & p, cudaStream_t s, int, int, TuneInputs &) {
      return track_grid (t, p, s);
    }),
    {}, "mode=dense: a point per 8x8 cell, all levels in one launch; keyed by points x 32 threads" });

const RegisterTunable color ({ flow_color_traits ().name, &flow_color_traits (),
    on_track ([] (const Track & t, const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      return flow_color (t.prev_xy.as<const float> (), t.next_xy.as<const float> (), t.status.as<const uint8_t> (),
          kGridStep, kMaxFlow, in.dst8 (w, h, 4), p, s);
    }),
    {}, "output=flow-color of the 8x8 grid's vectors, RGBA" });

const RegisterTunable draw ({ flow_draw_traits ().name, &flow_draw_traits (),
    on_track ([] (const Track & t, const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      const Image8 frame = in.dst8 (w, h, 4);
      const FlowOverlay overlay { packed_canvas (frame, PackedRgb::RGBA, OverlayColor::from_argb (kFlowLineColor)),
        packed_canvas (frame, PackedRgb::RGBA, OverlayColor::from_argb (kCornerMarkerColor)) };
      return flow_draw (overlay, t.prev_xy.as<const float> (), t.next_xy.as<const float> (),
          t.status.as<const uint8_t> (), t.n, true, p, s);
    }),
    {}, "vectors and markers (both kernels, one segment) of a point per 8x8 cell, on RGBA; keyed by the point count" });

}  // namespace
}  // namespace cvtune
