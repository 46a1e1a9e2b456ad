/* libFuzzer target: the Haar cascade reader (core/face/haar_cascade.h),
 * through its public API only, so it holds whatever XML reader is behind it.
 *
 * Beyond "no crash, no sanitizer report", the reader promises that a
 * cascade it accepts can be evaluated without bounds checks (the GPU
 * kernels have none): every index in range, every rectangle inside the
 * window, every tree walk moving forward. A cascade that breaks one of
 * those promises aborts, and libFuzzer keeps it as a finding; so does a
 * refusal without a message. tools/fuzz.sh builds and runs it. */
#include "../core/face/haar_cascade.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace cudavision;

namespace {

[[noreturn]] void
broken (const char *what, size_t i)
{
  std::fprintf (stderr, "accepted cascade breaks its promise: %s (index %zu)\n", what, i);
  std::abort ();
}

void
check_accepted (const HaarCascade & c)
{
  if (c.window_width <= 0 || c.window_height <= 0 || c.window_width > kHaarMaxWindow ||
      c.window_height > kHaarMaxWindow)
    broken ("window size", 0);
  if (c.stages.empty ())
    broken ("no stages", 0);
  int max_nodes = 0;
  for (size_t s = 0; s < c.stages.size (); s++) {
    const HaarStage & st = c.stages[s];
    if (st.first_tree < 0 || st.tree_count <= 0 || (size_t) st.first_tree + st.tree_count > c.trees.size ())
      broken ("stage's trees out of range", s);
  }
  for (size_t t = 0; t < c.trees.size (); t++) {
    const HaarTree & tr = c.trees[t];
    if (tr.node_count <= 0 || tr.first_node < 0 || (size_t) tr.first_node + tr.node_count > c.nodes.size ())
      broken ("tree's nodes out of range", t);
    if (tr.first_leaf < 0 || (size_t) tr.first_leaf + tr.node_count + 1 > c.leaves.size ())
      broken ("tree's leaves out of range", t);
    max_nodes = tr.node_count > max_nodes ? tr.node_count : max_nodes;
    for (int n = 0; n < tr.node_count; n++) {
      const HaarNode & node = c.nodes[tr.first_node + n];
      if (node.feature < 0 || (size_t) node.feature >= c.features.size ())
        broken ("node's feature out of range", tr.first_node + n);
      for (const int next : { node.left, node.right }) {
        /* > 0: a later node of the same tree (so every walk ends);
         * <= 0: leaf -next of this tree */
        if (next > 0 && (next <= n || next >= tr.node_count))
          broken ("tree walk does not move forward", tr.first_node + n);
        if (next <= 0 && -next > tr.node_count)
          broken ("leaf out of range", tr.first_node + n);
      }
    }
  }
  if (max_nodes != c.max_nodes_per_tree)
    broken ("max_nodes_per_tree", (size_t) c.max_nodes_per_tree);
  for (size_t f = 0; f < c.features.size (); f++) {
    const HaarFeature & feat = c.features[f];
    if (feat.nrects < 1 || feat.nrects > 3)
      broken ("rectangle count", f);
    for (int r = 0; r < feat.nrects; r++) {
      const HaarRect & rc = feat.rects[r];
      /* an empty rectangle sums to 0 and reads only corners inside the
       * window: allowed, as OpenCV allows it */
      if (rc.x < 0 || rc.y < 0 || rc.width < 0 || rc.height < 0 || (long) rc.x + rc.width > c.window_width ||
          (long) rc.y + rc.height > c.window_height)
        broken ("rectangle outside the window", f);
    }
  }
}

}  // namespace

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const std::string xml (reinterpret_cast<const char *> (data), size);
  HaarCascade c;
  std::string error;
  HaarLoadError kind = HaarLoadError::None;
  if (parse_haar_cascade (xml, "fuzz.xml", &c, &error, &kind)) {
    if (kind != HaarLoadError::None)
      broken ("accepted with an error kind", 0);
    check_accepted (c);
  } else {
    if (error.empty () || kind == HaarLoadError::None)
      broken ("refused without a message or kind", 0);
    if (error.rfind ("fuzz.xml", 0) != 0)
      broken ("error does not start with the file name", 0);
  }
  return 0;
}
