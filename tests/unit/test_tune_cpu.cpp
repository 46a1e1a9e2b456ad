/* Unit tests of cudavision-tune's parts that need no GPU: the search space,
 * sizes and kernel selection, the table it writes and resumes, the report
 * and plot inputs, the progress line, the registry (every kernel the
 * launchers declare has a tunable), the pyramid levels measured for the
 * per-level kernels, and --list. */
#include "../../tools/tune/levels.h"
#include "../../tools/tune/progress.h"
#include "../../tools/tune/results.h"
#include "../../tools/tune/samples.h"
#include "../../tools/tune/search_space.h"
#include "../../tools/tune/tunable.h"

#include "../../cuda/blur/blur.h"
#include "../../cuda/canny/canny.h"
#include "../../cuda/face/facedetect.h"
#include "../../cuda/flow/flow.h"
#include "../../cuda/common/luma.h"
#include "../../cuda/harris/harris.h"
#include "../../cuda/otsu/otsu.h"

#include "../common/temp_file.h"
#include "../common/tune_tool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace cvtune;
using cudavision::BlockShape;
using cudavision::DeviceDescription;
using cudavision::KernelResources;
using cudavision::KernelTraits;
using cudavision::TuningTable;
using cvtest::TempDir;
namespace fs = std::filesystem;

namespace cudavision {
inline void
PrintTo (const BlockShape & b, std::ostream * os)
{
  *os << b.str ();
}
}  // namespace cudavision

namespace cvtune {
inline void
PrintTo (const FrameSize & f, std::ostream * os)
{
  *os << f.str ();
}
}  // namespace cvtune

namespace {

KernelTraits
traits (bool two_d)
{
  KernelTraits k;
  k.name = "test.kernel";
  k.two_d = two_d;
  return k;
}

bool
contains (const std::vector<BlockShape> & v, BlockShape b)
{
  return std::find (v.begin (), v.end (), b) != v.end ();
}

std::string
slurp (const fs::path & p)
{
  std::ifstream in (p);
  std::ostringstream s;
  s << in.rdbuf ();
  return s.str ();
}

/* A measurement with the given (shape, median) pairs. */
Measurement
meas (const std::string & kernel, long w, long h, BlockShape stat, BlockShape model,
    std::vector<std::pair<BlockShape, double>> times)
{
  Measurement m;
  m.kernel = kernel;
  m.frame = { (int) w, (int) h };
  m.width = w;
  m.height = h;
  m.static_block = stat;
  m.model_block = model;
  for (auto & [b, t] : times)
    m.times.push_back ({ b, t, t * 0.98, t * 1.1 });
  return m;
}

}  // namespace

/* ---------------- search space, sizes, selection ---------------- */

TEST (TuneSearchSpace, OneDimensionalIsThePapersMultiplesOf32)
{
  const std::vector<BlockShape> s = search_space (traits (false));
  ASSERT_EQ (s.size (), 32u);
  for (size_t i = 0; i < s.size (); i++)
    EXPECT_EQ (s[i], (BlockShape { (unsigned) (32 * (i + 1)), 1 }));
}

TEST (TuneSearchSpace, TwoDimensionalShapes)
{
  const std::vector<BlockShape> s = search_space (traits (true));
  /* x = 32..1024 (powers of two), every y up to 1024 / x: 32 + 16 + 8 + 4 + 2 + 1 */
  ASSERT_EQ (s.size (), 63u);
  for (BlockShape b : { BlockShape { 32, 1 }, BlockShape { 32, 3 }, BlockShape { 32, 32 }, BlockShape { 64, 1 },
           BlockShape { 64, 16 }, BlockShape { 128, 8 }, BlockShape { 256, 4 }, BlockShape { 512, 1 },
           BlockShape { 512, 2 }, BlockShape { 1024, 1 } })
    EXPECT_TRUE (contains (s, b)) << b.str ();
  for (BlockShape b : { BlockShape { 32, 33 }, BlockShape { 64, 17 }, BlockShape { 96, 1 }, BlockShape { 16, 2 },
           BlockShape { 2048, 1 } })
    EXPECT_FALSE (contains (s, b)) << b.str ();
  std::set<std::string> seen;
  for (size_t i = 0; i < s.size (); i++) {
    EXPECT_LE (s[i].threads (), 1024u);
    EXPECT_EQ (s[i].x % 32, 0u);
    EXPECT_TRUE (seen.insert (s[i].str ()).second) << "duplicate " << s[i].str ();
    if (i) {
      const bool ordered = s[i - 1].threads () < s[i].threads () ||
          (s[i - 1].threads () == s[i].threads () && s[i - 1].x < s[i].x);
      EXPECT_TRUE (ordered) << s[i - 1].str () << " before " << s[i].str ();
    }
  }
  EXPECT_EQ (s.front (), (BlockShape { 32, 1 }));
  EXPECT_EQ (s.back (), (BlockShape { 1024, 1 }));
}

