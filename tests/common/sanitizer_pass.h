/* cudavision tests — whether this run is a sanitizer's. Header-only, so
 * the unit tests can ask without the test library. */
#pragma once

#include <cstdlib>
#include <string>

namespace cvtest {

/* True under tools/gpu-check.sh's compute-sanitizer runs and in the
 * ASan/UBSan build's test runs (CUDAVISION_SANITIZER_PASS=1, set by
 * gpu-check.sh and tests/meson.build): the few tests that sweep thousands
 * of launches, photographs, cuts or cycles then sweep fewer, still
 * reaching every kernel instance, case and branch they cover, so
 * racecheck ends in minutes, not hours, and CI's sanitizer suites within
 * its time. */
inline bool
sanitizer_pass ()
{
  const char *v = std::getenv ("CUDAVISION_SANITIZER_PASS");
  return v && *v && std::string (v) != "0";
}

}  // namespace cvtest
