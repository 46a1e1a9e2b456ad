/* cudavision — the per-pixel and per-window arithmetic of the GPU face
 * detector, written once for the device and the host.
 *
 * The kernels in facedetect_kernels.cu call these functions, and
 * tests/unit/test_facedetect_reference.cpp runs the very same functions on
 * the CPU over whole images and compares the raw detections with OpenCV's,
 * window for window, on machines without a GPU. Bit-exactness needs three
 * things, each mirrored from OpenCV 4.x:
 *  - resize: the cascade's cv::resize (INTER_LINEAR_EXACT) is fixed point
 *    with 8-bit coefficients computed in double;
 *  - every float and double operation rounded on its own as x86-64 SSE code
 *    does (exact_ops.h);
 *  - integral images of uint32 that wrap like OpenCV's CV_32S ones; window
 *    sums are differences, exact modulo 2^32.
 * Plain C++ apart from the CUDA intrinsics; no GStreamer, no OpenCV. */
#pragma once

#include "../../core/exact_ops.h"
#include "../../core/face/haar_cascade.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>


namespace cudavision {
namespace haar {

/* ---- IEEE operations, one rounding each (exact_ops.h) ---- */

using exact::dadd;
using exact::ddiv;
using exact::dmul;
using exact::dsqrt;
using exact::dsub;
using exact::fadd;
using exact::fmul;
using exact::fsub;
using exact::round_d;
using exact::round_f;

/* Unrolled on the device only: the host reference loops plainly. */
#ifdef __CUDA_ARCH__
#define CV_FD_UNROLL4 _Pragma ("unroll 4")
#else
#define CV_FD_UNROLL4
#endif

/* ---- cv::resize (INTER_LINEAR_EXACT, CV_8UC1) ---- */

/* OpenCV's cascade resizes every level with INTER_LINEAR_EXACT
 * (resize_bitExact with interpolationLinear): coefficients in 8-bit fixed
 * point (ufixedpoint16), a horizontal pass into 16-bit row samples and a
 * vertical pass rounded off 16 fractional bits. */
constexpr int kResizeOne = 1 << 8;

/* One output coordinate's two source indices and fixed-point weights. */
struct ResizeTap {
  int i0, i1;
  int w0, w1;
};

/* interpolationLinear::getCoeffs: `scale` is 1. / (dst / src), both in
 * double, as OpenCV computes it. Positions before the first source sample
 * or at / after the last one take that sample alone, as the bit-exact
 * resize's edge loops do. Used for both axes. */
CV_HD ResizeTap resize_tap (int d, double scale, int src_size)
{
  const double f = dsub (dmul (scale, (double) d + 0.5), 0.5);
  const int i = (int) floor (f);
  if (i < 0)
    return { 0, 0, kResizeOne, 0 };
  if (i >= src_size - 1)
    return { src_size - 1, src_size - 1, kResizeOne, 0 };
  const int w1 = round_d (dmul (dsub (f, (double) i), (double) kResizeOne));
  return { i, i + 1, kResizeOne - w1, w1 };
}

/* hlineResize: a row sample with 8 fractional bits (at most 255 * 256). */
CV_HD int resize_h (int p0, int p1, const ResizeTap & t)
{
  return p0 * t.w0 + p1 * t.w1;
}

/* vlineResize: 16 fractional bits, rounded half up. */
CV_HD uint8_t resize_v (int h0, int h1, const ResizeTap & t)
{
  const unsigned v = ((unsigned) (h0 * t.w0 + h1 * t.w1) + (1u << 15)) >> 16;
  return (uint8_t) (v > 255u ? 255u : v);
}

/* ---- The cascade, laid out for the kernels ---- */

/* One node, 48 bytes (three 16-byte loads). Rectangles in window pixels;
 * unused rectangles have weight 0. */
struct alignas (16) Node {
  uint8_t rect[3][4];  /* x, y, width, height */
  float weight[3];
  float threshold;
  /* trees: >= 0 the next node (absolute index), < 0 leaf -(value + 1);
   * stumps of a cascade with a patch pitch: rectangles 0 and 1 in the
   * deep kernel's window patch (patch_rect). In the kernels' tiles a
   * stump's `left` is its corner_code () instead (tiled_node). */
  int left, right;
  /* stumps: the two leaf values */
  float left_val, right_val;
  /* stumps of a cascade with a patch pitch: rectangle 2 in the patch */
  uint32_t patch_rect2;
};
static_assert (sizeof (Node) == 48, "Node must stay three 16-byte words");

/* Which corners a stump's rectangles share, for the kernels that read
 * them from the integral (front, stages rounds): OpenCV's edge features
 * are a rectangle and its half, which share the half's outer side (two
 * corners), and those two words are then read once. The code also says
 * whether the feature has a third rectangle (weight 2 != 0, which the
 * code replaces as the branch's test), so that a feature without shared
 * corners takes one test, as before. On the default frontal face cascade
 * 16 of 200 corner loads of stages 0-1 and 42 of 500 of stages 2-3 go.
 * Rectangles 0 and 1 as the node holds them (maybe swapped: the sharing
 * is symmetric). */
enum CornerCode : int {
  kCornersTwo = 0,   /* two rectangles, no corner shared */
  kCornersThree = 1, /* a third rectangle (weight 2 != 0) */
  kShareLeft = 2,    /* rectangle 1's left column (top-left, bottom-left) is rectangle 0's */
  kShareRight = 3,   /* top-right, bottom-right */
  kShareTop = 4,     /* top-left, top-right */
  kShareBottom = 5,  /* bottom-left, bottom-right */
};

/* A stump's CornerCode, from its rectangles as the node holds them. */
inline int
corner_code (const Node & n)
{
  if (n.weight[2] != 0.f)
    return kCornersThree;
  const int x0 = n.rect[0][0], y0 = n.rect[0][1], r0 = x0 + n.rect[0][2], b0 = y0 + n.rect[0][3];
  const int x1 = n.rect[1][0], y1 = n.rect[1][1], r1 = x1 + n.rect[1][2], b1 = y1 + n.rect[1][3];
  if (y0 == y1 && b0 == b1) {
    if (x0 == x1)
      return kShareLeft;
    if (r0 == r1)
      return kShareRight;
  }
  if (x0 == x1 && r0 == r1) {
    if (y0 == y1)
      return kShareTop;
    if (b0 == b1)
      return kShareBottom;
  }
  return kCornersTwo;
}

/* A node as the kernels' tiles hold it: a stump's `left` (read by no
 * kernel: the deep kernel's patch corners are its PatchNode's) is its
 * corner_code. */
inline Node
tiled_node (const Node & n, bool stump)
{
  Node t = n;
  if (stump)
    t.left = corner_code (n);
  return t;
}

struct alignas (16) Stage {
  int first;   /* first tree (== first node for stumps) */
  int count;
  float threshold;
  int pad;
};

/* The nodes in tiles of 32: tile g holds word 0 of nodes 32g .. 32g + 31,
 * then their word 1, then their word 2 (16 bytes a word). The deep
 * kernel's 32 lanes read 32 consecutive weak classifiers' nodes at once:
 * tiles make each of the three loads one contiguous 512 bytes (two pieces
 * where the run crosses a tile), where 48-byte nodes side by side spread
 * each load over 1536 bytes, three times the L1 wavefronts (that kernel's
 * limit: docs/PERFORMANCE.md). Word k of node i is at
 * node_word (i) + 32 k, a constant offset. */
struct alignas (16) NodeWord {
  uint32_t w[4];
};
static_assert (sizeof (NodeWord) == 16, "a node word is one 16-byte load");

CV_HD unsigned node_word (int i)
{
  return (unsigned) i + 64u * ((unsigned) i >> 5);
}

/* ---- The deep kernel's nodes ---- */

/* The deep kernel's own nodes (stumps of a cascade with a patch pitch):
 * only what it reads through the window patch, 24 bytes a node in three
 * arrays indexed by the node (a warp's 32 consecutive nodes read each one
 * contiguously):
 *   word A, 16 bytes: patch rectangles 0 and 1 (patch_rect), the weights
 *     (pack_patch_weights), the threshold;
 *   8 bytes: left_val, right_val;
 *   4 bytes: rectangle 2's corners, read only where weight 2 is not 0.
 * The node loads are a quarter of the deep kernel's L1 wavefronts (its
 * limit): a lane's 24 bytes take 6 wavefronts a round of the warp where
 * the float weights' 32 took 8. */
struct PatchNode {
  uint32_t rect[3]; /* patch_rect () */
  int weight[3];
  float threshold, left_val, right_val;
};

/* A stump's weights for the patch: whole numbers (every cascade OpenCV
 * ships has -1, 2, 3 or 9), one signed byte each in bits 0-7, 8-15 and
 * 16-23 of word A's third word. */
constexpr int kPatchWeightMax = 127;
CV_HD int
patch_weight (uint32_t packed, int r)
{
  return (int) (packed << (24 - 8 * r)) >> 24;
}

/* Whether a stump's feature value can be summed in integers: whole
 * weights of at most kPatchWeightMax, and sum over its rectangles of
 * |weight| * area * 255 under 2^24. Then each rectangle's sum (at most
 * area * 255), its product with its weight and every partial sum are
 * integers that a float holds exactly, so OpenCV's float operations
 * (feature_value) round nowhere and give the integer sum's float: the
 * deep kernel adds the products in integers and converts once. */
inline bool
patch_weights_exact (const Node & n)
{
  double bound = 0;
  for (int r = 0; r < 3; r++) {
    const float w = n.weight[r];
    if (!(std::fabs (w) <= (float) kPatchWeightMax) || w != std::nearbyint (w))
      return false;
    bound += std::fabs ((double) w) * n.rect[r][2] * n.rect[r][3] * 255.0;
  }
  return bound < 0x1p24;
}

CV_HD uint32_t
pack_patch_weights (const Node & n)
{
  uint32_t p = 0;
  for (int r = 0; r < 3; r++)
    p |= ((uint32_t) (int) n.weight[r] & 0xffu) << (8 * r);
  return p;
}

/* A PatchNode's leaf values, one 8-byte load. */
struct alignas (8) PatchLeaves {
  float left, right;
};

/* Device or host arrays of a compiled cascade. */
struct CascadeView {
  const NodeWord *nodes; /* tiled: node_word () */
  const Stage *stages;
  const int *roots;      /* trees: root node of each tree */
  const float *leaves;   /* trees: leaf values */
  int nstages;
  int window_width, window_height;
  /* > 0: a stump cascade whose nodes hold their rectangles' corners in
   * the deep kernel's window patches (patch_rect), rows this many words
   * apart. 0: none (trees read a patch through their rectangles, at
   * patch_pitch_of ()). */
  int patch_pitch;
  /* patch_pitch > 0: the deep kernel's nodes (PatchNode) by node index:
   * their words A, leaf values and rectangles 2 */
  const NodeWord *patch_nodes;
  const PatchLeaves *patch_leaves;
  const uint32_t *patch_rect2s;
};

/* The row pitch of a view's window patches: its own, else (W + 1) | 1,
 * an odd one against bank conflicts. */
CV_HD int patch_pitch_of (const CascadeView & c)
{
  return c.patch_pitch > 0 ? c.patch_pitch : (c.window_width + 1) | 1;
}

/* A node rectangle's four corners in a window patch, packed in 32 bits
 * (the patch is at most kPatchRectMaxWords words): bits 0-9 the offset o
 * of the first corner read, bits 10-20 and 21-31 two signed steps d1, d2.
 * The rectangle's sum is [o] - [o + d1] - [o + d2] + [o + d1 + d2]: with
 * o its top-left corner, d1 its width and d2 its height times the pitch,
 * that is rect_sum; any of the four corners can come first (the steps
 * then their negations or each other), the uint32 sum the same.
 * patch_layout.h picks the corner that keeps bank conflicts few. */
constexpr int kPatchRectMaxWords = 1 << 10;

CV_HD uint32_t patch_rect (const Node & n, int r)
{
  return r == 0 ? (uint32_t) n.left : r == 1 ? (uint32_t) n.right : n.patch_rect2;
}

struct PatchCorners {
  unsigned o, d1, d2;  /* the steps modulo 2^32 */
};

/* The steps sign-extended by arithmetic shifts (C++20's rule, which GCC,
 * Clang and nvcc follow in C++17 too): a bit-field extract each on the
 * device. */
CV_HD PatchCorners unpack_patch_rect (uint32_t p)
{
  return { p & (unsigned) (kPatchRectMaxWords - 1), (unsigned) ((int32_t) (p << 11) >> 21),
    (unsigned) ((int32_t) p >> 21) };
}

/* The arrays behind a CascadeView, built on the host from a parsed
 * cascade (which guarantees every index used here is valid). */
struct CompiledCascade {
  std::vector<Node> nodes;
  std::vector<NodeWord> node_words; /* the nodes tiled (node_word ()) */
  std::vector<Stage> stages;
  std::vector<int> roots;
  std::vector<float> leaves;
  int window_width = 0, window_height = 0;
  bool stumps = true;
  /* stage_sums_exact (): stage sums may be added in any order */
  bool sums_exact = false;
  /* CascadeView::patch_pitch (arrange_patch_layout) */
  int patch_pitch = 0;
  /* patch_pitch > 0: the nodes as PatchNodes: their words A, then from
   * word patch_leaves_word on their leaf values (8 bytes each) and from
   * patch_rect2_word on their rectangles 2 (4 bytes each), all at the
   * node's index */
  std::vector<NodeWord> patch_words;
  size_t patch_leaves_word = 0, patch_rect2_word = 0;

