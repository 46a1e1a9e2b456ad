/* cudavision tests — one frame through an element with GstHarness. */
#pragma once

#include "test_util.h"

#include <gst/check/gstharness.h>

#include <memory>
#include <string>
#include <vector>

namespace cvtest {

struct StructureFree {
  void operator() (GstStructure * s) const { gst_structure_free (s); }
};
using OwnedStructure = std::unique_ptr<GstStructure, StructureFree>;

/* Pushes `in` (caps `in_caps`) through the element description `element`
 * (e.g. "cudagray backend=cpu") with output caps `out_caps`, and returns the
 * output buffer (owned by the caller), or nullptr. With `messages`, the
 * structures of the element messages it posted are appended, in order. */
GstBuffer *run_harness (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in, std::vector<OwnedStructure> * messages = nullptr);

/* An output buffer of caps `caps` as a Mat on the host (the buffer stays
 * the caller's). */
cv::Mat output_mat (GstBuffer * out, const std::string & caps);

/* Same, and converts the output to a Mat on the host. */
cv::Mat run_harness_mat (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in);

/* One GRAY8 (1 channel) or RGBA (4 channels) frame through an element
 * whose output has the same format, optionally in another memory. */
cv::Mat through (const std::string & element, const cv::Mat & in, const char *out_feature = nullptr);

}  // namespace cvtest
