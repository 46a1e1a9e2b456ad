/* cudavision — the empirical block-size table: a versioned TSV file that
 * cudavision-tune writes and the elements read (docs/BLOCK-SIZING.md).
 *
 * Numbers go through std::to_chars / std::from_chars, never printf or
 * strtod: those follow the process locale, and a GStreamer application may
 * well have set one with a decimal comma. */
#include "tuning_table.h"

#include "../file_read.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

namespace cudavision {

namespace {

constexpr const char *kMagic = "cudavision-tuning-table";
constexpr size_t kColumns = 9;

std::vector<std::string>
split_tabs (const std::string & line)
{
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find ('\t', start);
    out.push_back (line.substr (start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos)
      return out;
    start = tab + 1;
  }
}

template <typename T>
bool
parse_int (const std::string & s, T * out)
{
  if (s.empty ())
    return false;
  const char *end = s.data () + s.size ();
  auto r = std::from_chars (s.data (), end, *out);
  return r.ec == std::errc () && r.ptr == end;
}

bool
parse_double (const std::string & s, double *out)
{
  if (s.empty ())
    return false;
  const char *end = s.data () + s.size ();
  auto r = std::from_chars (s.data (), end, *out);
  return r.ec == std::errc () && r.ptr == end && std::isfinite (*out);
}

/* "9.0" -> 9, 0 */
bool
parse_cc (const std::string & s, int *major, int *minor)
{
  const size_t dot = s.find ('.');
  if (dot == std::string::npos)
    return false;
  return parse_int (s.substr (0, dot), major) && parse_int (s.substr (dot + 1), minor) && *major >= 0 &&
      *minor >= 0;
}

std::string
format_double (double v)
{
  /* Shortest text that reads back to the same double. */
  char buf[64];
  auto r = std::to_chars (buf, buf + sizeof buf, v);
  return std::string (buf, r.ptr);
}

/* Tabs or newlines in a GPU or kernel name would break the row. */
std::string
field (const std::string & s)
{
  std::string out = s;
  for (char & c : out)
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  return out;
}

/* Names with control characters are refused: the writer (field) could not
 * write them back unchanged, and no GPU or kernel is named so. */
bool
printable (const std::string & s)
{
  for (const char c : s)
    if ((unsigned char) c < 0x20 || c == 0x7f)
      return false;
  return true;
}

std::string
line_error (size_t line, const std::string & what)
{
  return "line " + std::to_string (line) + ": " + what;
}

}  // namespace

void
TuningTable::put (const TuningKey & key, const TuningEntry & e)
{
  entries_[key] = e;
}

std::optional<TuningEntry>
TuningTable::lookup (const TuningKey & key) const
{
  auto it = entries_.find (key);
  if (it == entries_.end ())
    return std::nullopt;
  return it->second;
}

std::optional<TuningEntry>
TuningTable::lookup (const DeviceDescription & dev, const std::string & kernel, long width,
    long height) const
{
  TuningKey k;
  k.gpu_name = dev.name;
  k.cc_major = dev.cc_major;
  k.cc_minor = dev.cc_minor;
  k.sm_count = dev.sm_count;
  k.kernel = kernel;
  k.width = width;
  k.height = height;
  return lookup (k);
}

bool
TuningTable::parse (const std::string & text, std::string * error)
{
  auto fail = [&] (size_t line, const std::string & what) {
    if (error)
      *error = line_error (line, what);
    return false;
  };

  /* Parsed into a scratch map so a bad file leaves the table as it was. */
  std::map<TuningKey, TuningEntry> parsed;
  bool have_header = false;
  std::istringstream in (text);
  std::string line;
  size_t n = 0;
  while (std::getline (in, line)) {
    n++;
    if (line.size () > kMaxLineBytes)
      return fail (n, "longer than " + std::to_string (kMaxLineBytes) + " bytes: not a tuning table line");
    if (!line.empty () && line.back () == '\r')
      line.pop_back ();
    if (line.empty () || line[0] == '#' || line.find_first_not_of (" \t") == std::string::npos)
      continue;
    const std::vector<std::string> f = split_tabs (line);

    if (!have_header) {
      if (f[0] != kMagic)
        return fail (n, std::string ("not a tuning table: expected the header '") + kMagic +
            "<TAB>" + std::to_string (kFormatVersion) + "'");
      int version = 0;
      if (f.size () != 2 || !parse_int (f[1], &version))
        return fail (n, "malformed header: expected '" + std::string (kMagic) + "<TAB><version>'");
      if (version != kFormatVersion)
        return fail (n, "unsupported format version " + f[1] + " (this build reads version " +
            std::to_string (kFormatVersion) + ")");
      have_header = true;
      continue;
    }

    if (f.size () != kColumns)
      return fail (n, "expected " + std::to_string (kColumns) + " tab-separated columns, found " +
          std::to_string (f.size ()));
    TuningKey key;
    TuningEntry e;
    key.gpu_name = f[0];
    if (key.gpu_name.empty ())
      return fail (n, "empty GPU name");
    if (!printable (key.gpu_name))
      return fail (n, "control character in the GPU name");
    if (!parse_cc (f[1], &key.cc_major, &key.cc_minor))
      return fail (n, "bad compute capability '" + f[1] + "' (expected e.g. 9.0)");
    if (!parse_int (f[2], &key.sm_count) || key.sm_count <= 0)
      return fail (n, "bad SM count '" + f[2] + "'");
    if (!parse_int (f[3], &e.driver_version) || e.driver_version < 0)
      return fail (n, "bad driver version '" + f[3] + "'");
    key.kernel = f[4];
    if (key.kernel.empty ())
      return fail (n, "empty kernel name");
    if (!printable (key.kernel))
      return fail (n, "control character in the kernel name");
    if (!parse_int (f[5], &key.width) || key.width <= 0)
      return fail (n, "bad width '" + f[5] + "'");
    if (!parse_int (f[6], &key.height) || key.height <= 0)
      return fail (n, "bad height '" + f[6] + "'");
    if (!BlockShape::parse (f[7], &e.block))
      return fail (n, "bad block shape '" + f[7] + "' (expected e.g. 32x8, at most 1024 threads)");
    if (!parse_double (f[8], &e.time_us) || e.time_us < 0)
      return fail (n, "bad time '" + f[8] + "' (microseconds)");
    parsed[key] = e;  /* a later row for the same key wins */
  }
  if (!have_header)
    return fail (n ? n : 1, std::string ("empty tuning table: no '") + kMagic + "' header");

  entries_ = std::move (parsed);
  return true;
}

std::string
TuningTable::serialize () const
{
  std::ostringstream out;
  out << kMagic << '\t' << kFormatVersion << '\n';
  out << "# cudavision block-size tuning table, written by cudavision-tune "
         "(docs/BLOCK-SIZING.md)\n";
  out << "# gpu_name\tcc\tsm_count\tdriver_version\tkernel\twidth\theight\tblock\ttime_us\n";
  for (const auto & [k, e] : entries_) {
    out << field (k.gpu_name) << '\t' << k.cc_major << '.' << k.cc_minor << '\t' << k.sm_count << '\t'
        << e.driver_version << '\t' << field (k.kernel) << '\t' << k.width << '\t' << k.height << '\t'
        << e.block.str () << '\t' << format_double (e.time_us) << '\n';
  }
  return out.str ();
}

bool
TuningTable::load (const std::string & path, std::string * error, bool * missing)
{
  std::string text;
  int err = 0;
  const bool ok = read_regular_file (path, kMaxFileBytes, "a tuning table", &text, error, &err);
  if (missing)
    *missing = !ok && err == ENOENT;
  if (!ok)
    return false;
  std::string why;
  if (!parse (text, &why)) {
    if (error)
      *error = path + ": " + why;
    return false;
  }
  return true;
}

bool
TuningTable::save (const std::string & path, std::string * error) const
{
  namespace fs = std::filesystem;
  auto fail = [&] (const std::string & what) {
    if (error)
      *error = path + ": " + what;
    return false;
  };

  const fs::path target (path);
  std::error_code ec;
  if (target.has_parent_path ()) {
    fs::create_directories (target.parent_path (), ec);
    if (ec)
      return fail ("cannot create directory " + target.parent_path ().string () + ": " + ec.message ());
  }

  /* A unique temporary name next to the target, so two tuners writing at
   * once never share one, and rename() is atomic within a filesystem. */
  std::random_device rd;
  const auto tick = std::chrono::steady_clock::now ().time_since_epoch ().count ();
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string (rd ()) + "." + std::to_string (tick);

  {
    std::ofstream out (tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return fail ("cannot create " + tmp.string ());
    out << serialize ();
    out.flush ();
    if (!out) {
      out.close ();
      fs::remove (tmp, ec);
      return fail ("write error on " + tmp.string ());
    }
  }
  fs::rename (tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove (tmp, ignored);
    return fail ("cannot rename " + tmp.string () + ": " + ec.message ());
  }
  return true;
}

std::string
tuning_file_name (const DeviceDescription & dev)
{
  std::string name = dev.name.empty () ? std::string ("unknown-gpu") : dev.name;
  for (char & c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
        c == '.' || c == '_' || c == '-';
    if (!ok)
      c = '_';
  }
  return name + ".tsv";
}

}  // namespace cudavision
