/* cudavision-tune — cudafacedetect's kernels, with OpenCV's default
 * frontal-face cascade and the element's default parameters.
 *
 * facedetect.rows, .cols and .cascade run once per pyramid level, so they
 * are measured one level at a time (levels.h): expand_sizes lists every
 * level the run's sizes produce (scale factor 1.1, no size limits) and
 * notes which frame and window each comes from; the launch then runs
 * FaceDetector::detect on a random frame of that size with the minimum and
 * maximum size set to that level's window, so that it searches that level
 * alone, with the source, scale and window step of the full search.
 * detect () reads its list back and waits before it returns, so the
 * cascade's segment (the last of the level) includes that copy and the
 * wake-up, the same for every shape.
 *
 * Without the cascade file these three are listed and skipped with a note
 * (Tunable::unavailable). facedetect.draw needs no cascade. */
#include "levels.h"
#include "tunable.h"

#include "../../cuda/face/facedetect.h"

#include <algorithm>
#include <map>

using namespace cudavision;

namespace cvtune {
namespace {

constexpr char kCascadePath[] = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";

/* The cascade, parsed once per process (host data; the device copy is the
 * detector's, below); `error` says why when it cannot be loaded. */
struct LoadedCascade {
  HaarCascade cascade;
  std::string error;
};

const LoadedCascade &
loaded_cascade ()
{
  static const LoadedCascade c = [] {
    LoadedCascade l;
    std::string err;
    if (!load_haar_cascade (kCascadePath, &l.cascade, &err))
      l.error = "cannot load the face cascade (" + err + ")";
    return l;
  }();
  return c;
}

/* Where each level size of the run comes from: filled by expand_sizes,
 * read by the launch (the runner expands before it launches). */
std::map<std::pair<int, int>, FaceLevelOrigin> &
origins ()
{
  static std::map<std::pair<int, int>, FaceLevelOrigin> m;
  return m;
}

std::vector<FrameSize>
expand (const std::vector<FrameSize> & sizes)
{
  const LoadedCascade & c = loaded_cascade ();
  std::vector<FrameSize> out;
  if (!c.error.empty ())
    return out;
  for (const auto & [level, origin] : face_levels (sizes, c.cascade.window_width, c.cascade.window_height)) {
    origins ().emplace (std::make_pair (level.width, level.height), origin);
    out.push_back (level);
  }
  return out;
}

/* A size no expansion listed is searched as level 0 of a frame of that
 * size. */
FaceLevelOrigin
origin_of (int w, int h)
{
  const auto it = origins ().find ({ w, h });
  if (it != origins ().end ())
    return it->second;
  const LoadedCascade & c = loaded_cascade ();
  return { { w, h }, c.cascade.window_width, c.cascade.window_height };
}

/* The detector with the cascade on the device, uploaded once (set_cascade
 * waits for the copies). */
struct Detector {
  FaceDetector det;
  CudaStatus uploaded;
};

CudaStatus
search_level (const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  if (!loaded_cascade ().error.empty ())
    return { cudaErrorInvalidValue, "facedetect: no cascade (cudavision-tune --list says why)" };
  Detector & d = in.object<Detector> ("facedetect.detector", [&] {
    auto n = std::make_shared<Detector> ();
    n->uploaded = n->det.set_cascade (loaded_cascade ().cascade, stream);
    return n;
  });
  if (!d.uploaded.ok ())
    return d.uploaded;
  const FaceLevelOrigin o = origin_of (w, h);
  FaceDetector::Result r;
  const CudaStatus s = d.det.detect (in.src8 (o.frame.width, o.frame.height, 1), single_level_params (o), policy,
      stream, &r);
  /* levels.h's promise, checked: a wrong level would be timed under this
   * level's table key */
  if (s.ok () && !r.levels.empty () && (r.levels.size () != 1 || r.levels[0].width != w || r.levels[0].height != h))
    return { cudaErrorInvalidValue, "facedetect: the search covered other levels than the one measured" };
  return s;
}

std::string
unavailable ()
{
  return loaded_cascade ().error;
}

struct Registrations {
  std::vector<RegisterTunable> regs;
  Registrations ()
  {
    for (const KernelTraits *t : { &facedetect_rows_traits (), &facedetect_cols_traits (),
             &facedetect_cascade_traits () }) {
      Tunable tu;
      tu.name = t->name;
      tu.traits = t;
      tu.launch = search_level;
      tu.expand_sizes = expand;
      tu.note = "per pyramid level (scale factor 1.1): the sizes are the levels";
      if (t == &facedetect_cascade_traits ())
        tu.note += "; keyed by the window grid; includes the list's read-back and the host wake-up";
      tu.unavailable = unavailable;
      regs.emplace_back (std::move (tu));
    }
  }
};
const Registrations registrations;

/* Eight faces with sides of a quarter of the frame's smaller side (at
 * least the cascade's 24 pixels), along the diagonal: a group photo.
 * Boxes past the frame are clipped by the drawing, as detections are. */
std::vector<FaceRect>
group_photo (int w, int h)
{
  const int side = std::max (24, std::min (w, h) / 4);
  std::vector<FaceRect> boxes;
  for (int i = 0; i < 8; i++)
    boxes.push_back ({ (w - side) * i / 7, (h - side) * i / 7, side, side });
  return boxes;
}

const RegisterTunable draw ({ facedetect_draw_traits ().name, &facedetect_draw_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      FaceDetector & d = in.object<FaceDetector> ("facedetect.drawer", [] { return std::make_shared<FaceDetector> (); });
      return d.draw (in.dst8 (w, h, 4), group_photo (w, h), p, s);
    },
    {}, "8 boxes, a quarter of the smaller side each, on RGBA; keyed by (the largest box's border pixels, boxes)" });

}  // namespace
}  // namespace cvtune
