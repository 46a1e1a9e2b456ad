/* cudavision tests — what the diagnostics programs' main () saw before the
 * plugin registered: the debug categories GStreamer alone had. */
#pragma once

#include <set>
#include <string>

namespace cvtest {

/* The debug categories of the process before cudavision registered its
 * elements: the plugin's are the others. */
const std::set<std::string> & categories_before_plugin ();

}  // namespace cvtest
