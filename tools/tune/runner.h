/* cudavision-tune — measuring the registered kernels on the current GPU. */
#pragma once

#include "progress.h"
#include "results.h"
#include "tunable.h"

#include <functional>
#include <string>
#include <vector>

namespace cvtune {

struct TuneOptions {
  std::vector<FrameSize> sizes = default_sizes ();
  std::string kernels;  /* comma-separated globs; empty: all */
  int warmup = 3;       /* untimed launches per shape */
  int iters = 15;       /* timed launches per shape; the median is kept */
  bool resume = false;  /* skip (kernel, size) keys the table already has for this GPU */
};

struct TuneRun {
  std::vector<Measurement> measured;
  std::vector<std::string> notes;  /* skipped kernels and sizes, and why */
  size_t shapes_timed = 0;
};

/* The tunables `opt` selects, in registry order. */
std::vector<const Tunable *> selected_tunables (const TuneOptions & opt);

/* Times every selected kernel at every size over its shapes, and puts each
 * fastest shape into `table` (replacing what the table had for that key).
 * `checkpoint` runs after each kernel (the caller saves the table, so an
 * interrupted run can be resumed). False with *error on a CUDA failure. */
bool run_tuning (const TuneOptions & opt, const cudavision::DeviceDescription & dev, cudaStream_t stream,
    cudavision::TuningTable & table, Progress & progress, TuneRun * run, const std::function<bool ()> & checkpoint,
    std::string * error);

}  // namespace cvtune
