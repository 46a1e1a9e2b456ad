/* cudavision-tune — measures the block shapes of every registered kernel on
 * this GPU and writes the table that block-sizing=empirical-table reads
 * (docs/BLOCK-SIZING.md).
 *
 *   cudavision-tune [--sizes WxH,...] [--kernels GLOB,...] [--output FILE]
 *                   [--resume] [--report DIR] [--warmup N] [--iters N]
 *                   [--device N] [--list]
 */
#include "runner.h"

#include "../../bench/bench_util.h"
#include "../../cuda/common/device_info.h"

#include <glib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace cvtune;

static void
usage (FILE *out, const char *argv0)
{
  std::fprintf (out,
      "usage: %s [options]\n"
      "Times every registered kernel over its block shapes and writes the tuning table.\n\n"
      "  --sizes WxH,...     frame sizes (default: 100x100,320x240,480x240,512x512,640x480,\n"
      "                      720x480,600x800,1280x720,1024x1024,1024x1280,1920x1080,3840x2160)\n"
      "  --kernels GLOB,...  kernels to tune, shell globs on their names (default: all; see --list)\n"
      "  --output FILE       the table to write or extend (default: the file the elements read,\n"
      "                      $XDG_CACHE_HOME/cudavision/<GPU name>.tsv)\n"
      "  --resume            keep the entries FILE has for this GPU; measure only the others\n"
      "  --report DIR        write report.md, report.csv, samples.csv and the gnuplot inputs;\n"
      "                      render the plots with tools/tune/plot.sh DIR\n"
      "  --warmup N          untimed launches per shape (default 3)\n"
      "  --iters N           timed launches per shape, the median is kept (default 15)\n"
      "  --device N          CUDA device (default 0)\n"
      "  --list              list the registered kernels and exit\n",
      argv0);
}

static void
list ()
{
  std::printf ("%-24s %-8s %-6s %s\n", "kernel", "static", "shape", "notes");
  for (const Tunable & t : tunables ()) {
    std::string note = t.traits->fixed_block ? "fixed block: not tuned" : "";
    const std::string why = t.unavailable ? t.unavailable () : std::string ();
    if (!why.empty ())
      note += (note.empty () ? "" : "; ") + ("not measured: " + why);
    if (!t.note.empty ())
      note += (note.empty () ? "" : "; ") + t.note;
    std::printf ("%-24s %-8s %-6s %s\n", t.name.c_str (), t.traits->static_block.str ().c_str (),
        t.traits->two_d ? "2D" : "x-only", note.c_str ());
  }
}

static bool
positive (const char *s, int *out)
{
  char *end = nullptr;
  const long v = std::strtol (s, &end, 10);
  if (!*s || *end || v <= 0 || v > 100000)
    return false;
  *out = (int) v;
  return true;
}

