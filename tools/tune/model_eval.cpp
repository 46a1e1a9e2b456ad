/* cudavision-model-eval — the launch policy's model against a tuner run's
 * measurements, offline (no GPU): for every (kernel, size) of a
 * samples.csv, the shape model_choose picks for the H100 description with
 * the kernel's real traits and resources, and that shape's measured time
 * over the fastest shape's. Prints, per kernel and overall, the geometric
 * mean of model/best and how many choices are within 5% of the best (and
 * the same for the static shape and for the model recorded in the file, for
 * comparison). A choice the tuner did not time is counted as unmeasured,
 * not guessed: the model lays 2D blocks out with x a power-of-two multiple
 * of 32, as the tuner's search space does, so this should not happen.
 *
 * --cross OTHER.csv: the noise floor. For every (kernel, size) the best
 * shape of another run (OTHER) is looked up in this run: what a perfect
 * oracle of one run scores on the other (cvtune::cross_ratio). A model
 * within that of the best is as good as the measurements can tell.
 *
 *   cudavision-model-eval DIR/samples.csv [--sizes] [--cross OTHER.csv]
 *
 * DIR is a `cudavision-tune --report DIR` run (docs/BLOCK-SIZING.md).
 */
#include "samples.h"

#include "../../cuda/blur/blur.h"
#include "../../core/file_read.h"
#include "../../cuda/face/facedetect.h"
#include "../../cuda/common/luma.h"
#include "../../cuda/harris/harris.h"
#include "../../cuda/otsu/otsu.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace cudavision;
using cvtune::RatioSummary;
using cvtune::SampleGroup;

