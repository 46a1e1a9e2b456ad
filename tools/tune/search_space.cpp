/* cudavision-tune — the search space, sizes and kernel selection. */
#include "search_space.h"

#include <algorithm>
#include <fnmatch.h>
#include <sstream>

using cudavision::BlockShape;

namespace cvtune {

std::vector<FrameSize>
default_sizes ()
{
  return { { 100, 100 }, { 320, 240 }, { 480, 240 }, { 512, 512 }, { 640, 480 }, { 720, 480 }, { 600, 800 },
    { 1280, 720 }, { 1024, 1024 }, { 1024, 1280 }, { 1920, 1080 }, { 3840, 2160 } };
}

bool
parse_sizes (const std::string & text, std::vector<FrameSize> * out, std::string * error)
{
  std::vector<FrameSize> sizes;
  std::stringstream ss (text);
  std::string item;
  while (std::getline (ss, item, ',')) {
    if (item.empty ())
      continue;
    /* BlockShape::parse would cap the product at 1024: parse by hand. */
    const size_t x = item.find ('x');
    auto number = [] (const std::string & t, int *v) {
      if (t.empty () || t.size () > 5 || t.find_first_not_of ("0123456789") != std::string::npos)
        return false;
      *v = std::stoi (t);
      return *v > 0 && *v <= 16384;
    };
    FrameSize s;
    if (x == std::string::npos || !number (item.substr (0, x), &s.width) ||
        !number (item.substr (x + 1), &s.height)) {
      if (error)
        *error = "bad size '" + item + "' (expected WIDTHxHEIGHT, 1 to 16384 each, e.g. 1920x1080)";
      return false;
    }
    if (std::find (sizes.begin (), sizes.end (), s) == sizes.end ())
      sizes.push_back (s);
  }
  if (sizes.empty ()) {
    if (error)
      *error = "no sizes given";
    return false;
  }
  *out = sizes;
  return true;
}

std::vector<BlockShape>
search_space (const cudavision::KernelTraits & k)
{
  std::vector<BlockShape> out;
  if (!k.two_d) {
    for (unsigned t = 32; t <= 1024; t += 32)
      out.push_back ({ t, 1 });
    return out;
  }
  for (unsigned x = 32; x <= 1024; x *= 2)
    for (unsigned y = 1; x * y <= 1024; y++)
      out.push_back ({ x, y });
  std::sort (out.begin (), out.end (), [] (BlockShape a, BlockShape b) {
    return a.threads () != b.threads () ? a.threads () < b.threads () : a.x < b.x;
  });
  return out;
}

std::vector<BlockShape>
timed_shapes (const cudavision::KernelTraits & k, const cudavision::DeviceDescription & dev,
    const cudavision::KernelResources & res, BlockShape static_block, BlockShape model_block)
{
  std::vector<BlockShape> out;
  for (BlockShape b : search_space (k)) {
    if (cudavision::clamp_block (b, dev, res) != b)
      continue;
    /* Registers or shared memory that leave no block resident: the launch
     * would fail. (The model's description may lack limits: then keep.) */
    if (dev.sm_count > 0 && dev.max_threads_per_sm > 0 && dev.max_blocks_per_sm > 0 &&
        cudavision::model_terms (dev, res, b.threads (), b.threads ()).resident_blocks <= 0)
      continue;
    out.push_back (b);
  }
  for (BlockShape b : { static_block, model_block })
    if (b.valid () && std::find (out.begin (), out.end (), b) == out.end ())
      out.push_back (b);
  std::sort (out.begin (), out.end (), [] (BlockShape a, BlockShape b) {
    return a.threads () != b.threads () ? a.threads () < b.threads () : a.x < b.x;
  });
  return out;
}

bool
glob_match (const std::string & pattern, const std::string & name)
{
  return fnmatch (pattern.c_str (), name.c_str (), 0) == 0;
}

bool
kernel_selected (const std::string & patterns, const std::string & name)
{
  if (patterns.empty ())
    return true;
  std::stringstream ss (patterns);
  std::string p;
  while (std::getline (ss, p, ','))
    if (!p.empty () && glob_match (p, name))
      return true;
  return false;
}

}  // namespace cvtune