TEST (TuneSearchSpace, TimedShapesFollowDeviceAndKernelLimits)
{
  const DeviceDescription h = cudavision::h100_sxm ();
  KernelResources light;
  light.regs_per_thread = 32;
  const KernelTraits k = traits (true);

  /* Everything launches: the 63 shapes; the static (32x8) is one of them,
   * the model's 96x2 is added. */
  std::vector<BlockShape> t = timed_shapes (k, h, light, { 32, 8 }, { 96, 2 });
  EXPECT_EQ (t.size (), 64u);
  EXPECT_TRUE (contains (t, { 96, 2 }));
  EXPECT_TRUE (contains (t, { 32, 8 }));
  const auto it = std::find (t.begin (), t.end (), BlockShape { 96, 2 });
  EXPECT_EQ (it[-1], (BlockShape { 64, 3 })) << "kept in thread order";
  EXPECT_EQ (it[1], (BlockShape { 32, 7 }));

  /* A kernel limited to 256 threads (launch bounds): nothing larger. */
  KernelResources bounded = light;
  bounded.max_threads_per_block = 256;
  t = timed_shapes (k, h, bounded, { 32, 8 }, { 64, 4 });
  for (BlockShape b : t)
    EXPECT_LE (b.threads (), 256u) << b.str ();
  EXPECT_EQ (t.size (), 8u + 4u + 2u + 1u) << "32x1..32x8, 64x1..64x4, 128x1, 128x2, 256x1";

  /* 255 registers per thread: 65536 / (256 * 32 per warp) = 8 warps per
   * SM at most, so 256 threads; larger blocks cannot launch. */
  KernelResources heavy = light;
  heavy.regs_per_thread = 255;
  t = timed_shapes (k, h, heavy, { 32, 8 }, { 64, 4 });
  ASSERT_FALSE (t.empty ());
  for (BlockShape b : t)
    EXPECT_LE (b.threads (), 256u) << b.str ();
  EXPECT_TRUE (contains (t, { 256, 1 }));

  /* x-only kernels: Nx1 only. */
  t = timed_shapes (traits (false), h, light, { 256, 1 }, { 512, 1 });
  EXPECT_EQ (t.size (), 32u);
  for (BlockShape b : t)
    EXPECT_EQ (b.y, 1u);
}

TEST (TuneSizes, DefaultsAreThePapersTenPlusHdAndUhd)
{
  const std::vector<FrameSize> d = default_sizes ();
  ASSERT_EQ (d.size (), 12u);
  EXPECT_EQ (d.front (), (FrameSize { 100, 100 }));
  EXPECT_EQ (d[9], (FrameSize { 1024, 1280 }));
  EXPECT_EQ (d[10], (FrameSize { 1920, 1080 }));
  EXPECT_EQ (d.back (), (FrameSize { 3840, 2160 }));
  EXPECT_EQ (d[6].str (), "600x800");
}

TEST (TuneSizes, Parse)
{
  std::vector<FrameSize> s;
  std::string err;
  ASSERT_TRUE (parse_sizes ("640x480,1920x1080,640x480,,1x1", &s, &err)) << err;
  ASSERT_EQ (s.size (), 3u) << "duplicates and empty items dropped";
  EXPECT_EQ (s[0], (FrameSize { 640, 480 }));
  EXPECT_EQ (s[1], (FrameSize { 1920, 1080 }));
  EXPECT_EQ (s[2], (FrameSize { 1, 1 }));
  for (const char *bad : { "640", "640x", "x480", "0x480", "640x0", "20000x10", "64 0x480", "640x480x3", "-1x4",
           "" }) {
    std::vector<FrameSize> keep = s;
    EXPECT_FALSE (parse_sizes (bad, &keep, &err)) << bad;
    EXPECT_EQ (keep.size (), 3u) << "a failed parse leaves the list";
    EXPECT_FALSE (err.empty ());
  }
  parse_sizes ("640x480,12x", &s, &err);
  EXPECT_NE (err.find ("'12x'"), std::string::npos) << err;
}

TEST (TuneSelection, Globs)
{
  EXPECT_TRUE (kernel_selected ("", "gray.packed4"));
  EXPECT_TRUE (kernel_selected ("gray.*", "gray.packed4"));
  EXPECT_FALSE (kernel_selected ("gray.*", "blur.fused.c1.r2"));
  EXPECT_TRUE (kernel_selected ("blur.*.c1.*", "blur.rows.c1.r5"));
  EXPECT_FALSE (kernel_selected ("blur.*.c1.*", "blur.rows.c4.r5"));
  EXPECT_TRUE (kernel_selected ("otsu.*,gray.packed?", "gray.packed3"));
  EXPECT_TRUE (kernel_selected ("otsu.*,gray.packed?", "otsu.binarize"));
  EXPECT_FALSE (kernel_selected ("otsu.*,gray.packed?", "harris.normalize"));
  EXPECT_TRUE (kernel_selected ("gray.packed[34]", "gray.packed4"));
  EXPECT_FALSE (kernel_selected ("gray", "gray.packed4")) << "the whole name must match";
}

/* ---------------- the table: write, read back, resume ---------------- */

