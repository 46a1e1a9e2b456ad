/* cudavision-tune — measurements, the table they update, and the report.
 * Pure C++ (unit-tested without a GPU). */
#pragma once

#include "search_space.h"

#include "../../core/policy/tuning_table.h"

#include <map>
#include <functional>
#include <string>
#include <vector>

namespace cvtune {

struct ShapeTime {
  cudavision::BlockShape block;
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
};

/* Every timed shape of one kernel at one size. */
struct Measurement {
  std::string kernel;
  FrameSize frame;              /* the frame size the run was given */
  long width = 0, height = 0;   /* the work size the launcher asks the policy for: the table key */
  cudavision::BlockShape static_block;  /* what block-sizing=static launches */
  cudavision::BlockShape model_block;   /* what block-sizing=model launches */
  std::vector<ShapeTime> times;
  /* The shape the table keeps where it is not the fastest (an index of
   * `times`, Tunable::headroom), else -1. */
  int chosen = -1;

  /* The shape the table keeps: `chosen`, else the fastest median (the
   * first of equal ones); null when nothing was timed. */
  const ShapeTime *best () const;
  /* The fastest median, whatever was chosen. */
  const ShapeTime *fastest () const;
  const ShapeTime *find (cudavision::BlockShape b) const;
};

/* Tunable::headroom's choice: among the shapes within `ties` (0.03 = 3%)
 * of the fastest, the index of the one whose pass holds the most, the
 * faster of equal ones; -1 when nothing was timed. */
int most_headroom (const Measurement & m, double ties, const std::function<double (cudavision::BlockShape)> & headroom);

/* The table key of a measurement on `dev`. */
cudavision::TuningKey table_key (const cudavision::DeviceDescription & dev, const std::string & kernel, long width,
    long height);

/* Puts every measurement's best () shape into `table` under `dev`; a key
 * measured again replaces the old entry, other entries stay (a table may
 * hold several GPUs). Returns the number of entries written. */
size_t record_best (const std::vector<Measurement> & ms, const cudavision::DeviceDescription & dev,
    cudavision::TuningTable * table);

/* --resume: the table already has `dev`'s entry for this kernel and size. */
bool already_tuned (const cudavision::TuningTable & table, const cudavision::DeviceDescription & dev,
    const std::string & kernel, long width, long height);

/* One row of the report: static, best and model at one kernel and size. */
struct ReportRow {
  std::string kernel;
  long width = 0, height = 0;
  ShapeTime static_t, best_t, model_t;
  bool have_static = false, have_model = false;
  double model_gap () const;   /* model / best - 1 (0.03 = 3% slower) */
  double static_gap () const;  /* static / best - 1 */
};
std::vector<ReportRow> report_rows (const std::vector<Measurement> & ms);

/* Geometric mean of ratios; 0 for none. */
double geomean (const std::vector<double> & ratios);

/* report.csv: one line per kernel and size. */
std::string report_csv (const std::vector<ReportRow> & rows);
/* samples.csv: every timed shape. */
std::string samples_csv (const std::vector<Measurement> & ms);
/* report.md: a summary (geometric means per kernel and overall) and one
 * table per kernel. `header` lines go first (GPU, settings). */
std::string report_markdown (const std::vector<ReportRow> & rows, const std::vector<std::string> & header);

/* The plot inputs: "plot.gp" (gnuplot, run in the report directory by
 * tools/tune/plot.sh) and "data/<kernel>.dat", time against block size
 * (the best shape of each thread count), one series per size. Keyed by
 * path relative to the report directory. */
std::map<std::string, std::string> plot_files (const std::vector<Measurement> & ms);

/* Writes `files` under `dir` (creating directories); false with *error. */
bool write_files (const std::string & dir, const std::map<std::string, std::string> & files, std::string * error);

}  // namespace cvtune
