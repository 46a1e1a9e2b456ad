/* cudavision benchmarks — what every benchmark program shares: the
 * strict reading of its command line and its temporary directories (plain
 * C++, also built without CUDA: meson's bench_args_dep, which defines
 * CVBENCH_ARGS_ONLY), and the timing helpers: CUDA events around each
 * launch, the median of many runs after warm-up, inputs rotated through a
 * set larger than L2 so that large frames are timed from device memory. */
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cvbench {

/* ------------------------------------------------------- command lines
 *
 * Every number on a benchmark's command line goes through these: the
 * whole argument, decimal, within the option's range, or the program stops
 * with "PROGRAM: OPTION: what is wrong" on stderr and exit status 2,
 * before it touches CUDA or a pipeline. No sign but a leading '-', no
 * blanks, no trailing text, no exponent or fraction in a whole number
 * ("abc", "1e8", "12x", " 5", "" and "+1" are all refused). */

constexpr int kBadUsage = 2;  /* the exit status of a bad command line */
constexpr int kMaxSide = 16384; /* the largest frame side any benchmark takes */

struct Dims {
  int w = 0, h = 0;
};

/* The parsers: false and *why ("'abc' is not a whole number", "-1 is not
 * in 0..1000") when `text` is not a value in min..max. */
bool parse_int (const std::string & text, long long min, long long max, long long * out, std::string * why);
bool parse_double (const std::string & text, double min, double max, double * out, std::string * why);
/* "WxH", each side in min..max */
bool parse_dims (const std::string & text, int min, int max, Dims * out, std::string * why);

/* "PROGRAM: `message`" on stderr, exit status 2. */
[[noreturn]] void bad_usage (const std::string & message);

/* The value of option `opt` or bad_usage ("OPT: WHY"). */
int arg_int (const std::string & opt, const std::string & text, int min, int max);
long long arg_int64 (const std::string & opt, const std::string & text, long long min, long long max);
double arg_double (const std::string & opt, const std::string & text, double min, double max);
Dims arg_dims (const std::string & opt, const std::string & text, int min = 16, int max = kMaxSide);
/* Comma lists ("1,2,4", "640x480,1920x1080"): at least one item, no
 * empty one. */
std::vector<int> arg_int_list (const std::string & opt, const std::string & text, int min, int max);
std::vector<Dims> arg_dims_list (const std::string & opt, const std::string & text, int min = 16,
    int max = kMaxSide);

/* The argument after option argv[i] (i moves on to it), or bad_usage
 * ("OPT needs a value") when there is none. */
std::string arg_value (int argc, char **argv, int & i);

/* ------------------------------------------------- temporary files
 *
 * A directory of this run's own, never a fixed path: made by mkdtemp
 * under $TMPDIR (an absolute path) or /tmp as PREFIX-XXXXXX, mode 0700,
 * so nothing another user prepared there (a symlink, a file) is written
 * through. Removed with everything in it when the object goes (at exit
 * for a static one), unless keep () was called or CUDAVISION_KEEP_TEMP is
 * set in the environment; a kept directory is named on stderr. */
class TempDir {
public:
  explicit TempDir (const std::string & prefix);
  ~TempDir ();
  TempDir (const TempDir &) = delete;
  TempDir & operator= (const TempDir &) = delete;

  bool ok () const { return !path_.empty (); }
  const std::string & path () const { return path_; }
  const std::string & error () const { return error_; }  /* why there is none */
  void keep (bool k = true) { keep_ = k; }
  bool kept () const { return keep_; }

private:
  std::string path_, error_;
  bool keep_ = false;
};

/* Writes `size` bytes to `path` as a new file: first under a name of its
 * own in the same directory (mkstemp, mode 0600), then renamed over `path`,
 * so a symlink or file already at `path` is replaced, never written
 * through. false and *why on failure (nothing left behind). */
bool write_file_replacing (const std::string & path, const void *data, size_t size, std::string * why);

}  // namespace cvbench

#ifndef CVBENCH_ARGS_ONLY

#include "../cuda/common/cuda_raii.h"
#include "../core/policy/launch_policy.h"

#include <functional>

namespace cvbench {

struct Timing {
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
};

/* Runs `launch(i)` (i = iteration, for rotating inputs) `warmup` times,
 * then `iters` times between events; returns the distribution. */
Timing time_launches (cudaStream_t stream, int warmup, int iters, const std::function<void (int)> & launch);

/* The same for part of what `launch` queues: it gets the two timing events
 * (null during warm-up) and records them itself, around the part to time
 * (cudavision-tune times one kernel of a launcher that queues several). */
Timing time_segments (cudaStream_t stream, int warmup, int iters,
    const std::function<void (int, cudaEvent_t start, cudaEvent_t stop)> & launch);

/* The distribution of the times between events [2i] and [2i + 1], all
 * recorded and completed. */
Timing event_timing (const std::vector<cudavision::Event> & events);

/* How many copies of a `bytes` input make a set at least 3x the L2 size. */
int rotation_count (size_t bytes);

/* Device buffers filled with seeded random bytes. */
std::vector<cudavision::DeviceBuffer> random_buffers (int count, size_t bytes, unsigned seed);

/* Device-to-device copy bandwidth in GB/s (bytes read + written), of
 * `bytes` per copy, rotating over buffers larger than L2. */
double copy_bandwidth_gbs (cudaStream_t stream, size_t bytes, int iters, double * median_us = nullptr);

cudavision::BlockSizing parse_mode (const std::string & s);

void check (cudaError_t e, const char *what);

}  // namespace cvbench

#endif  /* CVBENCH_ARGS_ONLY */