TEST (TuneTable, BestShapesAreWrittenAndReadBack)
{
  const DeviceDescription h = cudavision::h100_sxm ();
  std::vector<Measurement> ms = {
    meas ("gray.packed4", 1920, 1080, { 32, 8 }, { 128, 4 },
        { { { 32, 8 }, 14.0 }, { { 128, 4 }, 12.5 }, { { 64, 2 }, 11.75 }, { { 256, 1 }, 11.75 } }),
    meas ("harris.candidates", 1918, 1078, { 32, 8 }, { 64, 4 }, { { { 32, 8 }, 9.0 }, { { 64, 4 }, 10.0 } }),
    meas ("empty", 8, 8, { 32, 8 }, { 32, 1 }, {}),
  };
  TuningTable t;
  EXPECT_EQ (record_best (ms, h, &t), 2u) << "nothing timed, nothing written";
  auto e = t.lookup (h, "gray.packed4", 1920, 1080);
  ASSERT_TRUE (e.has_value ());
  EXPECT_EQ (e->block, (BlockShape { 64, 2 })) << "the fastest; the first of equal times";
  EXPECT_EQ (e->time_us, 11.75);
  EXPECT_EQ (e->driver_version, h.driver_version);
  /* keyed by the work size the launcher asks for, not the frame size */
  EXPECT_TRUE (t.lookup (h, "harris.candidates", 1918, 1078).has_value ());
  EXPECT_FALSE (t.lookup (h, "harris.candidates", 1920, 1080).has_value ());

  TempDir dir;
  const std::string file = (dir.path / "sub" / cudavision::tuning_file_name (h)).string ();
  std::string err;
  ASSERT_TRUE (t.save (file, &err)) << err;
  TuningTable back;
  ASSERT_TRUE (back.load (file, &err)) << err;
  ASSERT_EQ (back.size (), 2u);
  EXPECT_EQ (back.lookup (h, "gray.packed4", 1920, 1080)->block, (BlockShape { 64, 2 }));
  EXPECT_EQ (back.lookup (h, "harris.candidates", 1918, 1078)->time_us, 9.0);
  /* The elements' policy reads the same entry. */
  auto shared = std::make_shared<TuningTable> (back);
  cudavision::LaunchPolicy p (h, cudavision::BlockSizing::EmpiricalTable, {}, shared);
  KernelTraits k;
  k.name = "gray.packed4";
  const cudavision::LaunchConfig c = p.choose (k, KernelResources {}, 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 64, 2 }));
  EXPECT_STREQ (c.source, "table");
}

TEST (TuneTable, HeadroomKeepsTheRoomiestOfTheNearlyFastest)
{
  const DeviceDescription h = cudavision::h100_sxm ();
  /* a pass: two blocks an SM up to 682 threads, one above (the rounds'
   * registers) */
  auto room = [] (BlockShape b) { return (b.threads () <= 682 ? 2.0 : 1.0) * b.threads (); };
  Measurement m = meas ("facedetect.stages", 640, 480, { 256, 1 }, { 160, 1 },
      { { { 928, 1 }, 50.0 }, { { 256, 1 }, 51.0 }, { { 640, 1 }, 51.4 }, { { 672, 1 }, 51.6 },
          { { 1024, 1 }, 50.5 } });
  m.chosen = most_headroom (m, 0.03, room);
  ASSERT_GE (m.chosen, 0);
  EXPECT_EQ (m.best ()->block, (BlockShape { 640, 1 })) << "the most room within 3%; 672 is 3.2% slower";
  EXPECT_EQ (m.fastest ()->block, (BlockShape { 928, 1 }));
  EXPECT_EQ (most_headroom (m, 0.05, room), 3) << "within 5%: 672";
  EXPECT_EQ (most_headroom (m, 0.0, room), 0) << "no ties: the fastest";
  EXPECT_EQ (most_headroom (meas ("k", 8, 8, { 32, 1 }, { 32, 1 }, {}), 0.03, room), -1);
  TuningTable t;
  record_best ({ m }, h, &t);
  EXPECT_EQ (t.lookup (h, "facedetect.stages", 640, 480)->block, (BlockShape { 640, 1 }))
      << "the table keeps the choice";
  /* the report measures the model against the fastest, not the choice */
  const std::vector<ReportRow> rows = report_rows ({ m });
  ASSERT_EQ (rows.size (), 1u);
  EXPECT_EQ (rows[0].best_t.block, (BlockShape { 928, 1 }));
}

