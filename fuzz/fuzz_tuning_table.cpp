/* libFuzzer target: the tuning-table reader (core/policy/tuning_table.h).
 *
 * Beyond "no crash, no sanitizer report": a table it accepts must write
 * back (serialize) to text that it reads again to the same entries and the
 * same text, so what cudavision-tune and save-tuning=true write is always
 * readable; a refusal must say why. Violations abort (a libFuzzer finding).
 * tools/fuzz.sh builds and runs it. */
#include "../core/policy/tuning_table.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace cudavision;

namespace {

[[noreturn]] void
broken (const char *what, const std::string & detail)
{
  std::fprintf (stderr, "tuning table reader: %s: %s\n", what, detail.c_str ());
  std::abort ();
}

}  // namespace

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const std::string text (reinterpret_cast<const char *> (data), size);
  TuningTable table;
  std::string error;
  if (!table.parse (text, &error)) {
    if (error.empty ())
      broken ("refused without a message", "");
    return 0;
  }
  const std::string written = table.serialize ();
  TuningTable again;
  if (!again.parse (written, &error))
    broken ("its own output is refused", error);
  if (again.size () != table.size ())
    broken ("entry count changed in a round trip", std::to_string (table.size ()) + " -> " +
        std::to_string (again.size ()));
  if (again.serialize () != written)
    broken ("a second round trip changed the text", "");
  for (const auto & [key, entry] : table.entries ()) {
    const auto found = again.lookup (key);
    if (!found || found->block.str () != entry.block.str ())
      broken ("an entry changed in a round trip", key.kernel);
  }
  return 0;
}
