/* cudavision-tune — progress on the terminal: a bar redrawn in place on a
 * TTY, plain lines otherwise (logs, CI). Pure C++. */
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace cvtune {

/* "0.4s", "12s", "1m05s", "2h03m". */
std::string format_duration (double seconds);

/* One bar line, e.g.
 * "[##########----------]  50% 1234/2468  ETA 12s  gray.packed4 1920x1080"
 * `width` is the bar's, in characters. The ETA extrapolates the rate so far
 * and is left out before any progress. */
std::string format_bar (size_t done, size_t total, double elapsed_s, const std::string & label, int width = 30);

/* "[ 50%, ETA 12s]": the plain-line suffix. */
std::string format_status (size_t done, size_t total, double elapsed_s);

class Progress {
public:
  /* `tty`: redraw a bar on `out`; else print only message() lines. */
  Progress (size_t total, bool tty, FILE *out = stdout);

  /* `units` more done; `label` says what runs now. Redraws at most ten
   * times a second. */
  void advance (size_t units, const std::string & label);
  /* The total changed (a plan's estimate replaced by the real count). */
  void set_total (size_t total);
  /* A whole line: above the bar on a TTY; on its own otherwise, with the
   * status appended when `with_status`. */
  void message (const std::string & line, bool with_status = false);
  /* Clears the bar. */
  void finish ();

  size_t done () const { return done_; }
  size_t total () const { return total_; }
  double elapsed_s () const;

private:
  void draw (bool force);

  size_t total_, done_ = 0;
  bool tty_;
  FILE *out_;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

}  // namespace cvtune
