/* cudavision-tune — reading back a run's samples.csv (every shape timed,
 * written by write_samples_csv in results.cpp) and scoring a block choice
 * against it: the offline model evaluator (cudavision-model-eval) uses
 * this. Pure C++ (unit-tested without a GPU). */
#pragma once

#include "../../core/policy/launch_policy.h"

#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cvtune {

/* One (kernel, work size): every shape timed, median microseconds. */
struct SampleGroup {
  std::string kernel;
  long width = 0;
  long height = 0;
  std::vector<std::pair<cudavision::BlockShape, double>> times;
  cudavision::BlockShape static_block;  /* is_static */
  cudavision::BlockShape model_block;   /* is_model: the model when measured */

  double best_us () const;
  cudavision::BlockShape best_block () const;
  /* The median of `b`, or a negative number when `b` was not timed. */
  double time_of (cudavision::BlockShape b) const;
};

/* Parses samples.csv (header "kernel,width,height,block,threads,median_us,
 * p10_us,p90_us,is_static,is_model"; the columns are found by name, so
 * extra or reordered columns are fine). Groups keep the file's order.
 * False with *error naming the line on a malformed row. */
bool parse_samples (std::istream & in, std::vector<SampleGroup> * out, std::string * error);

/* The noise floor of one (kernel, size): the time `run` measured for the
 * best shape of `other` (another run of the same kernel and size), over
 * `run`'s best. What a perfect oracle of `other` scores on `run`. Negative
 * when the groups differ in kernel or size, or `run` lacks that shape. */
double cross_ratio (const SampleGroup & run, const SampleGroup & other);

/* Geometric mean of ratios and how many are within `tol` (0.05: 5%). */
struct RatioSummary {
  int count = 0;
  int within = 0;
  int unmeasured = 0;  /* choices with no timing (not in the ratios) */
  double log_sum = 0;
  double worst = 1;

  void add (double ratio, double tol = 0.05);
  double geomean () const;
};

}  // namespace cvtune