namespace {

/* Registers per thread of the sm_90 code (static shared memory is 0 for
 * all of these; blur's tiles are dynamic, sized from the block), from
 *
 *   nvcc -std=c++17 -O3 --expt-relaxed-constexpr -Xptxas -v \
 *        -gencode arch=compute_90,code=sm_90 -c cuda/<family>_kernels.cu
 *
 * (CUDA 13; the instantiation the launchers use for aligned frames: the
 * vectorized variants of gray and otsu). They are a property of the
 * compiled code: the tuner on the GPU reads the same numbers with
 * cudaFuncGetAttributes (cached_kernel_resources). Rebuild the table when
 * the kernels change. */
struct Regs {
  const char *name;
  int regs;
};
const Regs kRegs[] = {
  { "gray.packed4", 40 },       /* luma_kernel<4, ..., 4 rows, vector, no copy> */
  { "gray.packed3", 40 },       /* luma_kernel<3, ..., 4 rows, vector, no copy> */
  { "otsu.binarize", 30 },      /* otsu_binarize_kernel<true> */
  { "harris.candidates", 28 },
  { "harris.normalize", 20 },
  { "blur.fused.c1.r2", 48 }, { "blur.rows.c1.r2", 32 }, { "blur.cols.c1.r2", 48 },
  { "blur.fused.c1.r5", 40 }, { "blur.rows.c1.r5", 32 }, { "blur.cols.c1.r5", 48 },
  { "blur.fused.c4.r2", 48 }, { "blur.rows.c4.r2", 32 }, { "blur.cols.c4.r2", 48 },
  { "blur.fused.c4.r5", 40 }, { "blur.rows.c4.r5", 40 }, { "blur.cols.c4.r5", 48 },
  /* cuda/face/: face_integral.cu, face_cascade.cu (the stump instances of
   * the default cascade; deep with 32 lanes), face_grouping.cu */
  { "facedetect.tiles", 116 }, { "facedetect.carries", 80 }, { "facedetect.integral", 56 },
  { "facedetect.cascade", 32 }, { "facedetect.stages", 40 }, { "facedetect.deep", 48 }, { "facedetect.group", 32 },
};

/* The kernel's traits from its launcher (host functions of the CUDA
 * library) and its resources as the launcher gives them to the policy. */
bool
kernel_inputs (const std::string & name, const KernelTraits ** traits, KernelResources * res)
{
  const Regs *r = nullptr;
  for (const Regs & e : kRegs)
    if (name == e.name)
      r = &e;
  if (!r)
    return false;
  *res = KernelResources {};
  res->regs_per_thread = r->regs;
  if (name == "gray.packed4")
    *traits = &gray_packed4_traits ();
  else if (name == "gray.packed3")
    *traits = &gray_packed3_traits ();
  else if (name == "otsu.binarize")
    *traits = &otsu_binarize_traits ();
  else if (name == "harris.candidates")
    *traits = &harris_candidates_traits ();
  else if (name == "harris.normalize")
    *traits = &harris_normalize_traits ();
  else if (name.rfind ("facedetect.", 0) == 0) {
    const std::pair<const char *, const KernelTraits &> face[] = { { "facedetect.tiles", facedetect_tiles_traits () },
      { "facedetect.carries", facedetect_carries_traits () }, { "facedetect.integral", facedetect_integral_traits () },
      { "facedetect.cascade", facedetect_cascade_traits () },
      { "facedetect.stages", facedetect_stages_traits () }, { "facedetect.deep", facedetect_deep_traits () },
      { "facedetect.group", facedetect_group_traits () } };
    for (const auto & f : face)
      if (name == f.first)
        *traits = &f.second;
    /* what face_integral.cu's launcher declares: the warps' column sums */
    if (name == "facedetect.tiles")
      res->dynamic_smem_per_thread = 32;
  }
  else {
    char kind[16] = "";
    int c = 0, radius = 0;
    if (std::sscanf (name.c_str (), "blur.%15[a-z].c%d.r%d", kind, &c, &radius) != 3)
      return false;
    const BlurKernel k = !std::strcmp (kind, "fused") ? BlurKernel::Fused
        : !std::strcmp (kind, "rows")                 ? BlurKernel::Rows
        : !std::strcmp (kind, "direct")               ? BlurKernel::Direct
                                                      : BlurKernel::Columns;
    *traits = k == BlurKernel::Fused ? &blur_fused_traits (c, radius)
        : k == BlurKernel::Rows      ? &blur_rows_traits (c, radius)
        : k == BlurKernel::Direct    ? &blur_direct_traits (radius)
                                     : &blur_columns_traits (c, radius);
    /* What blur's configure() declares (blur_kernels.cu). */
    res->dynamic_smem_per_thread = blur_smem_per_thread (k, c, radius);
  }
  return true;
}

struct Row {
  RatioSummary model, recorded, stat, cross;
};

void
print_row (const std::string & name, const Row & r, bool cross)
{
  std::printf ("| %s | %d | %.3f | %d / %d | %+.1f%% | %.3f | %.3f |", name.c_str (), r.model.count, r.model.geomean (),
      r.model.within, r.model.count, 100 * (r.model.worst - 1), r.recorded.geomean (), r.stat.geomean ());
  if (cross)
    std::printf (" %.3f | %d / %d |", r.cross.geomean (), r.cross.within, r.cross.count);
  if (r.model.unmeasured)
    std::printf (" unmeasured: %d", r.model.unmeasured);
  std::printf ("\n");
}

/* A tuner run over every kernel writes about 0.5 MB of samples. */
constexpr size_t kMaxSamplesBytes = 64u << 20;

bool
read_samples (const char *path, std::vector<SampleGroup> * groups)
{
  /* Regular files only, bounded (common/file_read.h): /dev/zero or a FIFO
   * given by mistake is an error, not an endless read. */
  std::string text, error;
  if (!read_regular_file (path, kMaxSamplesBytes, "a samples.csv file", &text, &error)) {
    std::fprintf (stderr, "cudavision-model-eval: %s\n", error.c_str ());
    return false;
  }
  std::istringstream in (text);
  if (!cvtune::parse_samples (in, groups, &error)) {
    std::fprintf (stderr, "%s: %s\n", path, error.c_str ());
    return false;
  }
  return true;
}

const SampleGroup *
find_group (const std::vector<SampleGroup> & groups, const SampleGroup & like)
{
  for (const SampleGroup & g : groups)
    if (g.kernel == like.kernel && g.width == like.width && g.height == like.height)
      return &g;
  return nullptr;
}

}  // namespace

