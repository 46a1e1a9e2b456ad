/* cudavision-tune — measurements into the table, the CSV / markdown report
 * and the gnuplot inputs. Numbers are formatted with snprintf on fixed
 * formats; the program runs in the C locale (main does not call setlocale). */
#include "results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using cudavision::BlockShape;

namespace cvtune {

namespace {

std::string
fmt (const char *f, double v)
{
  char buf[64];
  std::snprintf (buf, sizeof buf, f, v);
  return buf;
}

std::string
us (double v)
{
  return fmt ("%.2f", v);
}

std::string
pct (double gap)
{
  return fmt ("%+.1f%%", 100.0 * gap);
}

}  // namespace

const ShapeTime *
Measurement::best () const
{
  if (chosen >= 0 && chosen < (int) times.size ())
    return &times[(size_t) chosen];
  return fastest ();
}

const ShapeTime *
Measurement::fastest () const
{
  const ShapeTime *b = nullptr;
  for (const auto & t : times)
    if (!b || t.median_us < b->median_us)
      b = &t;
  return b;
}

int
most_headroom (const Measurement & m, double ties, const std::function<double (BlockShape)> & headroom)
{
  const ShapeTime *f = m.fastest ();
  if (!f)
    return -1;
  int pick = -1;
  double pick_room = -1;
  for (size_t i = 0; i < m.times.size (); i++) {
    const ShapeTime & t = m.times[i];
    if (t.median_us > f->median_us * (1 + ties))
      continue;
    const double room = headroom (t.block);
    if (room > pick_room || (room == pick_room && t.median_us < m.times[(size_t) pick].median_us)) {
      pick = (int) i;
      pick_room = room;
    }
  }
  return pick;
}

const ShapeTime *
Measurement::find (BlockShape s) const
{
  for (const auto & t : times)
    if (t.block == s)
      return &t;
  return nullptr;
}

cudavision::TuningKey
table_key (const cudavision::DeviceDescription & dev, const std::string & kernel, long width, long height)
{
  return { dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, kernel, width, height };
}

size_t
record_best (const std::vector<Measurement> & ms, const cudavision::DeviceDescription & dev,
    cudavision::TuningTable * table)
{
  size_t n = 0;
  for (const auto & m : ms) {
    const ShapeTime *b = m.best ();
    if (!b)
      continue;
    table->put (table_key (dev, m.kernel, m.width, m.height), { b->block, b->median_us, dev.driver_version });
    n++;
  }
  return n;
}

bool
already_tuned (const cudavision::TuningTable & table, const cudavision::DeviceDescription & dev,
    const std::string & kernel, long width, long height)
{
  return table.lookup (dev, kernel, width, height).has_value ();
}

double
ReportRow::model_gap () const
{
  return have_model && best_t.median_us > 0 ? model_t.median_us / best_t.median_us - 1 : 0;
}

double
ReportRow::static_gap () const
{
  return have_static && best_t.median_us > 0 ? static_t.median_us / best_t.median_us - 1 : 0;
}

std::vector<ReportRow>
report_rows (const std::vector<Measurement> & ms)
{
  std::vector<ReportRow> rows;
  for (const auto & m : ms) {
    /* the model against the measured optimum, whatever the table kept */
    const ShapeTime *b = m.fastest ();
    if (!b)
      continue;
    ReportRow r;
    r.kernel = m.kernel;
    r.width = m.width;
    r.height = m.height;
    r.best_t = *b;
    if (const ShapeTime *s = m.find (m.static_block)) {
      r.static_t = *s;
      r.have_static = true;
    }
    if (const ShapeTime *s = m.find (m.model_block)) {
      r.model_t = *s;
      r.have_model = true;
    }
    rows.push_back (r);
  }
  std::stable_sort (rows.begin (), rows.end (), [] (const ReportRow & a, const ReportRow & b) {
    if (a.kernel != b.kernel)
      return a.kernel < b.kernel;
    return a.width * a.height != b.width * b.height ? a.width * a.height < b.width * b.height : a.width < b.width;
  });
  return rows;
}

double
geomean (const std::vector<double> & ratios)
{
  if (ratios.empty ())
    return 0;
  double s = 0;
  for (double r : ratios)
    s += std::log (r);
  return std::exp (s / (double) ratios.size ());
}

std::string
report_csv (const std::vector<ReportRow> & rows)
{
  std::ostringstream o;
  o << "kernel,width,height,static_block,static_us,best_block,best_us,model_block,model_us,model_gap_pct,"
       "static_gap_pct\n";
  for (const auto & r : rows) {
    o << r.kernel << ',' << r.width << ',' << r.height << ',' << (r.have_static ? r.static_t.block.str () : "") << ','
      << (r.have_static ? us (r.static_t.median_us) : "") << ',' << r.best_t.block.str () << ','
      << us (r.best_t.median_us) << ',' << (r.have_model ? r.model_t.block.str () : "") << ','
      << (r.have_model ? us (r.model_t.median_us) : "") << ','
      << (r.have_model ? fmt ("%.2f", 100.0 * r.model_gap ()) : "") << ','
      << (r.have_static ? fmt ("%.2f", 100.0 * r.static_gap ()) : "") << '\n';
  }
  return o.str ();
}

std::string
samples_csv (const std::vector<Measurement> & ms)
{
  std::ostringstream o;
  o << "kernel,width,height,block,threads,median_us,p10_us,p90_us,is_static,is_model\n";
  for (const auto & m : ms)
    for (const auto & t : m.times)
      o << m.kernel << ',' << m.width << ',' << m.height << ',' << t.block.str () << ',' << t.block.threads () << ','
        << us (t.median_us) << ',' << us (t.p10_us) << ',' << us (t.p90_us) << ',' << (t.block == m.static_block)
        << ',' << (t.block == m.model_block) << '\n';
  return o.str ();
}

std::string
report_markdown (const std::vector<ReportRow> & rows, const std::vector<std::string> & header)
{
  std::ostringstream o;
  o << "# cudavision-tune report\n\n";
  for (const auto & h : header)
    o << h << "  \n";
  o << "\nTimes are medians in microseconds. `best` is the fastest shape measured; a gap is\n"
       "`time / best - 1`. Geometric means are of `time / best`.\n\n";

  /* Summary: per kernel, then all. */
  std::vector<std::string> kernels;
  for (const auto & r : rows)
    if (kernels.empty () || kernels.back () != r.kernel)
      kernels.push_back (r.kernel);
  o << "## Summary\n\n";
  o << "| kernel | sizes | static / best (geomean) | model / best (geomean) | worst model gap | model within 5% |\n";
  o << "|---|---|---|---|---|---|\n";
  std::vector<double> all_m;
  auto summary = [&] (const std::string & name, const std::vector<const ReportRow *> & rs) {
    std::vector<double> s, m;
    double worst = 0;
    int within = 0;
    for (const ReportRow *r : rs) {
      if (r->have_static)
        s.push_back (1 + r->static_gap ());
      if (r->have_model) {
        m.push_back (1 + r->model_gap ());
        worst = std::max (worst, r->model_gap ());
        within += r->model_gap () <= 0.05 + 1e-9;
      }
    }
    o << "| " << name << " | " << rs.size () << " | " << (s.empty () ? "-" : fmt ("%.3f", geomean (s))) << " | "
      << (m.empty () ? "-" : fmt ("%.3f", geomean (m))) << " | " << (m.empty () ? "-" : pct (worst)) << " | "
      << within << " / " << m.size () << " |\n";
  };
  for (const auto & k : kernels) {
    std::vector<const ReportRow *> rs;
    for (const auto & r : rows)
      if (r.kernel == k)
        rs.push_back (&r);
    summary (k, rs);
    for (const ReportRow *r : rs)
      if (r->have_model)
        all_m.push_back (1 + r->model_gap ());
  }
  {
    std::vector<const ReportRow *> rs;
    for (const auto & r : rows)
      rs.push_back (&r);
    summary ("**all**", rs);
  }
  o << "\nModel against the empirical optimum, geometric mean over kernels and sizes: "
    << (all_m.empty () ? std::string ("-") : fmt ("%.3f", geomean (all_m))) << " (target: at most 1.050).\n";

  for (const auto & k : kernels) {
    o << "\n## " << k << "\n\n";
    o << "| size | static | us | best | us | model | us | model gap | static gap |\n";
    o << "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto & r : rows) {
      if (r.kernel != k)
        continue;
      o << "| " << r.width << 'x' << r.height << " | " << (r.have_static ? r.static_t.block.str () : "-") << " | "
        << (r.have_static ? us (r.static_t.median_us) : "-") << " | " << r.best_t.block.str () << " | "
        << us (r.best_t.median_us) << " | " << (r.have_model ? r.model_t.block.str () : "-") << " | "
        << (r.have_model ? us (r.model_t.median_us) : "-") << " | " << (r.have_model ? pct (r.model_gap ()) : "-")
        << " | " << (r.have_static ? pct (r.static_gap ()) : "-") << " |\n";
    }
  }
  return o.str ();
}

