/* cudavision-tune — cudafacedetect's kernels, with OpenCV's default
 * frontal-face cascade and the element's default parameters.
 *
 * Every face kernel launch covers all the levels of a batch (in practice
 * the whole pyramid) and asks the policy with the frame's size, so each is
 * measured on whole detections of a frame of the run's sizes: a synthetic
 * photograph (dead_leaves.h), not uniform noise, where far more windows
 * survive the first stages than on any photograph, so the rounds' and the
 * deep kernel's shapes would be tuned for a workload cameras do not give
 * (docs/BLOCK-SIZING.md, "What the face detector taught the tuner").
 * detect () reads its list back and waits before it returns, so the last
 * kernel's segment (facedetect.group) includes that copy and the wake-up,
 * the same for every shape.
 *
 * Without the cascade file these six are listed and skipped with a note
 * (Tunable::unavailable). facedetect.draw needs no cascade. */
#include "../../frames/dead_leaves.h"
#include "tunable.h"

#include "../../core/draw/face_draw.h"
#include "../../cuda/face/facedetect.h"

#include <algorithm>
#include <string>
#include <vector>

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

/* The synthetic photograph at one size, on the device (made once per size
 * and kernel: the tuner frees its objects between kernels). */
struct LeavesFrame {
  cudavision::DeviceBuffer buf;
  ConstImage8 image {};
  CudaStatus status;
};

LeavesFrame &
leaves_frame (int w, int h, TuneInputs & in)
{
  return in.object<LeavesFrame> ("facedetect.leaves." + std::to_string (w) + "x" + std::to_string (h), [&] {
    auto f = std::make_shared<LeavesFrame> ();
    const size_t pitch = aligned_pitch ((size_t) w);
    std::vector<uint8_t> host (pitch * (size_t) h);
    dead_leaves_frame (w, h, 1, host.data (), pitch);
    f->status = f->buf.allocate (host.size ());
    if (f->status.ok ()) {
      cudaError_t e = cudaMemcpy (f->buf.get (), host.data (), host.size (), cudaMemcpyHostToDevice);
      /* the timed launches' non-blocking stream does not wait for the copy */
      if (e == cudaSuccess)
        e = cudaStreamSynchronize (nullptr);
      if (e != cudaSuccess)
        f->status = { e, "facedetect: the synthetic frame's upload" };
    }
    f->image = { f->buf.as<const uint8_t> (), pitch, w, h };
    return f;
  });
}

/* The detector with the cascade on the device, uploaded once (set_cascade
 * waits for the copies). */
struct Detector {
  FaceDetector det;
  CudaStatus uploaded;
};

/* A frame searched with the default schedule, or (`rounds`) with one
 * round of facedetect.stages, stages 2-3, which the default schedule does
 * not launch (FaceDetector::Schedule). */
CudaStatus
search_with (bool rounds, const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  if (!loaded_cascade ().error.empty ())
    return { cudaErrorInvalidValue, "facedetect: no cascade (cudavision-tune --list says why)" };
  Detector & d = in.object<Detector> (rounds ? "facedetect.detector.rounds" : "facedetect.detector", [&] {
    auto n = std::make_shared<Detector> ();
    if (rounds)
      n->det.set_schedule ({ { 2, 4 }, 32, 1 });
    n->uploaded = n->det.set_cascade (loaded_cascade ().cascade, stream);
    return n;
  });
  if (!d.uploaded.ok ())
    return d.uploaded;
  const LeavesFrame & frame = leaves_frame (w, h, in);
  if (!frame.status.ok ())
    return frame.status;
  FaceDetector::Result r;
  return d.det.detect (frame.image, FaceDetectParams {}, policy, stream, &r);
}

CudaStatus
search_frame (const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  return search_with (false, policy, stream, w, h, in);
}

