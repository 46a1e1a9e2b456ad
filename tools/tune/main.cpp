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

/* An integer option within [lo, 100000]; GOption has parsed the number. */
static bool
in_range (const char *name, int v, int lo)
{
  if (v >= lo && v <= 100000)
    return true;
  std::fprintf (stderr, "--%s: %d is out of range (%d to 100000)\n", name, v, lo);
  return false;
}

int
main (int argc, char **argv)
{
  TuneOptions opt;
  g_autofree gchar *sizes = nullptr, *kernels = nullptr, *output_opt = nullptr, *report_opt = nullptr;
  gboolean resume = FALSE, list_only = FALSE;
  int device = 0;
  const GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
      "frame sizes (default: 100x100,320x240,480x240,512x512,640x480,720x480,600x800,1280x720,1024x1024,"
      "1024x1280,1920x1080,3840x2160)", "WxH,..." },
    { "kernels", 0, 0, G_OPTION_ARG_STRING, &kernels,
      "kernels to tune, shell globs on their names (default: all; see --list)", "GLOB,..." },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &output_opt,
      "the table to write or extend (default: the file the elements read, "
      "$XDG_CACHE_HOME/cudavision/<GPU name>.tsv)", "FILE" },
    { "resume", 0, 0, G_OPTION_ARG_NONE, &resume, "keep the entries FILE has for this GPU; measure only the others",
      nullptr },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_opt,
      "write report.md, report.csv, samples.csv and the gnuplot inputs; render the plots with "
      "tools/tune/plot.sh DIR", "DIR" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &opt.warmup, "untimed launches per shape (default 3)", "N" },
    { "iters", 0, 0, G_OPTION_ARG_INT, &opt.iters, "timed launches per shape, the median is kept (default 15)", "N" },
    { "device", 0, 0, G_OPTION_ARG_INT, &device, "CUDA device (default 0)", "N" },
    { "list", 0, 0, G_OPTION_ARG_NONE, &list_only, "list the registered kernels and exit", nullptr },
    { nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr },  /* G_OPTION_ENTRY_NULL is C only */
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (nullptr);
  g_option_context_set_summary (ctx,
      "Times every registered kernel over its block shapes and writes the tuning table\n"
      "that block-sizing=empirical-table reads (docs/BLOCK-SIZING.md).");
  g_option_context_add_main_entries (ctx, entries, nullptr);
  g_autoptr (GError) gerr = nullptr;
  if (!g_option_context_parse (ctx, &argc, &argv, &gerr) || argc > 1) {
    std::fprintf (stderr, "%s: %s (see --help)\n", g_get_prgname (),
        gerr ? gerr->message : ("unexpected argument '" + std::string (argv[1]) + "'").c_str ());
    return 2;
  }
  if (!in_range ("warmup", opt.warmup, 0) || !in_range ("iters", opt.iters, 1) || !in_range ("device", device, 0))
    return 2;
  std::string err;
  if (sizes && !parse_sizes (sizes, &opt.sizes, &err)) {
    std::fprintf (stderr, "--sizes: %s\n", err.c_str ());
    return 2;
  }
  opt.kernels = kernels ? kernels : "";
  opt.resume = resume;
  std::string output = output_opt ? output_opt : "", report = report_opt ? report_opt : "";
  if (list_only) {
    list ();
    return 0;
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
   * does not parse is not overwritten; only a missing one starts a new
   * table (a symlink loop or a FIFO there is an error now, not after the
   * whole run when the save fails). */
  cudavision::TuningTable table;
  bool missing = false;
  if (!table.load (output, &err, &missing) && !missing) {
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
