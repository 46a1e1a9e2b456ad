#include "bench_util.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <stdlib.h>
#include <unistd.h>

namespace cvbench {

/* ------------------------------------------------------- command lines */

namespace {

std::string
quoted (const std::string & text)
{
  return "'" + text + "'";
}

std::string
number_str (double v)
{
  char s[32];
  std::snprintf (s, sizeof s, "%g", v);
  return s;
}

std::vector<std::string>
list_items (const std::string & opt, const std::string & text)
{
  if (text.empty ())
    bad_usage (opt + ": an empty list");
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    const size_t comma = text.find (',', at);
    const std::string item = text.substr (at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item.empty ())
      bad_usage (opt + ": an empty item in " + quoted (text));
    out.push_back (item);
    if (comma == std::string::npos)
      return out;
    at = comma + 1;
  }
}

}  // namespace

bool
parse_int (const std::string & text, long long min, long long max, long long * out, std::string * why)
{
  long long v = 0;
  const char *begin = text.data (), *end = begin + text.size ();
  const auto [ptr, ec] = std::from_chars (begin, end, v);
  std::string err;
  if (text.empty () || ec == std::errc::invalid_argument || ptr != end)
    err = quoted (text) + " is not a whole number";
  else if (ec == std::errc::result_out_of_range || v < min || v > max)
    err = quoted (text) + " is not in " + std::to_string (min) + ".." + std::to_string (max);
  if (!err.empty ()) {
    if (why)
      *why = err;
    return false;
  }
  *out = v;
  return true;
}

bool
parse_double (const std::string & text, double min, double max, double * out, std::string * why)
{
  double v = 0;
  const char *begin = text.data (), *end = begin + text.size ();
  const auto [ptr, ec] = std::from_chars (begin, end, v);
  std::string err;
  if (text.empty () || ec == std::errc::invalid_argument || ptr != end || (ec == std::errc () && !std::isfinite (v)))
    err = quoted (text) + " is not a number";
  else if (ec == std::errc::result_out_of_range || v < min || v > max)
    err = quoted (text) + " is not in " + number_str (min) + ".." + number_str (max);
  if (!err.empty ()) {
    if (why)
      *why = err;
    return false;
  }
  *out = v;
  return true;
}

bool
parse_dims (const std::string & text, int min, int max, Dims * out, std::string * why)
{
  const size_t x = text.find ('x');
  long long w = 0, h = 0;
  if (x == std::string::npos || !parse_int (text.substr (0, x), 0, kMaxSide * 16LL, &w, nullptr) ||
      !parse_int (text.substr (x + 1), 0, kMaxSide * 16LL, &h, nullptr)) {
    if (why)
      *why = quoted (text) + " is not WxH (two whole numbers)";
    return false;
  }
  if (w < min || w > max || h < min || h > max) {
    if (why)
      *why = quoted (text) + ": each side must be in " + std::to_string (min) + ".." + std::to_string (max);
    return false;
  }
  *out = { (int) w, (int) h };
  return true;
}

void
bad_usage (const std::string & message)
{
  std::fprintf (stderr, "%s: %s\n", program_invocation_short_name, message.c_str ());
  std::exit (kBadUsage);
}

long long
arg_int64 (const std::string & opt, const std::string & text, long long min, long long max)
{
  long long v = 0;
  std::string why;
  if (!parse_int (text, min, max, &v, &why))
    bad_usage (opt + ": " + why);
  return v;
}

int
arg_int (const std::string & opt, const std::string & text, int min, int max)
{
  return (int) arg_int64 (opt, text, min, max);
}

double
arg_double (const std::string & opt, const std::string & text, double min, double max)
{
  double v = 0;
  std::string why;
  if (!parse_double (text, min, max, &v, &why))
    bad_usage (opt + ": " + why);
  return v;
}

Dims
arg_dims (const std::string & opt, const std::string & text, int min, int max)
{
  Dims d;
  std::string why;
  if (!parse_dims (text, min, max, &d, &why))
    bad_usage (opt + ": " + why);
  return d;
}

std::vector<int>
arg_int_list (const std::string & opt, const std::string & text, int min, int max)
{
  std::vector<int> out;
  for (const std::string & item : list_items (opt, text))
    out.push_back (arg_int (opt, item, min, max));
  return out;
}

std::vector<Dims>
arg_dims_list (const std::string & opt, const std::string & text, int min, int max)
{
  std::vector<Dims> out;
  for (const std::string & item : list_items (opt, text))
    out.push_back (arg_dims (opt, item, min, max));
  return out;
}

std::string
arg_value (int argc, char **argv, int & i)
{
  if (i + 1 >= argc)
    bad_usage (std::string (argv[i]) + " needs a value");
  return argv[++i];
}

/* ------------------------------------------------- temporary files */

TempDir::TempDir (const std::string & prefix)
{
  const char *env = std::getenv ("TMPDIR");
  std::string base = env && env[0] == '/' ? env : "/tmp";
  while (base.size () > 1 && base.back () == '/')
    base.pop_back ();
  std::string name = base + (base == "/" ? "" : "/") + prefix + "-XXXXXX";
  if (!mkdtemp (name.data ())) {
    error_ = "cannot make a directory " + name + ": " + std::strerror (errno);
    return;
  }
  path_ = name;
  const char *k = std::getenv ("CUDAVISION_KEEP_TEMP");
  keep_ = k && *k && std::strcmp (k, "0") != 0;
}