  CascadeView view () const;
};

/* `v` with its PatchNode arrays, from the words of patch_words wherever
 * they lie (the host's vector or its copy on the device) and the offsets
 * compile_cascade gave them; none without a patch pitch. */
inline CascadeView
with_patch_arrays (CascadeView v, const NodeWord *words, size_t leaves_word, size_t rect2_word)
{
  const bool patch = v.patch_pitch > 0 && words;
  v.patch_nodes = patch ? words : nullptr;
  v.patch_leaves = patch ? reinterpret_cast<const PatchLeaves *> (words + leaves_word) : nullptr;
  v.patch_rect2s = patch ? reinterpret_cast<const uint32_t *> (words + rect2_word) : nullptr;
  return v;
}

inline CascadeView
CompiledCascade::view () const
{
  const CascadeView arrays { node_words.data (), stages.data (), roots.data (), leaves.data (), (int) stages.size (),
    window_width, window_height, patch_pitch, nullptr, nullptr, nullptr };
  return with_patch_arrays (arrays, patch_words.empty () ? nullptr : patch_words.data (), patch_leaves_word,
      patch_rect2_word);
}

/* patch_layout.cpp: the last step of compile_cascade for stump cascades
 * whose stage sums are exact in any order, and whose window patch fits
 * kPatchRectMaxWords (every one OpenCV ships that the patch takes). With
 * `search`, reorders each stage's weak classifiers, the first two
 * rectangles of each feature and the loads of each rectangle's corners so
 * that the deep kernel's shared-memory loads meet fewer bank conflicts;
 * without, keeps OpenCV's order. Either way writes every node's patch
 * corners (patch_rect) and sets patch_pitch. Every value and decision of
 * the cascade stays the same. Works on `nodes` and `patch_pitch`
 * (node_words are tiled after it). */
void arrange_patch_layout (CompiledCascade & c, bool search);

/* Whether every stage sum of the cascade is exact in double, whatever the
 * order of its terms: then a sum split over the lanes of a warp equals
 * OpenCV's left-to-right sum bit for bit, and deep stages can be evaluated
 * by many threads per window.
 *
 * A stage's terms are float leaf values. Each nonzero one is an integer
 * multiple of 2^e, e = its exponent minus 23 (2^-149 for subnormals), so
 * every partial sum of the stage is an integer multiple of 2^emin, emin the
 * smallest such e, and no larger in magnitude than B, the sum over its weak
 * classifiers of their largest |leaf|. Doubles hold every integer multiple
 * of 2^emin up to 2^53 * 2^emin exactly: when B stays under that (with a
 * factor 2 to spare for B's own rounding), no addition ever rounds.
 * OpenCV's shipped cascades need about 40 of the 53 bits. */
inline bool
stage_sums_exact (const HaarCascade & c)
{
  for (const HaarStage & s : c.stages) {
    int emin = INT32_MAX;
    double bound = 0;
    for (int t = s.first_tree; t < s.first_tree + s.tree_count; t++) {
      const HaarTree & tree = c.trees[t];
      float largest = 0.f;
      for (int k = 0; k <= tree.node_count; k++) {
        const float v = c.leaves[tree.first_leaf + k];
        if (v == 0.f)
          continue;
        if (!std::isfinite (v))
          return false;
        largest = std::max (largest, std::fabs (v));
        const int e = std::fpclassify (v) == FP_SUBNORMAL ? -149 : std::ilogb (v) - 23;
        emin = std::min (emin, e);
      }
      bound += largest;
    }
    if (emin != INT32_MAX && std::ldexp (bound, -emin) >= 0x1p52)
      return false;
  }
  return true;
}

/* The cascade's arrays for the kernels. `arrange`: reorder them for the
 * deep kernel's window patches where that is allowed (arrange_patch_layout;
 * false keeps OpenCV's order, for comparisons). */
inline CompiledCascade
compile_cascade (const HaarCascade & c, bool arrange = true)
{
  CompiledCascade out;
  out.window_width = c.window_width;
  out.window_height = c.window_height;
  out.stumps = c.is_stump_based ();
  out.leaves = c.leaves;
  out.nodes.resize (c.nodes.size ());
  for (size_t t = 0; t < c.trees.size (); t++) {
    const HaarTree & tree = c.trees[t];
    out.roots.push_back (tree.first_node);
    for (int k = 0; k < tree.node_count; k++) {
      const HaarNode & hn = c.nodes[tree.first_node + k];
      const HaarFeature & f = c.features[hn.feature];
      Node n;
      std::memset (&n, 0, sizeof n);
      for (int r = 0; r < 3; r++) {
        const HaarRect & hr = f.rects[r];
        if (r < f.nrects) {
          n.rect[r][0] = (uint8_t) hr.x;
          n.rect[r][1] = (uint8_t) hr.y;
          n.rect[r][2] = (uint8_t) hr.width;
          n.rect[r][3] = (uint8_t) hr.height;
          n.weight[r] = hr.weight;
        }
      }
      n.threshold = hn.threshold;
      auto encode = [&] (int v) { return v > 0 ? tree.first_node + v : -(tree.first_leaf - v) - 1; };
      n.left = encode (hn.left);
      n.right = encode (hn.right);
      n.left_val = c.leaves[tree.first_leaf];
      n.right_val = c.leaves[tree.first_leaf + 1];
      out.nodes[tree.first_node + k] = n;
    }
  }
  for (const HaarStage & s : c.stages)
    out.stages.push_back ({ s.first_tree, s.tree_count, s.threshold, 0 });
  out.sums_exact = stage_sums_exact (c);
  if (out.stumps && out.sums_exact)
    arrange_patch_layout (out, arrange);
  const size_t n = out.nodes.size ();
  out.node_words.resize (3 * 32 * ((n + 31) / 32));
  for (size_t i = 0; i < n; i++) {
    const Node t = tiled_node (out.nodes[i], out.stumps);
    for (size_t k = 0; k < 3; k++)
      std::memcpy (&out.node_words[node_word ((int) i) + 32 * k], reinterpret_cast<const char *> (&t) + 16 * k, 16);
  }
  if (out.patch_pitch > 0) {
    /* the deep kernel's PatchNodes: the same fields (the weights as
     * whole numbers, which arrange_patch_layout made sure of) */
    const size_t padded = 32 * ((n + 31) / 32);
    out.patch_leaves_word = padded;
    out.patch_rect2_word = padded + padded / 2;
    out.patch_words.assign (out.patch_rect2_word + padded / 4, NodeWord {});
    PatchLeaves *leaves = reinterpret_cast<PatchLeaves *> (out.patch_words.data () + out.patch_leaves_word);
    uint32_t *rect2 = reinterpret_cast<uint32_t *> (out.patch_words.data () + out.patch_rect2_word);
    for (size_t i = 0; i < n; i++) {
      const Node & nd = out.nodes[i];
      NodeWord & a = out.patch_words[i];
      a.w[0] = patch_rect (nd, 0);
      a.w[1] = patch_rect (nd, 1);
      a.w[2] = pack_patch_weights (nd);
      std::memcpy (&a.w[3], &nd.threshold, 4);
      leaves[i] = { nd.left_val, nd.right_val };
      rect2[i] = patch_rect (nd, 2);
    }
  }
  return out;
}

/* ---- Loads: read-only cache on the device ---- */

/* Node i from its tile. */
CV_HD Node load_node (const NodeWord *nodes, int i)
{
  Node n;
  const NodeWord *p = nodes + node_word (i);
#ifdef __CUDA_ARCH__
  const uint4 *q = reinterpret_cast<const uint4 *> (p);
  uint4 w[3] = { __ldg (q), __ldg (q + 32), __ldg (q + 64) };
  memcpy (&n, w, sizeof n);
#else
  for (int k = 0; k < 3; k++)
    std::memcpy (reinterpret_cast<char *> (&n) + 16 * k, p + 32 * k, 16);
#endif
  return n;
}
CV_HD Stage load_stage (const Stage *p)
{
#ifdef __CUDA_ARCH__
  const int4 v = __ldg (reinterpret_cast<const int4 *> (p));
  Stage s;
  memcpy (&s, &v, sizeof s);
  return s;
#else
  return *p;
#endif
}
template <typename T> CV_HD T load_ro (const T *p) { return CV_HD_PICK (__ldg (p), *p); }

/* PatchNode i of a view but its rectangle 2 (patch_stump_value reads
 * that where it is used). */
CV_HD PatchNode
load_patch_node (const CascadeView & c, unsigned i)
{
  PatchNode n;
  uint32_t w[4];
  PatchLeaves lr;
#ifdef __CUDA_ARCH__
  const uint4 wa = __ldg (reinterpret_cast<const uint4 *> (c.patch_nodes + i));
  const float2 l = __ldg (reinterpret_cast<const float2 *> (c.patch_leaves + i));
  w[0] = wa.x, w[1] = wa.y, w[2] = wa.z, w[3] = wa.w;
  lr = { l.x, l.y };
#else
  std::memcpy (w, c.patch_nodes + i, 16);
  lr = c.patch_leaves[i];
#endif
  n.rect[0] = w[0];
  n.rect[1] = w[1];
  n.rect[2] = 0;
  for (int r = 0; r < 3; r++)
    n.weight[r] = patch_weight (w[2], r);
  std::memcpy (&n.threshold, &w[3], 4);
  n.left_val = lr.left;
  n.right_val = lr.right;
  return n;
}

/* ---- One window ---- */

/* The window's corner as a base register of its own: without it the
 * compiler folds the corner's 64-bit offset into every load's address and
 * spends several 64-bit operations per load where one 32-bit multiply-add
 * onto the base does (rect_sum). */
CV_HD const uint32_t *window_base (const uint32_t *p)
{
#ifdef __CUDA_ARCH__
  asm ("" : "+l"(p));
#endif
  return p;
}

/* How integral entries are read: through the read-only cache (global
 * memory, the default), or plainly from a window's patch in shared memory,
 * there at the corners the rectangles give (PatchLoad, trees) or those
 * the nodes hold (PatchRectLoad, stumps: patch_rect). */
struct GlobalLoad {
  static constexpr bool kPatchRects = false;
  CV_HD uint32_t operator() (const uint32_t *p) const { return load_ro (p); }
};
/* GlobalLoad for stumps whose nodes come from the kernels' tiles
 * (tiled_node): shared corners read once (stump_feature_value). The
 * front and stages kernels' (L1-bound); the deep kernel keeps GlobalLoad
 * outside its patch (rarely used there, and the branches cost it spills
 * under its 48 registers). */
struct SharedCornerLoad : GlobalLoad {};
struct PatchLoad {
  static constexpr bool kPatchRects = false;
  CV_HD uint32_t operator() (const uint32_t *p) const { return *p; }
};
struct PatchRectLoad {
  static constexpr bool kPatchRects = true;
  CV_HD uint32_t operator() (const uint32_t *p) const { return *p; }
};

/* Sum of a rectangle of the integral image whose window corner is `w`
 * (CALC_SUM_OFS), in OpenCV's int; read-only loads on the device (the
 * integrals are global memory) unless Load says otherwise. */
template <typename Load = GlobalLoad>
CV_HD int rect_sum (const uint32_t *w, int pitch, int x, int y, int width, int height)
{
  const Load load {};
  /* 32-bit offsets from the window's corner (a window spans at most 256
   * rows of a 16385-word pitch): each load's address is then one
   * multiply-add, where pointer arithmetic on the corners took five
   * 64-bit operations (the feature loop is most of the detector's time) */
  const unsigned a = (unsigned) (y * pitch + x);
  const unsigned b = a + (unsigned) (height * pitch);
  return (int) (load (w + a) - load (w + a + (unsigned) width) - load (w + b) + load (w + b + (unsigned) width));
}

/* Rectangle r of a node: rect_sum, or from the corners the node holds
 * (patch_rect: the pitch is the patch's, which they were made for). */
template <typename Load>
CV_HD int node_rect_sum (const uint32_t *sum, int pitch, const Node & n, int r)
{
  if constexpr (Load::kPatchRects) {
    const Load load {};
    const PatchCorners c = unpack_patch_rect (patch_rect (n, r));
    return (int) (load (sum + c.o) - load (sum + (c.o + c.d1)) - load (sum + (c.o + c.d2)) +
        load (sum + (c.o + c.d1 + c.d2)));
  } else {
    return rect_sum<Load> (sum, pitch, n.rect[r][0], n.rect[r][1], n.rect[r][2], n.rect[r][3]);
  }
}

/* A window patch as patch_stump_value reads it, word by word. On the
 * device a shared-memory byte address: a corner's address is then one
 * shift-and-add onto it (the warp's patch in a register of its own), where
 * the compiler added the warp's offset to every corner's index before
 * scaling it onto the patches' base (12 instructions a rectangle, now 9).
 * The loads are volatile, so that they stay between the barriers that
 * bound the patch's lifetime, as plain loads of it did. */
struct PatchWords {
#ifdef __CUDA_ARCH__
  unsigned base;
  __device__ explicit PatchWords (const uint32_t *patch) : base ((unsigned) __cvta_generic_to_shared (patch)) {}
  __device__ __forceinline__ uint32_t operator() (unsigned word) const
  {
    /* the address in the asm: in C++ the compiler turned the first
     * corner's (p & 0x3ff) * 4 into (p << 2) & 0xffc, which no
     * multiply-add or shift-and-add takes */
    uint32_t v;
    asm volatile("{\n\t.reg .u32 a;\n\tmad.lo.u32 a, %1, 4, %2;\n\tld.shared.u32 %0, [a];\n\t}"
                 : "=r"(v)
                 : "r"(word), "r"(base));
    return v;
  }
#else
  const uint32_t *base;
  explicit PatchWords (const uint32_t *patch) : base (patch) {}
  uint32_t operator() (unsigned word) const { return base[word]; }
#endif
};

/* A rectangle's sum from the corners `p` packs (patch_rect): node_rect_sum
 * with PatchRectLoad, the same words in the same uint32 expression. */
CV_HD int
patch_rect_sum (const PatchWords & words, uint32_t p)
{
  const PatchCorners c = unpack_patch_rect (p);
  return (int) (words (c.o) - words (c.o + c.d1) - words (c.o + c.d2) + words (c.o + c.d1 + c.d2));
}

/* feature_value of PatchNode n (node i of the view) through the window
 * patch: its sum in integers (exact: patch_weights_exact), converted once
 * and scaled as feature_value does. */
CV_HD float
patch_feature_value (const CascadeView & c, const PatchNode & n, unsigned i, const PatchWords & words, float norm)
{
  int v = n.weight[0] * patch_rect_sum (words, n.rect[0]) + n.weight[1] * patch_rect_sum (words, n.rect[1]);
  if (n.weight[2] != 0)
    v += n.weight[2] * patch_rect_sum (words, load_ro (c.patch_rect2s + i));
  return fmul ((float) v, norm);
}

/* weak_value of a stump through the window patch: PatchNode i's side. */
CV_HD float
patch_stump_value (const CascadeView & c, unsigned i, const PatchWords & words, float norm)
{
  const PatchNode n = load_patch_node (c, i);
  return patch_feature_value (c, n, i, words, norm) < n.threshold ? n.left_val : n.right_val;
}

/* HaarEvaluator::setWindow: the variance normalization factor of the
 * window's inner (1, 1, W-2, H-2) rectangle; false when OpenCV rejects the
 * window (flat: standard deviation of 10 grey levels or less). */
CV_HD bool window_norm (const uint32_t *sum, const uint32_t *sq, int pitch, int win_w, int win_h, float *factor)
{
  const int valsum = rect_sum (sum, pitch, 1, 1, win_w - 2, win_h - 2);
  const unsigned valsqsum = (unsigned) rect_sum (sq, pitch, 1, 1, win_w - 2, win_h - 2);
  const double area = (double) ((win_w - 2) * (win_h - 2));
  double nf = dsub (dmul (area, (double) valsqsum), dmul ((double) valsum, (double) valsum));
  if (nf > 0.) {
    nf = dsqrt (nf);
    *factor = (float) ddiv (1., nf);
    return dmul (area, (double) *factor) < 1e-1;
  }
  *factor = 1.f;
  return false;
}

/* HaarEvaluator::OptFeature::calc times the normalization factor. The
 * first two rectangles may come in either order (arrange_patch_layout
 * swaps some, weights with them): their products meet in one float
 * addition, which commutes; a third is added last, as OpenCV does. */
template <typename Load = GlobalLoad>
CV_HD float feature_value (const Node & n, const uint32_t *sum, int pitch, float norm)
{
  float ret = fadd (fmul (n.weight[0], (float) node_rect_sum<Load> (sum, pitch, n, 0)),
      fmul (n.weight[1], (float) node_rect_sum<Load> (sum, pitch, n, 1)));
  if (n.weight[2] != 0.f)
    ret = fadd (ret, fmul (n.weight[2], (float) node_rect_sum<Load> (sum, pitch, n, 2)));
  return fmul (ret, norm);
}

/* feature_value of a stump from the integral (GlobalLoad) as the kernels'
 * tiles hold it (tiled_node): the corners its rectangles share
 * (corner_code) read once. Every rectangle's sum is rect_sum's uint32
 * expression over the same four words (a shared word is the one the
 * other rectangle read at the same address), its float operations
 * feature_value's, in its order. */
CV_HD float
stump_feature_value (const Node & n, const uint32_t *w, int pitch, float norm)
{
  const int code = n.left;
  if (code <= kCornersThree)
    return feature_value (n, w, pitch, norm);
  const GlobalLoad load {};
  const unsigned a0 = (unsigned) (n.rect[0][1] * pitch + n.rect[0][0]);
  const unsigned b0 = a0 + (unsigned) (n.rect[0][3] * pitch);
  const unsigned a1 = (unsigned) (n.rect[1][1] * pitch + n.rect[1][0]);
  const unsigned b1 = a1 + (unsigned) (n.rect[1][3] * pitch);
  const unsigned w0 = (unsigned) n.rect[0][2], w1 = (unsigned) n.rect[1][2];
  const uint32_t tl = load (w + a0), tr = load (w + a0 + w0), bl = load (w + b0), br = load (w + b0 + w0);
  uint32_t tl1 = tl, tr1 = tr, bl1 = bl, br1 = br;
  if (code == kShareLeft) {
    tr1 = load (w + a1 + w1);
    br1 = load (w + b1 + w1);
  } else if (code == kShareRight) {
    tl1 = load (w + a1);
    bl1 = load (w + b1);
  } else if (code == kShareTop) {
    bl1 = load (w + b1);
    br1 = load (w + b1 + w1);
  } else {
    tl1 = load (w + a1);
    tr1 = load (w + a1 + w1);
  }
  /* two rectangles (weight 2 is 0): feature_value's operations */
  return fmul (fadd (fmul (n.weight[0], (float) (int) (tl - tr - bl + br)),
                   fmul (n.weight[1], (float) (int) (tl1 - tr1 - bl1 + br1))),
      norm);
}

/* The leaf value one weak classifier gives a window (the stump's side, or
 * the leaf its tree walk ends in). */
template <bool STUMPS, typename Load = GlobalLoad>
CV_HD float weak_value (const CascadeView & c, int tree, const uint32_t *sum, int pitch, float norm)
{
  if constexpr (STUMPS && Load::kPatchRects) {
    /* the deep kernel's nodes (CascadeView::patch_nodes) */
    return patch_stump_value (c, (unsigned) tree, PatchWords (sum), norm);
  } else if (STUMPS && std::is_same_v<Load, SharedCornerLoad>) {
    /* from the integral: the tiles' corner codes (tiled_node) */
    const Node n = load_node (c.nodes, tree);
    return stump_feature_value (n, sum, pitch, norm) < n.threshold ? n.left_val : n.right_val;
  } else if (STUMPS) {
    const Node n = load_node (c.nodes, tree);
    return feature_value<Load> (n, sum, pitch, norm) < n.threshold ? n.left_val : n.right_val;
  }
  int idx = load_ro (c.roots + tree);
  do {
    const Node n = load_node (c.nodes, idx);
    idx = feature_value<Load> (n, sum, pitch, norm) < n.threshold ? n.left : n.right;
  } while (idx >= 0);
  return load_ro (c.leaves + (-idx - 1));
}

/* Stages [first, last) of CascadeClassifierImpl::runAt for a window whose
 * normalization factor is known: 1 when they all pass, -s when stage s
 * rejects the window. OpenCV's order: the stage sum accumulates in double,
 * weak classifier after weak classifier. `sum` may be a window patch
 * (Load PatchRectLoad or PatchLoad), as the deep kernel reads one. */
template <bool STUMPS, typename Load = GlobalLoad>
CV_HD int eval_stages (const CascadeView & c, const uint32_t *sum, int pitch, float norm, int first, int last)
{
  for (int si = first; si < last; si++) {
    const Stage st = load_stage (c.stages + si);
    double acc = 0;
    /* on the device, unrolled: the loads of several weak classifiers in
     * flight at once (the sum still adds them in order) */
    CV_FD_UNROLL4
    for (int t = 0; t < st.count; t++)
      acc = dadd (acc, (double) weak_value<STUMPS, Load> (c, st.first + t, sum, pitch, norm));
    if (acc < (double) st.threshold)
      return -si;
  }
  return 1;
}

/* CascadeClassifierImpl::runAt for one window whose top-left integral
 * entries are sum / sq: 1 when every stage passes, -s when stage s
 * rejects it (0: the first stage), -1 when the window is too flat to
 * normalize. Evaluates at most `max_stages` stages (a window that passes
 * them returns 1). */
template <bool STUMPS>
CV_HD int eval_window (const CascadeView & c, const uint32_t *sum, const uint32_t *sq, int pitch, int max_stages)
{
  float norm;
  if (!window_norm (sum, sq, pitch, c.window_width, c.window_height, &norm))
    return -1;
  return eval_stages<STUMPS> (c, sum, pitch, norm, 0, max_stages < c.nstages ? max_stages : c.nstages);
}

/* OpenCV's scan skips the window after one the first stage rejects
 * ("if (result == 0) x += yStep"). So a window is reported only when the
 * run of first-stage rejections right before it in its row is even:
 * evaluates the first stage of the windows to the left of grid column gx
 * (at x = (gx-1) * step, ...) and says whether OpenCV evaluated gx. The
 * walk is short: first-stage rejections are rare next to a detection. */
template <bool STUMPS>
CV_HD bool evaluated_by_opencv (const CascadeView & c, const uint32_t *row_sum, const uint32_t *row_sq, int pitch,
    int gx, int step)
{
  int zeros = 0;
  for (int g = gx - 1; g >= 0; g--) {
    if (eval_window<STUMPS> (c, row_sum + g * step, row_sq + g * step, pitch, 1) != 0)
      break;
    zeros++;
  }
  return (zeros & 1) == 0;
}

/* evaluated_by_opencv from first-stage results known side by side: bit
 * k of `rejected` says that the first stage rejected window first + k of
 * a row (eval_window's 0; a window too flat to normalize, -1, is not
 * one). Whether OpenCV's scan evaluates window first + i: 1 yes, 0 no
 * (the run of rejections right before it is odd), -1 unknown (the run
 * goes back past window `first`, and `first` is not the row's first). */
CV_HD int
evaluated_in_run (unsigned rejected, int i, bool row_start)
{
  const unsigned breaks = ~rejected & ((1u << i) - 1u);
  if (breaks == 0u && !row_start)
    return -1;
  const int last_break = breaks ? 31 - CV_HD_PICK (__clz ((int) breaks), __builtin_clz (breaks)) : -1;
  return ((i - 1 - last_break) & 1) == 0 ? 1 : 0;
}

}  // namespace haar
}  // namespace cudavision