TEST (TuneTable, ResumeKeepsOthersAndReplacesWhatIsMeasuredAgain)
{
  const DeviceDescription h = cudavision::h100_sxm ();
  const DeviceDescription g = cudavision::gtx_1650_ti ();
  TempDir dir;
  const std::string file = (dir.path / "t.tsv").string ();
  std::string err;

  /* A first run on the H100 (two sizes), and an entry of another GPU. */
  TuningTable first;
  record_best ({ meas ("gray.packed4", 640, 480, { 32, 8 }, { 64, 1 }, { { { 32, 8 }, 5.0 }, { { 64, 1 }, 4.0 } }),
                   meas ("gray.packed4", 1920, 1080, { 32, 8 }, { 128, 4 }, { { { 32, 8 }, 14.0 } }) },
      h, &first);
  record_best ({ meas ("gray.packed4", 640, 480, { 32, 8 }, { 128, 2 }, { { { 128, 2 }, 30.0 } }) }, g, &first);
  ASSERT_TRUE (first.save (file, &err)) << err;

  /* --resume: what the file has for this GPU is skipped... */
  TuningTable second;
  ASSERT_TRUE (second.load (file, &err)) << err;
  EXPECT_TRUE (already_tuned (second, h, "gray.packed4", 640, 480));
  EXPECT_TRUE (already_tuned (second, h, "gray.packed4", 1920, 1080));
  EXPECT_FALSE (already_tuned (second, h, "gray.packed4", 3840, 2160));
  EXPECT_FALSE (already_tuned (second, h, "gray.packed3", 640, 480));
  DeviceDescription cut = h;
  cut.sm_count = 114;  /* the PCIe part: another GPU */
  EXPECT_FALSE (already_tuned (second, cut, "gray.packed4", 640, 480));

  /* ...and a new size and a re-measured one are merged in. */
  record_best ({ meas ("gray.packed4", 3840, 2160, { 32, 8 }, { 256, 2 }, { { { 256, 2 }, 40.0 } }),
                   meas ("gray.packed4", 1920, 1080, { 32, 8 }, { 128, 4 }, { { { 128, 4 }, 12.0 } }) },
      h, &second);
  ASSERT_TRUE (second.save (file, &err)) << err;

  TuningTable after;
  ASSERT_TRUE (after.load (file, &err)) << err;
  EXPECT_EQ (after.size (), 4u) << "the union";
  EXPECT_EQ (after.lookup (h, "gray.packed4", 640, 480)->block, (BlockShape { 64, 1 })) << "kept";
  EXPECT_EQ (after.lookup (h, "gray.packed4", 1920, 1080)->block, (BlockShape { 128, 4 })) << "replaced";
  EXPECT_EQ (after.lookup (h, "gray.packed4", 1920, 1080)->time_us, 12.0);
  EXPECT_EQ (after.lookup (h, "gray.packed4", 3840, 2160)->block, (BlockShape { 256, 2 })) << "added";
  EXPECT_EQ (after.lookup (g, "gray.packed4", 640, 480)->block, (BlockShape { 128, 2 })) << "other GPU kept";
}

/* ---------------- the report ---------------- */

namespace {

std::vector<Measurement>
two_kernels ()
{
  return {
    meas ("gray.packed4", 1920, 1080, { 32, 8 }, { 128, 4 },
        { { { 32, 1 }, 30.0 }, { { 32, 8 }, 12.0 }, { { 64, 4 }, 10.0 }, { { 128, 4 }, 10.5 }, { { 256, 1 }, 11.0 } }),
    meas ("gray.packed4", 640, 480, { 32, 8 }, { 64, 1 }, { { { 64, 1 }, 4.0 }, { { 32, 8 }, 4.4 } }),
    meas ("blur.fused.c1.r2", 640, 480, { 32, 8 }, { 96, 2 }, { { { 32, 8 }, 8.0 }, { { 96, 2 }, 8.0 } }),
  };
}

}  // namespace

TEST (TuneReport, RowsAndGaps)
{
  const std::vector<ReportRow> rows = report_rows (two_kernels ());
  ASSERT_EQ (rows.size (), 3u);
  /* by kernel, then by frame area */
  EXPECT_EQ (rows[0].kernel, "blur.fused.c1.r2");
  EXPECT_EQ (rows[1].width, 640);
  EXPECT_EQ (rows[2].width, 1920);
  const ReportRow & r = rows[2];
  EXPECT_EQ (r.best_t.block, (BlockShape { 64, 4 }));
  EXPECT_EQ (r.static_t.block, (BlockShape { 32, 8 }));
  EXPECT_EQ (r.model_t.block, (BlockShape { 128, 4 }));
  EXPECT_NEAR (r.model_gap (), 0.05, 1e-12);
  EXPECT_NEAR (r.static_gap (), 0.2, 1e-12);
  EXPECT_EQ (rows[0].model_gap (), 0.0) << "a model shape as fast as the best";
  EXPECT_NEAR (geomean ({ 1.05, 1.1, 1.0 }), std::cbrt (1.05 * 1.1), 1e-12);
  EXPECT_EQ (geomean ({}), 0.0);
}

TEST (TuneReport, CsvIsExact)
{
  const std::string csv = report_csv (report_rows (two_kernels ()));
  EXPECT_EQ (csv,
      "kernel,width,height,static_block,static_us,best_block,best_us,model_block,model_us,model_gap_pct,"
      "static_gap_pct\n"
      "blur.fused.c1.r2,640,480,32x8,8.00,32x8,8.00,96x2,8.00,0.00,0.00\n"
      "gray.packed4,640,480,32x8,4.40,64x1,4.00,64x1,4.00,0.00,10.00\n"
      "gray.packed4,1920,1080,32x8,12.00,64x4,10.00,128x4,10.50,5.00,20.00\n");
  const std::string samples = samples_csv (two_kernels ());
  EXPECT_EQ (std::count (samples.begin (), samples.end (), '\n'), 1 + 5 + 2 + 2);
  EXPECT_NE (samples.find ("gray.packed4,1920,1080,128x4,512,10.50,10.29,11.55,0,1\n"), std::string::npos) << samples;
}

