/* cudavision-tune — the progress bar. */
#include "progress.h"

#include <algorithm>

namespace cvtune {

std::string
format_duration (double s)
{
  char buf[32];
  if (s < 0)
    s = 0;
  if (s < 10)
    std::snprintf (buf, sizeof buf, "%.1fs", s);
  else if (s < 60)
    std::snprintf (buf, sizeof buf, "%.0fs", s);
  else if (s < 3600)
    std::snprintf (buf, sizeof buf, "%dm%02ds", (int) s / 60, (int) s % 60);
  else
    std::snprintf (buf, sizeof buf, "%dh%02dm", (int) s / 3600, ((int) s % 3600) / 60);
  return buf;
}

static double
fraction (size_t done, size_t total)
{
  return total ? std::min (1.0, (double) done / (double) total) : 1.0;
}

static std::string
eta (size_t done, size_t total, double elapsed_s)
{
  if (done == 0 || done >= total)
    return "";
  return format_duration (elapsed_s * (double) (total - done) / (double) done);
}

std::string
format_bar (size_t done, size_t total, double elapsed_s, const std::string & label, int width)
{
  const double f = fraction (done, total);
  const int fill = (int) (f * width + 1e-9);
  std::string s = "[" + std::string (fill, '#') + std::string (width - fill, '-') + "]";
  char buf[96];
  std::snprintf (buf, sizeof buf, " %3d%% %zu/%zu", (int) (100 * f), std::min (done, total), total);
  s += buf;
  const std::string e = eta (done, total, elapsed_s);
  if (!e.empty ())
    s += "  ETA " + e;
  if (!label.empty ())
    s += "  " + label;
  return s;
}

std::string
format_status (size_t done, size_t total, double elapsed_s)
{
  char buf[32];
  std::snprintf (buf, sizeof buf, "[%3d%%", (int) (100 * fraction (done, total)));
  std::string s = buf;
  const std::string e = eta (done, total, elapsed_s);
  if (!e.empty ())
    s += ", ETA " + e;
  return s + "]";
}

Progress::Progress (size_t total, bool tty, FILE *out)
    : total_ (total), tty_ (tty), out_ (out), start_ (std::chrono::steady_clock::now ()), last_draw_ (start_)
{
}

double
Progress::elapsed_s () const
{
  return std::chrono::duration<double> (std::chrono::steady_clock::now () - start_).count ();
}

void
Progress::draw (bool force)
{
  if (!tty_)
    return;
  const auto now = std::chrono::steady_clock::now ();
  if (!force && drawn_ && now - last_draw_ < std::chrono::milliseconds (100))
    return;
  last_draw_ = now;
  /* \r, the line, then clear to the end of the line (a shorter label). */
  std::fprintf (out_, "\r%s\033[K", format_bar (done_, total_, elapsed_s (), label_).c_str ());
  std::fflush (out_);
  drawn_ = true;
}

void
Progress::advance (size_t units, const std::string & label)
{
  done_ += units;
  label_ = label;
  draw (false);
}

void
Progress::set_total (size_t total)
{
  total_ = std::max (total, done_);
}

void
Progress::message (const std::string & line, bool with_status)
{
  if (tty_) {
    std::fprintf (out_, "\r\033[K%s\n", line.c_str ());
    draw (true);
  } else {
    std::fprintf (out_, "%s%s\n", line.c_str (),
        with_status ? ("  " + format_status (done_, total_, elapsed_s ())).c_str () : "");
    std::fflush (out_);
  }
}

void
Progress::finish ()
{
  if (tty_ && drawn_)
    std::fprintf (out_, "\r\033[K");
  std::fflush (out_);
  drawn_ = false;
}

}  // namespace cvtune
