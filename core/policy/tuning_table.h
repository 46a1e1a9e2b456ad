/* cudavision — the empirical block-size table (block-sizing=empirical-table).
 *
 * A versioned, tab-separated text file; docs/BLOCK-SIZING.md documents the
 * format. cudavision-tune writes it; elements read it. Pure C++ so it can be
 * round-tripped in unit tests without a GPU.
 */
#pragma once

#include "launch_policy.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace cudavision {

struct TuningKey {
  std::string gpu_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::string kernel;
  long width = 0;
  long height = 0;

  bool operator< (const TuningKey & o) const {
    return std::tie (gpu_name, cc_major, cc_minor, sm_count, kernel, width, height) <
        std::tie (o.gpu_name, o.cc_major, o.cc_minor, o.sm_count, o.kernel, o.width, o.height);
  }
};

struct TuningEntry {
  BlockShape block;
  double time_us = 0;      /* median time of the best shape */
  int driver_version = 0;  /* recorded, not matched */
};

class TuningTable {
public:
  static constexpr int kFormatVersion = 1;

  void put (const TuningKey & key, const TuningEntry & e);
  std::optional<TuningEntry> lookup (const TuningKey & key) const;
  /* Convenience: key from a device description. */
  std::optional<TuningEntry> lookup (const DeviceDescription & dev, const std::string & kernel,
      long width, long height) const;
  size_t size () const { return entries_.size (); }
  const std::map<TuningKey, TuningEntry> & entries () const { return entries_; }

  /* A table file is at most this large (about 50000 entries; a tuner run
   * over every kernel and the default sizes writes about 200), a line at
   * most kMaxLineBytes long (a row is about 80 bytes; a GPU name from
   * the driver has at most 255). */
  static constexpr size_t kMaxFileBytes = 4u << 20;
  static constexpr size_t kMaxLineBytes = 4096;

  /* Parse; on failure returns false and sets *error to a message naming the
   * line and the problem (unknown version, wrong column count, bad shape,
   * a line over kMaxLineBytes). */
  bool parse (const std::string & text, std::string * error);
  std::string serialize () const;

  /* Reads a regular file of at most kMaxFileBytes (common/file_read.h:
   * FIFOs, devices and directories are refused, the cause named) and
   * parses it. *missing (when given) says whether the failure was a file
   * that does not exist, which callers that extend a table start afresh
   * from; anything else is an error for them too (a symlink loop is not
   * "no table yet"). A failed load leaves the table as it was. */
  bool load (const std::string & path, std::string * error, bool * missing = nullptr);
  /* Writes atomically (temporary file + rename), creating the directory. */
  bool save (const std::string & path, std::string * error) const;

private:
  std::map<TuningKey, TuningEntry> entries_;
};

/* File name for a GPU: its name with anything but [A-Za-z0-9._-] as '_',
 * plus ".tsv". The directory is chosen by the caller ($XDG_CACHE_HOME/cudavision). */
std::string tuning_file_name (const DeviceDescription & dev);

}  // namespace cudavision