TEST (TuneReport, MarkdownHasSummaryAndATablePerKernel)
{
  const std::string md = report_markdown (report_rows (two_kernels ()), { "GPU: test GPU" });
  EXPECT_NE (md.find ("GPU: test GPU"), std::string::npos);
  EXPECT_NE (md.find ("## blur.fused.c1.r2"), std::string::npos);
  EXPECT_NE (md.find ("## gray.packed4"), std::string::npos);
  EXPECT_NE (md.find ("| 1920x1080 | 32x8 | 12.00 | 64x4 | 10.00 | 128x4 | 10.50 | +5.0% | +20.0% |"),
      std::string::npos) << md;
  /* gray: static/best = 1.1 and 1.2, model/best = 1.0 and 1.05 */
  char line[256];
  std::snprintf (line, sizeof line, "| gray.packed4 | 2 | %.3f | %.3f | +5.0%% | 2 / 2 |", std::sqrt (1.1 * 1.2),
      std::sqrt (1.05));
  EXPECT_NE (md.find (line), std::string::npos) << line << "\n" << md;
  std::snprintf (line, sizeof line, "geometric mean over kernels and sizes: %.3f", std::cbrt (1.05));
  EXPECT_NE (md.find (line), std::string::npos) << md;
}

TEST (TuneReport, PlotInputs)
{
  const auto files = plot_files (two_kernels ());
  ASSERT_EQ (files.count ("plot.gp"), 1u);
  ASSERT_EQ (files.count ("data/gray.packed4.dat"), 1u);
  ASSERT_EQ (files.count ("data/blur.fused.c1.r2.dat"), 1u);
  const std::string & gp = files.at ("plot.gp");
  EXPECT_NE (gp.find ("set terminal pngcairo"), std::string::npos);
  EXPECT_NE (gp.find ("set output 'gray.packed4.png'"), std::string::npos);
  EXPECT_NE (gp.find ("set output 'gray.packed4.relative.png'"), std::string::npos);
  EXPECT_NE (gp.find ("'data/gray.packed4.dat' index 1 using 1:2 with linespoints title '1920x1080'"),
      std::string::npos) << gp;
  /* One block per size, smallest first, separated by two blank lines (a
   * gnuplot index); the best shape of each thread count (256: 64x4). */
  const std::string & dat = files.at ("data/gray.packed4.dat");
  EXPECT_NE (dat.find ("# 640x480\n64 4.00 1.0000 64x1\n256 4.40 1.1000 32x8\n\n\n# 1920x1080\n"), std::string::npos)
      << dat;
  EXPECT_NE (dat.find ("\n32 30.00 3.0000 32x1\n256 10.00 1.0000 64x4\n512 10.50 1.0500 128x4\n"), std::string::npos)
      << dat;

  TempDir dir;
  std::string err;
  ASSERT_TRUE (write_files (dir.path.string (), files, &err)) << err;
  EXPECT_EQ (slurp (dir.path / "data" / "gray.packed4.dat"), dat);
}

/* ---------------- progress ---------------- */

namespace {

/* What was written to a tmpfile. */
std::string
read_and_close (std::FILE * f)
{
  std::rewind (f);
  std::string out;
  char buf[256];
  size_t n;
  while ((n = std::fread (buf, 1, sizeof buf, f)) > 0)
    out.append (buf, n);
  std::fclose (f);
  return out;
}

}  // namespace

TEST (TuneProgress, Formatting)
{
  EXPECT_EQ (format_duration (0.42), "0.4s");
  EXPECT_EQ (format_duration (12.4), "12s");
  EXPECT_EQ (format_duration (65), "1m05s");
  EXPECT_EQ (format_duration (7380), "2h03m");
  EXPECT_EQ (format_bar (0, 200, 0, "gray.packed4 640x480", 10), "[----------]   0% 0/200  gray.packed4 640x480");
  EXPECT_EQ (format_bar (50, 200, 10, "x", 10), "[##--------]  25% 50/200  ETA 30s  x");
  EXPECT_EQ (format_bar (200, 200, 10, "", 10), "[##########] 100% 200/200");
  EXPECT_EQ (format_bar (300, 200, 10, "", 4), "[####] 100% 200/200") << "never past the end";
  EXPECT_EQ (format_status (100, 400, 5), "[ 25%, ETA 15s]");
  EXPECT_EQ (format_status (400, 400, 5), "[100%]");
}

TEST (TuneProgress, PlainLinesWithoutATerminal)
{
  std::FILE *f = std::tmpfile ();
  ASSERT_NE (f, nullptr);
  {
    Progress p (10, false, f);
    p.advance (3, "a");
    p.advance (2, "b");
    p.message ("gray.packed4 640x480: best 64x1", true);
    p.message ("note");
    p.set_total (20);
    EXPECT_EQ (p.total (), 20u);
    p.set_total (1);
    EXPECT_EQ (p.total (), 5u) << "never below what is done";
    p.finish ();
  }
  const std::string out = read_and_close (f);
  /* no bar, no escape codes: just the lines */
  EXPECT_EQ (out.find ('\r'), std::string::npos) << out;
  EXPECT_EQ (out.find ('\033'), std::string::npos) << out;
  EXPECT_EQ (out.rfind ("gray.packed4 640x480: best 64x1  [ 50%", 0), 0u) << out;
  EXPECT_NE (out.find ("]\nnote\n"), std::string::npos) << out;
}

