/* cudavision-patch-layout: what the deep face kernel's shared-memory loads
 * cost in bank-conflict wavefronts, in OpenCV's order and in the layout
 * compile_cascade arranges (cuda/face/patch_layout.h). CPU only.
 *
 *   cudavision-patch-layout [options] CASCADE.xml
 *     --first S        first stage counted (the deep kernel's; default 4)
 *     --reach a,b,...  windows reaching stages S, S+1, ... (any scale):
 *                      also the wavefronts weighted by them
 *     --first-pitch P --pitches N --moves M --seed X: PatchLayoutParams
 *     --sweep          the pitches one by one, each against OpenCV's order
 *     --stages         a line per stage */
#include "../cuda/face/patch_layout.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

using namespace cudavision;

namespace {

struct Weighted {
  double loads = 0, wavefronts = 0;
};

void
report (const char *what, const haar::CompiledCascade & c, int first, const std::vector<double> & reach, bool stages)
{
  const int last = (int) c.stages.size ();
  const haar::PatchCost all = haar::patch_cost (c, first, last);
  Weighted w;
  for (int si = first; si < last; si++) {
    const haar::PatchCost s = haar::patch_cost (c, si, si + 1);
    const double r = si - first < (int) reach.size () ? reach[si - first] : 0.;
    w.loads += r * (double) s.loads;
    w.wavefronts += r * (double) s.wavefronts;
    if (stages)
      std::printf ("  stage %2d: %3d weak, %4ld loads, %5ld wavefronts, %.3f a load\n", si, c.stages[si].count,
          s.loads, s.wavefronts, (double) s.wavefronts / (double) std::max (1L, s.loads));
  }
  std::printf ("%s: pitch %d, stages %d..%d: %ld loads, %ld wavefronts (per window through them all), %.3f a load",
      what, c.patch_pitch, first, last - 1, all.loads, all.wavefronts,
      (double) all.wavefronts / (double) std::max (1L, all.loads));
  if (!reach.empty ())
    std::printf ("; weighted by reach: %.1f loads, %.1f wavefronts, %.3f a load", w.loads, w.wavefronts,
        w.wavefronts / std::max (1e-9, w.loads));
  std::printf ("\n");
}

}  // namespace

int
main (int argc, char **argv)
{
  int first = 4;
  bool sweep = false, stages = false;
  std::vector<double> reach;
  haar::PatchLayoutParams p;
  const char *path = nullptr;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--first" && more)
      first = std::atoi (argv[++i]);
    else if (a == "--reach" && more) {
      std::stringstream ss (argv[++i]);
      std::string v;
      while (std::getline (ss, v, ','))
        reach.push_back (std::atof (v.c_str ()));
    } else if (a == "--pitches" && more)
      p.pitches = std::atoi (argv[++i]);
    else if (a == "--first-pitch" && more)
      p.first_pitch = std::atoi (argv[++i]);
    else if (a == "--moves" && more)
      p.moves = std::atoi (argv[++i]);
    else if (a == "--seed" && more)
      p.seed = std::strtoull (argv[++i], nullptr, 0);
    else if (a == "--sweep")
      sweep = true;
    else if (a == "--stages")
      stages = true;
    else if (a[0] != '-' && !path)
      path = argv[i];
    else {
      std::fprintf (stderr, "usage: %s [--first S] [--reach a,b,...] [--first-pitch P] [--pitches N] [--moves M] "
          "[--seed X] [--sweep] [--stages] CASCADE.xml\n", argv[0]);
      return 2;
    }
  }
  if (!path) {
    std::fprintf (stderr, "%s: no cascade\n", argv[0]);
    return 2;
  }
  HaarCascade hc;
  std::string err;
  if (!load_haar_cascade (path, &hc, &err)) {
    std::fprintf (stderr, "%s\n", err.c_str ());
    return 1;
  }
  const haar::CompiledCascade plain = haar::compile_cascade (hc, false);
  report ("OpenCV's order", plain, first, reach, stages);
  if (sweep) {
    const int from = p.first_pitch > 0 ? p.first_pitch : (plain.window_width + 1) | 1;
    for (int pitch = from; pitch < from + p.pitches; pitch++) {
      haar::CompiledCascade c = plain, id = plain;
      haar::PatchLayoutParams one = p;
      one.first_pitch = pitch;
      one.pitches = 1;
      haar::arrange_patch_layout (c, one);
      one.search = false;
      haar::arrange_patch_layout (id, one);
      const haar::PatchCost a = haar::patch_cost (id, first, (int) c.stages.size ());
      const haar::PatchCost b = haar::patch_cost (c, first, (int) c.stages.size ());
      std::printf ("pitch %d: OpenCV's order %.3f a load (%ld wavefronts), arranged %.3f a load (%ld loads, %ld "
          "wavefronts)\n", pitch, (double) a.wavefronts / (double) a.loads, a.wavefronts,
          (double) b.wavefronts / (double) b.loads, b.loads, b.wavefronts);
    }
    return 0;
  }
  haar::CompiledCascade c = plain;
  const auto t0 = std::chrono::steady_clock::now ();
  haar::arrange_patch_layout (c, p);
  const double ms = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0).count ();
  report ("arranged", c, first, reach, stages);
  std::printf ("arrange_patch_layout: %.1f ms\n", ms);
  return 0;
}