int
main (int argc, char **argv)
{
  TuneOptions opt;
  std::string output, report;
  int device = 0;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    std::string err;
    if (a == "--sizes" && has_value) {
      if (!parse_sizes (argv[++i], &opt.sizes, &err)) {
        std::fprintf (stderr, "--sizes: %s\n", err.c_str ());
        return 2;
      }
    } else if (a == "--kernels" && has_value) {
      opt.kernels = argv[++i];
    } else if (a == "--output" && has_value) {
      output = argv[++i];
    } else if (a == "--report" && has_value) {
      report = argv[++i];
    } else if (a == "--resume") {
      opt.resume = true;
    } else if ((a == "--warmup" || a == "--iters" || a == "--device") && has_value) {
      int v = 0;
      if (!positive (argv[++i], &v) && !(a != "--iters" && std::strcmp (argv[i], "0") == 0)) {
        std::fprintf (stderr, "%s: expected a number, got '%s'\n", a.c_str (), argv[i]);
        return 2;
      }
      (a == "--warmup" ? opt.warmup : a == "--iters" ? opt.iters : device) = v;
    } else if (a == "--list") {
      list ();
      return 0;
    } else if (a == "--help" || a == "-h") {
      usage (stdout, argv[0]);
      return 0;
    } else {
      std::fprintf (stderr, "unknown or incomplete option '%s'\n", a.c_str ());
      usage (stderr, argv[0]);
      return 2;
    }
  }
  if (selected_tunables (opt).empty ()) {
    std::fprintf (stderr, "--kernels '%s' selects no kernel (see --list)\n", opt.kernels.c_str ());
    return 2;
  }

  const auto t0 = std::chrono::steady_clock::now ();
  if (cudavision::cuda_device_count () == 0) {
    std::fprintf (stderr, "cudavision-tune: no CUDA device\n");
    return 1;
  }
  cvbench::check (cudaSetDevice (device), "cudaSetDevice");
  cudavision::DeviceDescription dev;
  cvbench::check (cudavision::query_current_device (&dev).err, "device properties");
  cudavision::Stream stream;
  cvbench::check (stream.create ().err, "stream");

  if (output.empty ()) {
    gchar *p = g_build_filename (g_get_user_cache_dir (), "cudavision", cudavision::tuning_file_name (dev).c_str (),
        nullptr);
    output = p;
    g_free (p);
  }
  /* Extend what is there: entries of other GPUs and sizes stay. A file that
   * does not parse is not overwritten. */
  cudavision::TuningTable table;
  std::string err;
  if (g_file_test (output.c_str (), G_FILE_TEST_EXISTS) && !table.load (output, &err)) {
    std::fprintf (stderr, "cudavision-tune: %s\n(fix or move the file; it is not overwritten)\n", err.c_str ());
    return 1;
  }
  const size_t before = table.size ();

  std::printf ("cudavision-tune: %s, CC %d.%d, %d SMs, driver %d\n", dev.name.c_str (), dev.cc_major, dev.cc_minor,
      dev.sm_count, dev.driver_version);
  std::printf ("table %s (%zu entries)%s; %zu sizes; %d warm-up + %d timed launches per shape\n", output.c_str (),
      before, opt.resume ? ", resuming" : "", opt.sizes.size (), opt.warmup, opt.iters);
  std::fflush (stdout);

  Progress progress (0, isatty (fileno (stdout)) != 0);
  TuneRun run;
  auto save = [&] {
    std::string e;
    if (!table.save (output, &e)) {
      std::fprintf (stderr, "cudavision-tune: %s\n", e.c_str ());
      return false;
    }
    return true;
  };
  const bool ok = run_tuning (opt, dev, stream.get (), table, progress, &run, save, &err);
  progress.finish ();
  if (!ok) {
    std::fprintf (stderr, "cudavision-tune: %s\n", err.c_str ());
    return 1;
  }
  if (!save ())
    return 1;

  const double measured_s = progress.elapsed_s ();
  std::printf ("%zu kernel sizes, %zu shapes timed in %.1f s; table %s: %zu entries (%zu before)\n",
      run.measured.size (), run.shapes_timed, measured_s, output.c_str (), table.size (), before);

  if (!report.empty ()) {
    std::vector<std::string> header = {
      "GPU: " + dev.name + ", CC " + std::to_string (dev.cc_major) + "." + std::to_string (dev.cc_minor) + ", " +
          std::to_string (dev.sm_count) + " SMs, driver " + std::to_string (dev.driver_version),
      "Each shape: " + std::to_string (opt.warmup) + " warm-up launches, then the median of " +
          std::to_string (opt.iters) + " CUDA-event timings on random frames rotated through 3x the L2 cache",
    };
    for (const Tunable *t : selected_tunables (opt))
      if (!t->note.empty ())
        header.push_back ("Kernel " + t->name + ": " + t->note);
    for (const auto & n : run.notes)
      header.push_back ("Note: " + n);
    const std::vector<ReportRow> rows = report_rows (run.measured);
    std::map<std::string, std::string> files = plot_files (run.measured);
    files["report.md"] = report_markdown (rows, header);
    files["report.csv"] = report_csv (rows);
    files["samples.csv"] = samples_csv (run.measured);
    if (!write_files (report, files, &err)) {
      std::fprintf (stderr, "cudavision-tune: report: %s\n", err.c_str ());
      return 1;
    }
    std::printf ("report: %s/report.md (plots: tools/tune/plot.sh %s)\n", report.c_str (), report.c_str ());
  }
  const double total_s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  std::printf ("total time %.1f s\n", total_s);
  return 0;
}