CudaStatus
search_frame_with_round (const LaunchPolicy & policy, cudaStream_t stream, int w, int h, TuneInputs & in)
{
  return search_with (true, policy, stream, w, h, in);
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
    for (const KernelTraits *t : { &facedetect_tiles_traits (), &facedetect_carries_traits (), &facedetect_integral_traits (),
             &facedetect_cascade_traits (), &facedetect_stages_traits (), &facedetect_deep_traits (),
             &facedetect_group_traits () }) {
      Tunable tu;
      tu.name = t->name;
      tu.traits = t;
      tu.launch = search_frame;
      tu.note = "every pyramid level in one launch, keyed by the frame size; at most 1 warm-up and 7 timed launches "
                "per shape";
      if (t == &facedetect_group_traits ())
        tu.note = "once per frame over the raw list, keyed by the frame size; includes the read-back and the host "
                  "wake-up; at most 1 warm-up and 7 timed launches per shape";
      /* The rounds and the deep kernel read the list the first kernel
       * appended (the deep kernel the rounds', under a schedule with
       * rounds), in an order its blocks set, so they are timed next to it
       * at its tuned shape: timed apart, the rounds' pick made the table's
       * whole frame slower than one shape for every kernel
       * (docs/BLOCK-SIZING.md, "What the face detector taught the tuner"). */
      if (t == &facedetect_stages_traits ()) {
        tu.launch = search_frame_with_round;
        tu.tuned_with = { facedetect_cascade_traits ().name };
        /* the windows a pass takes: on the synthetic photograph every
         * shape from 64 to 1024 threads lies within 52-56 us at 640x480,
         * and the tuner's pick (1024, 960, 672, 928 in four runs on an
         * H100) decided whether the portraits' longer list took a second
         * pass: 57-60 us against 73-87 (docs/BLOCK-SIZING.md) */
        tu.headroom = [] (BlockShape b, const DeviceDescription & dev) {
          return (double) facedetect_round_pass_threads (b.threads (), dev);
        };
      }
      if (t == &facedetect_deep_traits ())
        tu.tuned_with = { facedetect_cascade_traits ().name };
      tu.unavailable = unavailable;
      /* whole detections, a few hundred µs to a few ms each and steady
       * (their p10 and p90 within a few % of the median on an H100): 1
       * warm-up and 7 timed launches per shape keep the six kernels at the
       * 12 default sizes near 20 s of a full run */
      tu.max_warmup = 1;
      tu.max_iters = 7;
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

/* The element's first launch: an RGBA frame's luma for the search and the
 * frame copied to the output, from the same loads (enqueue_frame). */
const RegisterTunable input ({ facedetect_input_traits ().name, &facedetect_input_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      const ConstImage8 src = in.src8 (w, h, 4);
      const Image8 out = in.dst8 (w, h, 4);
      const size_t pitch = aligned_pitch ((size_t) w);
      DeviceBuffer & luma = in.scratch ("facedetect.luma", pitch * (size_t) h);
      return luma_and_copy ({ src.data, src.pitch, out.data, out.pitch }, nullptr, false, PackedRgb::RGBA, true,
          { luma.as<uint8_t> (), pitch, w, h }, facedetect_input_traits (), p, s);
    },
    {}, "RGBA in: its luma for the search and the frame copied to the output" });

const RegisterTunable draw ({ facedetect_draw_traits ().name, &facedetect_draw_traits (),
    [] (const LaunchPolicy & p, cudaStream_t s, int w, int h, TuneInputs & in) {
      FaceDetector & d = in.object<FaceDetector> ("facedetect.drawer", [] { return std::make_shared<FaceDetector> (); });
      return d.draw (packed_canvas (in.dst8 (w, h, 4), PackedRgb::RGBA, OverlayColor::from_argb (kFaceBoxColor)),
          group_photo (w, h), p, s);
    },
    {}, "8 boxes, a quarter of the smaller side each, on RGBA; keyed by (the largest box's border pixels, boxes)" });

}  // namespace
}  // namespace cvtune
