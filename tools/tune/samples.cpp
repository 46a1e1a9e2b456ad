/* cudavision-tune — samples.csv read back, for the offline model
 * evaluator. */
#include "samples.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <tuple>

using cudavision::BlockShape;

namespace cvtune {

double
SampleGroup::best_us () const
{
  double b = -1;
  for (const auto & t : times)
    if (b < 0 || t.second < b)
      b = t.second;
  return b;
}

BlockShape
SampleGroup::best_block () const
{
  BlockShape s { 0, 1 };
  double b = -1;
  for (const auto & t : times)
    if (b < 0 || t.second < b) {
      b = t.second;
      s = t.first;
    }
  return s;
}

double
SampleGroup::time_of (BlockShape b) const
{
  for (const auto & t : times)
    if (t.first == b)
      return t.second;
  return -1;
}

namespace {

std::vector<std::string>
split_csv (const std::string & line)
{
  std::vector<std::string> out;
  std::stringstream ss (line);
  std::string f;
  while (std::getline (ss, f, ','))
    out.push_back (f);
  if (!line.empty () && line.back () == ',')
    out.emplace_back ();
  return out;
}

bool
to_long (const std::string & s, long *v)
{
  if (s.empty () || s.find_first_not_of ("0123456789") != std::string::npos || s.size () > 9)
    return false;
  *v = std::stol (s);
  return true;
}

bool
to_double (const std::string & s, double *v)
{
  if (s.empty ())
    return false;
  char *end = nullptr;
  *v = std::strtod (s.c_str (), &end);
  return end && *end == '\0' && std::isfinite (*v) && *v >= 0;
}

}  // namespace

double
cross_ratio (const SampleGroup & run, const SampleGroup & other)
{
  if (run.kernel != other.kernel || run.width != other.width || run.height != other.height)
    return -1;
  const double t = run.time_of (other.best_block ());
  const double best = run.best_us ();
  return t > 0 && best > 0 ? t / best : -1;
}

bool
parse_samples (std::istream & in, std::vector<SampleGroup> * out, std::string * error)
{
  auto fail = [&] (long line, const std::string & what) {
    if (error)
      *error = "line " + std::to_string (line) + ": " + what;
    return false;
  };
  std::string line;
  long n = 0;
  std::vector<std::string> header;
  while (header.empty () && std::getline (in, line)) {
    n++;
    if (!line.empty () && line.back () == '\r')
      line.pop_back ();
    if (!line.empty ())
      header = split_csv (line);
  }
  auto col = [&] (const char *name) {
    auto it = std::find (header.begin (), header.end (), name);
    return it == header.end () ? -1 : (int) (it - header.begin ());
  };
  const int ck = col ("kernel"), cw = col ("width"), ch = col ("height"), cb = col ("block"),
            cm = col ("median_us"), cs = col ("is_static"), cmo = col ("is_model");
  if (ck < 0 || cw < 0 || ch < 0 || cb < 0 || cm < 0)
    return fail (n, "header lacks kernel, width, height, block or median_us");

  std::vector<SampleGroup> groups;
  std::map<std::tuple<std::string, long, long>, size_t> index;
  while (std::getline (in, line)) {
    n++;
    if (!line.empty () && line.back () == '\r')
      line.pop_back ();
    if (line.empty ())
      continue;
    const std::vector<std::string> f = split_csv (line);
    if (f.size () < header.size ())
      return fail (n, "expected " + std::to_string (header.size ()) + " fields");
    long w = 0, h = 0;
    BlockShape b;
    double us = 0;
    if (f[ck].empty () || !to_long (f[cw], &w) || !to_long (f[ch], &h) || w <= 0 || h <= 0)
      return fail (n, "bad kernel or size");
    if (!BlockShape::parse (f[cb], &b))
      return fail (n, "bad block '" + f[cb] + "'");
    if (!to_double (f[cm], &us))
      return fail (n, "bad median '" + f[cm] + "'");
    const auto key = std::make_tuple (f[ck], w, h);
    auto it = index.find (key);
    if (it == index.end ()) {
      it = index.emplace (key, groups.size ()).first;
      SampleGroup g;
      g.kernel = f[ck];
      g.width = w;
      g.height = h;
      groups.push_back (g);
    }
    SampleGroup & g = groups[it->second];
    g.times.push_back ({ b, us });
    if (cs >= 0 && f[cs] == "1")
      g.static_block = b;
    if (cmo >= 0 && f[cmo] == "1")
      g.model_block = b;
  }
  *out = std::move (groups);
  return true;
}

void
RatioSummary::add (double ratio, double tol)
{
  count++;
  log_sum += std::log (ratio);
  worst = std::max (worst, ratio);
  if (ratio <= 1 + tol + 1e-12)
    within++;
}

double
RatioSummary::geomean () const
{
  return count ? std::exp (log_sum / count) : 0;
}

}  // namespace cvtune