TempDir::~TempDir ()
{
  if (path_.empty ())
    return;
  if (keep_) {
    std::fprintf (stderr, "%s: kept %s\n", program_invocation_short_name, path_.c_str ());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all (path_, ec);
}

bool
write_file_replacing (const std::string & path, const void *data, size_t size, std::string * why)
{
  auto fail = [&] (const std::string & what, int err) {
    if (why)
      *why = what + ": " + std::strerror (err);
    return false;
  };
  const size_t slash = path.rfind ('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr (0, slash);
  std::string tmp = dir + (dir == "/" ? "" : "/") + ".cvbench-XXXXXX";
  const int fd = mkstemp (tmp.data ());
  if (fd < 0)
    return fail ("cannot make a file in " + dir, errno);
  const char *p = (const char *) data;
  size_t left = size;
  while (left > 0) {
    const ssize_t n = ::write (fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close (fd);
      ::unlink (tmp.c_str ());
      return fail ("cannot write " + tmp, err);
    }
    p += n;
    left -= (size_t) n;
  }
  if (::close (fd) != 0) {
    const int err = errno;
    ::unlink (tmp.c_str ());
    return fail ("cannot write " + tmp, err);
  }
  if (std::rename (tmp.c_str (), path.c_str ()) != 0) {
    const int err = errno;
    ::unlink (tmp.c_str ());
    return fail ("cannot rename " + tmp + " to " + path, err);
  }
  return true;
}

}  // namespace cvbench

#ifndef CVBENCH_ARGS_ONLY

#include <random>
#include <stdexcept>

namespace cvbench {

void
check (cudaError_t e, const char *what)
{
  if (e != cudaSuccess) {
    std::fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (e));
    std::exit (1);
  }
}

Timing
time_segments (cudaStream_t stream, int warmup, int iters,
    const std::function<void (int, cudaEvent_t, cudaEvent_t)> & launch)
{
  for (int i = 0; i < warmup; i++)
    launch (i, nullptr, nullptr);
  std::vector<cudavision::Event> ev (2 * iters);
  for (auto & e : ev)
    check (e.create (true).err, "event");
  for (int i = 0; i < iters; i++)
    launch (warmup + i, ev[2 * i].get (), ev[2 * i + 1].get ());
  check (cudaStreamSynchronize (stream), "sync");
  check (cudaGetLastError (), "launch");
  return event_timing (ev);
}

Timing
event_timing (const std::vector<cudavision::Event> & ev)
{
  const size_t iters = ev.size () / 2;
  if (iters == 0)
    return {};
  std::vector<double> us (iters);
  for (size_t i = 0; i < iters; i++) {
    float ms = 0;
    check (cudaEventElapsedTime (&ms, ev[2 * i].get (), ev[2 * i + 1].get ()), "elapsed");
    us[i] = ms * 1000.0;
  }
  std::sort (us.begin (), us.end ());
  return { us[iters / 2], us[iters / 10], us[iters * 9 / 10] };
}

Timing
time_launches (cudaStream_t stream, int warmup, int iters, const std::function<void (int)> & launch)
{
  return time_segments (stream, warmup, iters, [&] (int i, cudaEvent_t start, cudaEvent_t stop) {
    if (start)
      check (cudaEventRecord (start, stream), "record");
    launch (i);
    if (stop)
      check (cudaEventRecord (stop, stream), "record");
  });
}

int
rotation_count (size_t bytes)
{
  int dev = 0, l2 = 0;
  cudaGetDevice (&dev);
  cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev);
  const size_t want = 3 * (size_t) l2;
  return (int) std::max<size_t> (2, (want + bytes - 1) / std::max<size_t> (bytes, 1));
}

std::vector<cudavision::DeviceBuffer>
random_buffers (int count, size_t bytes, unsigned seed)
{
  std::vector<cudavision::DeviceBuffer> out (count);
  std::vector<uint8_t> host (bytes);
  std::mt19937 rng (seed);
  for (int i = 0; i < count; i++) {
    for (auto & b : host)
      b = (uint8_t) rng ();
    check (out[i].allocate (bytes).err, "cudaMalloc");
    check (cudaMemcpy (out[i].get (), host.data (), bytes, cudaMemcpyHostToDevice), "upload");
  }
  /* pageable uploads may still be in flight on the legacy stream */
  check (cudaStreamSynchronize (0), "sync");
  return out;
}

double
copy_bandwidth_gbs (cudaStream_t stream, size_t bytes, int iters, double * median_us)
{
  const int n = rotation_count (bytes);
  auto src = random_buffers (n, bytes, 1);
  auto dst = random_buffers (n, bytes, 2);
  Timing t = time_launches (stream, 10, iters, [&] (int i) {
    check (cudaMemcpyAsync (dst[i % n].get (), src[i % n].get (), bytes, cudaMemcpyDeviceToDevice, stream), "copy");
  });
  if (median_us)
    *median_us = t.median_us;
  return 2.0 * bytes / (t.median_us * 1e3);
}

cudavision::BlockSizing
parse_mode (const std::string & s)
{
  if (s == "static")
    return cudavision::BlockSizing::Static;
  if (s == "model")
    return cudavision::BlockSizing::Model;
  if (s == "empirical-table" || s == "table")
    return cudavision::BlockSizing::EmpiricalTable;
  throw std::invalid_argument ("unknown mode " + s);
}

}  // namespace cvbench

#endif  /* CVBENCH_ARGS_ONLY */