int
main (int argc, char **argv)
{
  const char *path = nullptr;
  const char *other_path = nullptr;
  bool sizes = false;
  const char *usage = "usage: %s SAMPLES.csv [--sizes] [--cross OTHER.csv]\n";
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--sizes"))
      sizes = true;
    else if (!std::strcmp (argv[i], "--cross") && i + 1 < argc)
      other_path = argv[++i];
    else if (!std::strcmp (argv[i], "-h") || !std::strcmp (argv[i], "--help")) {
      std::printf (usage, argv[0]);
      return 0;
    } else if (argv[i][0] == '-') {
      std::fprintf (stderr, usage, argv[0]);
      return 2;
    } else
      path = argv[i];
  }
  if (!path) {
    std::fprintf (stderr, usage, argv[0]);
    return 2;
  }
  std::vector<SampleGroup> groups, other;
  if (!read_samples (path, &groups) || (other_path && !read_samples (other_path, &other)))
    return 1;
  int cross_missing = 0;

  const DeviceDescription dev = h100_sxm ();
  std::map<std::string, Row> rows;
  Row all;
  int skipped = 0;
  for (const SampleGroup & g : groups) {
    const KernelTraits *t = nullptr;
    KernelResources res;
    if (!kernel_inputs (g.kernel, &t, &res)) {
      std::fprintf (stderr, "%s: no traits/resources known: skipped\n", g.kernel.c_str ());
      skipped++;
      continue;
    }
    const double best = g.best_us ();
    const BlockShape m = model_choose (dev, res, *t, g.width, g.height);
    const double tm = g.time_of (m);
    Row & r = rows[g.kernel];
    if (tm < 0) {
      r.model.unmeasured++;
      all.model.unmeasured++;
    } else {
      r.model.add (tm / best);
      all.model.add (tm / best);
    }
    const double tr = g.time_of (g.model_block), ts = g.time_of (g.static_block);
    if (tr > 0) {
      r.recorded.add (tr / best);
      all.recorded.add (tr / best);
    }
    if (ts > 0) {
      r.stat.add (ts / best);
      all.stat.add (ts / best);
    }
    /* The other run's best shape, timed in this run. */
    double cross = -1;
    BlockShape oracle { 0, 1 };
    if (other_path) {
      const SampleGroup *o = find_group (other, g);
      if (o) {
        oracle = o->best_block ();
        cross = cvtune::cross_ratio (g, *o);
      }
      if (cross > 0) {
        r.cross.add (cross);
        all.cross.add (cross);
      } else {
        cross_missing++;
      }
    }
    if (sizes) {
      std::printf ("%s %ldx%ld: best %s %.2f us; model %s %s; recorded model %s %.3f; static %s %.3f",
          g.kernel.c_str (), g.width, g.height, g.best_block ().str ().c_str (), best, m.str ().c_str (),
          tm < 0 ? "(not measured)" : (std::to_string (tm / best).substr (0, 5)).c_str (),
          g.model_block.str ().c_str (), tr / best, g.static_block.str ().c_str (), ts / best);
      if (other_path)
        std::printf ("; other run's best %s %.3f", oracle.str ().c_str (), cross);
      std::printf ("\n");
    }
  }

  const bool cross = other_path != nullptr;
  std::printf ("Model (model_choose, %s) against %s\n", dev.name.c_str (), path);
  if (cross)
    std::printf ("Noise floor: the best shapes of %s timed in this run\n", other_path);
  std::printf ("\n| kernel | sizes | model / best (geomean) | model within 5%% | worst model gap | "
               "recorded model / best | static / best |%s\n|---|---|---|---|---|---|---|%s\n",
      cross ? " other run's best / best | other run's best within 5% |" : "", cross ? "---|---|" : "");
  for (const auto & kv : rows)
    print_row (kv.first, kv.second, cross);
  print_row ("**all**", all, cross);
  if (skipped)
    std::printf ("\n%d (kernel, size) groups skipped (unknown kernel)\n", skipped);
  if (cross_missing)
    std::printf ("\n%d (kernel, size) groups without a time for the other run's best shape\n", cross_missing);
  return all.model.unmeasured ? 3 : 0;
}