TEST (TuneProgress, BarOnATerminal)
{
  std::FILE *f = std::tmpfile ();
  ASSERT_NE (f, nullptr);
  {
    Progress p (4, true, f);
    p.advance (1, "k 640x480 32x8");
    p.message ("line");
    p.finish ();
  }
  const std::string out = read_and_close (f);
  EXPECT_NE (out.find ("\r[#######"), std::string::npos) << out;
  EXPECT_NE (out.find ("25% 1/4"), std::string::npos) << out;
  EXPECT_NE (out.find ("\r\033[Kline\n"), std::string::npos) << "a message clears the bar first";
}

/* ---- samples.csv read back (cudavision-model-eval) ---- */

TEST (Samples, ParsesGroupsBestStaticAndModel)
{
  std::istringstream in (
      "kernel,width,height,block,threads,median_us,p10_us,p90_us,is_static,is_model\n"
      "k.a,100,100,32x1,32,6.59,6.40,7.71,0,0\n"
      "k.a,100,100,32x2,64,6.34,5.76,7.42,0,1\n"
      "k.a,100,100,32x8,256,5.22,5.0,5.5,1,0\r\n"
      "k.b,640,480,256,256,4.00,3.9,4.1,1,1\n"
      "k.a,200,100,32x8,256,7.00,6.9,7.1,1,0\n");
  std::vector<SampleGroup> g;
  std::string err;
  ASSERT_TRUE (parse_samples (in, &g, &err)) << err;
  ASSERT_EQ (g.size (), 3u);
  EXPECT_EQ (g[0].kernel, "k.a");
  EXPECT_EQ (g[0].width, 100);
  EXPECT_EQ (g[0].times.size (), 3u);
  EXPECT_DOUBLE_EQ (g[0].best_us (), 5.22);
  EXPECT_EQ (g[0].best_block (), (BlockShape { 32, 8 }));
  EXPECT_EQ (g[0].static_block, (BlockShape { 32, 8 }));
  EXPECT_EQ (g[0].model_block, (BlockShape { 32, 2 }));
  EXPECT_DOUBLE_EQ (g[0].time_of ({ 32, 1 }), 6.59);
  EXPECT_LT (g[0].time_of ({ 64, 4 }), 0);  /* not measured */
  EXPECT_EQ (g[1].static_block, (BlockShape { 256, 1 }));
  EXPECT_EQ (g[2].width, 200);
}

TEST (Samples, CrossRatioIsTheOtherRunsBestTimedInThisRun)
{
  std::istringstream a (
      "kernel,width,height,block,median_us\n"
      "k,100,100,32x1,5.0\nk,100,100,32x8,4.0\nk,100,100,64x4,4.4\n"
      "k,200,100,32x8,7.0\n");
  std::istringstream b (
      "kernel,width,height,block,median_us\n"
      "k,100,100,32x1,6.0\nk,100,100,32x8,5.5\nk,100,100,64x4,5.0\n"
      "k,200,100,128x1,3.0\n");
  std::vector<SampleGroup> ra, rb;
  std::string err;
  ASSERT_TRUE (parse_samples (a, &ra, &err)) << err;
  ASSERT_TRUE (parse_samples (b, &rb, &err)) << err;
  /* b's best at 100x100 is 64x4, which took 4.4 us in a (best 4.0). */
  EXPECT_DOUBLE_EQ (cross_ratio (ra[0], rb[0]), 4.4 / 4.0);
  /* a's best is 32x8, 5.5 us in b (best 5.0). */
  EXPECT_DOUBLE_EQ (cross_ratio (rb[0], ra[0]), 5.5 / 5.0);
  EXPECT_DOUBLE_EQ (cross_ratio (ra[0], ra[0]), 1.0);
  /* b's best at 200x100 was never timed in a; other sizes do not match. */
  EXPECT_LT (cross_ratio (ra[1], rb[1]), 0);
  EXPECT_LT (cross_ratio (ra[0], rb[1]), 0);
}

TEST (Samples, RejectsMalformedRows)
{
  std::vector<SampleGroup> g;
  std::string err;
  std::istringstream no_header ("a,b,c\n");
  EXPECT_FALSE (parse_samples (no_header, &g, &err));
  std::istringstream bad_block ("kernel,width,height,block,median_us\nk,10,10,32y8,1.0\n");
  EXPECT_FALSE (parse_samples (bad_block, &g, &err));
  EXPECT_NE (err.find ("line 2"), std::string::npos) << err;
  std::istringstream bad_time ("kernel,width,height,block,median_us\nk,10,10,32x8,fast\n");
  EXPECT_FALSE (parse_samples (bad_time, &g, &err));
  std::istringstream short_row ("kernel,width,height,block,median_us\nk,10,10\n");
  EXPECT_FALSE (parse_samples (short_row, &g, &err));
}

TEST (Samples, RatioSummary)
{
  RatioSummary r;
  r.add (1.0);
  r.add (1.05);
  r.add (1.21);
  EXPECT_EQ (r.count, 3);
  EXPECT_EQ (r.within, 2);
  EXPECT_NEAR (r.geomean (), std::cbrt (1.0 * 1.05 * 1.21), 1e-12);
  EXPECT_DOUBLE_EQ (r.worst, 1.21);
}

/* ---- the registry: every kernel of every element ---- */

