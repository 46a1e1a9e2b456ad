/* cudavision — how often an element tells the user something: the CPU
 * fallback's line on stderr once per pipeline, and each distinct error
 * once per run of an element. */
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <set>
#include <string>

/* backend=auto without a usable GPU: one line on stderr for the element's
 * top-level bin (the pipeline; the element itself when it has no parent),
 * however many of its elements fall back. gst-launch-1.0 -q and most
 * applications print no bus warnings, and a pipeline that silently runs
 * 10-100x slower on the CPU is the surprise this line prevents; one line
 * per element would only repeat it. */
void gst_cv_announce_cpu_fallback (GstElement * element, const gchar * reason);

/* The errors an element posted in its current run (since it last left
 * READY): negotiation is retried, and a check that fails there fails each
 * time, but the application is to hear of it once. */
class GstCvPostedErrors {
public:
  /* Whether `error` (an error message) says something this run has not
   * said yet: the same domain, code and text are the same error, whatever
   * the debug details. */
  bool first (GstMessage * error);
  void clear ();

private:
  std::mutex lock_;
  std::set<std::string> seen_;
};