std::map<std::string, std::string>
plot_files (const std::vector<Measurement> & ms)
{
  std::map<std::string, std::string> files;
  std::vector<std::string> kernels;
  for (const auto & m : ms)
    if (std::find (kernels.begin (), kernels.end (), m.kernel) == kernels.end ())
      kernels.push_back (m.kernel);

  std::ostringstream gp;
  gp << "# gnuplot script written by cudavision-tune --report; run tools/tune/plot.sh on this directory.\n"
        "# One PNG per kernel: time against block size (threads), the best shape of each thread\n"
        "# count, one line per frame size; and the same divided by each size's best time.\n"
        "set terminal pngcairo size 1100,650 noenhanced font ',10'\n"
        "set grid\n"
        "set key outside right top\n"
        "set xlabel 'threads per block'\n"
        "set xtics 64\n"
        "set xrange [0:1056]\n";
  for (const auto & k : kernels) {
    std::vector<const Measurement *> sizes;
    for (const auto & m : ms)
      if (m.kernel == k && m.best ())
        sizes.push_back (&m);
    std::sort (sizes.begin (), sizes.end (), [] (const Measurement *a, const Measurement *b) {
      return a->width * a->height < b->width * b->height;
    });
    if (sizes.empty ())
      continue;
    std::ostringstream dat;
    dat << "# " << k << ": per frame size (one index block each), the best time of each thread count\n"
        << "# threads time_us time_over_best shape\n";
    for (size_t i = 0; i < sizes.size (); i++) {
      const Measurement & m = *sizes[i];
      std::map<unsigned, const ShapeTime *> per_threads;
      for (const auto & t : m.times) {
        auto & slot = per_threads[t.block.threads ()];
        if (!slot || t.median_us < slot->median_us)
          slot = &t;
      }
      const double best = m.fastest ()->median_us;
      dat << "# " << m.width << 'x' << m.height << '\n';
      for (const auto & [threads, t] : per_threads)
        dat << threads << ' ' << us (t->median_us) << ' ' << fmt ("%.4f", best > 0 ? t->median_us / best : 0) << ' '
            << t->block.str () << '\n';
      if (i + 1 < sizes.size ())
        dat << "\n\n";
    }
    const std::string data = "data/" + k + ".dat";
    files[data] = dat.str ();

    for (int norm = 0; norm < 2; norm++) {
      gp << "\nset output '" << k << (norm ? ".relative" : "") << ".png'\n";
      gp << "set title '" << k << (norm ? ": time / best time of each size" : ": time against block size") << "'\n";
      gp << (norm ? "unset logscale y\nset ylabel 'time / best'\nset yrange [0.9:*]\n"
                  : "set logscale y\nset ylabel 'time (us, median)'\nset yrange [*:*]\n");
      gp << "plot ";
      for (size_t i = 0; i < sizes.size (); i++) {
        gp << (i ? ", \\\n     " : "") << "'" << data << "' index " << i << " using 1:" << (norm ? 3 : 2)
           << " with linespoints title '" << sizes[i]->width << 'x' << sizes[i]->height << "'";
      }
      gp << '\n';
    }
  }
  files["plot.gp"] = gp.str ();
  return files;
}

bool
write_files (const std::string & dir, const std::map<std::string, std::string> & files, std::string * error)
{
  namespace fs = std::filesystem;
  for (const auto & [rel, text] : files) {
    const fs::path p = fs::path (dir) / rel;
    std::error_code ec;
    fs::create_directories (p.parent_path (), ec);
    if (ec) {
      if (error)
        *error = p.parent_path ().string () + ": " + ec.message ();
      return false;
    }
    std::ofstream out (p, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      if (error)
        *error = p.string () + ": write error";
      return false;
    }
  }
  return true;
}

}  // namespace cvtune