namespace {

/* Every kernel the launchers in cuda/ declare traits for, as the elements
 * launch them. A kernel added to a launcher belongs here too; without a
 * tunable the next test fails. */
std::vector<const KernelTraits *>
declared_kernels ()
{
  using namespace cudavision;
  std::vector<const KernelTraits *> k = { &gray_packed4_traits (), &gray_packed3_traits () };
  /* blur: the radius classes tunables_blur.cpp registers, the element's
   * default (ksize 11 from sigma 1.5) and the examples' 5x5, sigma 1.1 */
  for (auto [ksize, sigma] : { std::pair<int, double> { 5, 1.1 }, { 11, 1.5 } }) {
    const int radius = make_blur_taps (ksize, ksize, sigma, sigma).radius_x ();
    for (int channels : { 1, 4 })
      k.insert (k.end (), { &blur_fused_traits (channels, radius), &blur_rows_traits (channels, radius),
                              &blur_columns_traits (channels, radius) });
    if (radius <= 4) /* GRAY8, radius classes up to 4 (blur_direct.h) */
      k.push_back (&blur_direct_traits (radius));
  }
  k.insert (k.end (), { &otsu_histogram_traits (), &otsu_binarize_traits () });
  k.insert (k.end (),
      { &harris_response_traits (), &harris_candidates_traits (), &harris_normalize_traits (), &harris_draw_traits () });
  k.insert (k.end (),
      { &canny_tile_traits (), &canny_merge_traits (), &canny_weak_traits (), &canny_histogram_traits (),
          &canny_median_traits () });
  k.insert (k.end (), { &flow_input_traits (), &flow_pyrdown_traits (), &flow_scharr_traits (), &flow_lk_traits (), &flow_color_traits (),
                          &flow_draw_traits () });
  k.insert (k.end (), { &facedetect_tiles_traits (), &facedetect_carries_traits (), &facedetect_integral_traits (),
                          &facedetect_cascade_traits (),
                          &facedetect_stages_traits (), &facedetect_deep_traits (), &facedetect_group_traits (),
                          &facedetect_draw_traits (), &facedetect_input_traits () });
  return k;
}

const Tunable *
registered (const std::string & name)
{
  for (const Tunable & t : tunables ())
    if (t.name == name)
      return &t;
  return nullptr;
}

}  // namespace

TEST (TuneRegistry, EveryKernelTheLaunchersDeclareIsRegistered)
{
  std::map<std::string, const Tunable *> reg;
  for (const Tunable & t : tunables ()) {
    ASSERT_NE (t.traits, nullptr) << t.name;
    EXPECT_EQ (t.name, t.traits->name) << "registered under another name than its traits'";
    EXPECT_TRUE ((bool) t.launch) << t.name << " has no launch function";
    EXPECT_TRUE (reg.emplace (t.name, &t).second) << t.name << " is registered twice";
  }
  const std::vector<const KernelTraits *> declared = declared_kernels ();
  std::set<std::string> names;
  for (const KernelTraits *k : declared) {
    EXPECT_TRUE (names.insert (k->name).second) << "two launchers declare " << k->name;
    const auto it = reg.find (k->name);
    if (it == reg.end ()) {
      ADD_FAILURE () << k->name << " is launched by an element but has no tunable (tools/tune/tunables_*.cpp)";
      continue;
    }
    EXPECT_EQ (it->second->traits, k) << k->name << ": registered with other traits than its launcher's";
  }
  for (const auto & [name, t] : reg)
    EXPECT_EQ (names.count (name), 1u) << name << " is registered, but declared_kernels () does not know it";
  for (const char *n : { "canny.tile", "canny.merge", "canny.weak", "canny.histogram", "canny.median" })
    EXPECT_EQ (names.count (n), 1u) << n << ": missing from declared_kernels ()";
  EXPECT_EQ (declared.size (), 2u + 13u + 2u + 4u + 5u + 6u + 9u);

  /* The fixed shapes (shared-memory tiles, one warp, the direct blur's
   * shuffle segments) are listed and skipped; every other kernel is
   * measured. */
  std::set<std::string> fixed;
  for (const auto & [name, t] : reg)
    if (t->traits->fixed_block)
      fixed.insert (name);
  EXPECT_EQ (fixed, (std::set<std::string> { "blur.direct.c1.r2", "canny.median", "canny.tile", "canny.weak",
                        "harris.response", "otsu.histogram" }));
}

TEST (TuneLevels, FlowPyramid)
{
  using V = std::vector<FrameSize>;
  /* window 21, max-level 3: 640x480 has levels 1..3 */
  EXPECT_EQ (flow_level_sizes ({ { 640, 480 } }, false), (V { { 640, 480 }, { 320, 240 }, { 160, 120 }, { 80, 60 } }));
  EXPECT_EQ (flow_level_sizes ({ { 640, 480 } }, true), (V { { 640, 480 }, { 320, 240 }, { 160, 120 } }));
  /* 100x100: 50 and 25 are larger than the window, 13 is not */
  EXPECT_EQ (flow_level_sizes ({ { 100, 100 } }, false), (V { { 100, 100 }, { 50, 50 }, { 25, 25 } }));
  /* halves round up, as pyrDown's; a level of two frames is listed once */
  EXPECT_EQ (flow_level_sizes ({ { 202, 150 }, { 101, 75 } }, false), (V { { 202, 150 }, { 101, 75 }, { 51, 38 } }));
  EXPECT_EQ (flow_level_sizes ({ { 202, 150 }, { 101, 75 } }, true), (V { { 202, 150 }, { 101, 75 } }));
  /* no level 1: scharr on the frame, no pyrdown */
  EXPECT_EQ (flow_level_sizes ({ { 40, 40 } }, false), (V { { 40, 40 } }));
  EXPECT_TRUE (flow_level_sizes ({ { 40, 40 } }, true).empty ());

  /* the registered kernels measure those */
  const std::vector<FrameSize> sizes = default_sizes ();
  const Tunable *pyrdown = registered ("flow.pyrdown"), *scharr = registered ("flow.scharr");
  ASSERT_TRUE (pyrdown && pyrdown->expand_sizes);
  ASSERT_TRUE (scharr && scharr->expand_sizes);
  EXPECT_EQ (pyrdown->expand_sizes (sizes), flow_level_sizes (sizes, true));
  EXPECT_EQ (scharr->expand_sizes (sizes), flow_level_sizes (sizes, false));
  for (const char *n : { "flow.lk", "flow.color", "flow.draw" }) {
    ASSERT_NE (registered (n), nullptr) << n;
    EXPECT_FALSE (registered (n)->expand_sizes) << n << " runs once per frame";
  }
}

/* The face rounds and the deep kernel are timed with the first kernel at
 * its tuned shape (their lists' order follows its blocks; the default
 * schedule launches no round, so the deep kernel reads the first kernel's
 * list), so the runner measures them after it; a cycle keeps the order
 * given. */
TEST (TuneOrder, KernelsComeAfterThoseTheyAreTunedWith)
{
  const Tunable *stages = registered ("facedetect.stages"), *deep = registered ("facedetect.deep");
  const Tunable *cascade = registered ("facedetect.cascade"), *group = registered ("facedetect.group");
  ASSERT_TRUE (stages && deep && cascade && group);
  EXPECT_EQ (stages->tuned_with, std::vector<std::string> ({ "facedetect.cascade" }));
  EXPECT_EQ (deep->tuned_with, std::vector<std::string> ({ "facedetect.cascade" }));
  /* given deep and group before the kernel they are timed with */
  const std::vector<const Tunable *> order = tuning_order ({ deep, group, cascade, stages });
  EXPECT_EQ (order, (std::vector<const Tunable *> { group, cascade, deep, stages }));
  /* a kernel whose dependencies are not selected keeps its place */
  EXPECT_EQ (tuning_order ({ deep, group }), (std::vector<const Tunable *> { deep, group }));
  Tunable a, b;
  a.name = "a";
  b.name = "b";
  a.tuned_with = { "b" };
  b.tuned_with = { "a" };
  EXPECT_EQ (tuning_order ({ &a, &b }), (std::vector<const Tunable *> { &a, &b }));
}

/* The face kernels cover the whole pyramid in one launch: measured at the
 * run's frame sizes, not per level; without the default cascade they say
 * why and are skipped. */
TEST (TuneLevels, FaceKernelsAreMeasuredPerFrame)
{
  for (const char *n : { "facedetect.tiles", "facedetect.carries", "facedetect.integral", "facedetect.cascade",
           "facedetect.stages", "facedetect.deep", "facedetect.group" }) {
    const Tunable *t = registered (n);
    ASSERT_TRUE (t && t->unavailable) << n;
    EXPECT_FALSE (t->expand_sizes) << n << " runs once per frame (batch)";
    const std::string why = t->unavailable ();
    if (!why.empty ()) {
      EXPECT_NE (why.find ("haarcascade_frontalface_default.xml"), std::string::npos) << why;
    }
  }
  const Tunable *draw = registered ("facedetect.draw");
  ASSERT_NE (draw, nullptr);
  EXPECT_FALSE (draw->expand_sizes) << "the boxes are drawn once per frame";
  EXPECT_FALSE (draw->unavailable && !draw->unavailable ().empty ()) << "drawing needs no cascade";
}

TEST (TuneList, WorksWithoutAGpuAndShowsEveryKernel)
{
  std::string out;
  ASSERT_EQ (cvtest::run_tuner ({ "--list" }, &out), 0) << out;
  std::map<std::string, std::string> lines;
  std::istringstream in (out);
  std::string line;
  while (std::getline (in, line))
    lines[line.substr (0, line.find (' '))] = line;
  for (const Tunable & t : tunables ()) {
    ASSERT_EQ (lines.count (t.name), 1u) << t.name << " missing from --list:\n" << out;
    const std::string & l = lines[t.name];
    EXPECT_EQ (l.find ("fixed block: not tuned") != std::string::npos, t.traits->fixed_block) << l;
    EXPECT_NE (l.find (t.traits->static_block.str ()), std::string::npos) << l;
  }
  EXPECT_NE (lines["facedetect.cascade"].find ("every pyramid level in one launch"), std::string::npos) << out;
  EXPECT_NE (lines["flow.lk"].find ("8x8 cell"), std::string::npos) << out;
  EXPECT_EQ (lines.size (), tunables ().size () + 1) << "a header, then one line a kernel:\n" << out;
}
