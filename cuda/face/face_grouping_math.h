/* cudavision — the arithmetic of OpenCV's groupRectangles, written once
 * for the host's grouping (face_grouping.cpp) and the device's
 * (face_grouping.cu), so that the two cannot drift apart: the similarity
 * test, the class mean, the containment margin and the test that drops a
 * class inside a stronger one. Rounding as OpenCV's: the mean is
 * sum * (1.f / n) in float, rounded half to even (saturate_cast<int>
 * (float)); the margin cvRound (size * eps) in double. Plain C++ apart
 * from the CUDA intrinsics of exact_ops.h. */
#pragma once

#include "../../core/exact_ops.h"
#include "../../core/face/face_types.h"

#include <climits>

namespace cudavision {
namespace grouping {

CV_HD int imin (int a, int b) { return a < b ? a : b; }
CV_HD int iabs (int a) { return a < 0 ? -a : a; }

/* SimilarRects: every edge within eps times the mean of the two sizes. */
CV_HD bool similar (const FaceRect & a, const FaceRect & b, double eps)
{
  const double delta = eps * (double) (imin (a.width, b.width) + imin (a.height, b.height)) * 0.5;
  return iabs (a.x - b.x) <= delta && iabs (a.y - b.y) <= delta &&
      iabs (a.x + a.width - b.x - b.width) <= delta && iabs (a.y + a.height - b.y - b.height) <= delta;
}

/* saturate_cast<int> (float) */
CV_HD int saturate_round (float v)
{
  if (!(v > (float) INT_MIN))
    return INT_MIN;
  if (!(v < (float) INT_MAX))
    return INT_MAX;
  return exact::round_f (v);
}

/* A class's rectangle: the mean of its `n` members, whose coordinates sum
 * to `sum`. */
CV_HD FaceRect class_mean (const FaceRect & sum, int n)
{
  const float s = exact::fdiv (1.f, (float) n);
  FaceRect r;
  r.x = saturate_round (exact::fmul ((float) sum.x, s));
  r.y = saturate_round (exact::fmul ((float) sum.y, s));
  r.width = saturate_round (exact::fmul ((float) sum.width, s));
  r.height = saturate_round (exact::fmul ((float) sum.height, s));
  return r;
}

/* How far past a class's edges another may reach and still be inside. */
CV_HD int containment_margin (int size, double eps)
{
  return exact::round_d (exact::dmul ((double) size, eps));
}

/* Whether class 1 (mean r1, n1 members) is dropped for lying inside class
 * 2 (r2, n2, margins dx2 and dy2) that is stronger: small faces inside
 * large ones. */
CV_HD bool inside_stronger (const FaceRect & r1, int n1, const FaceRect & r2, int n2, int dx2, int dy2)
{
  return r1.x >= r2.x - dx2 && r1.y >= r2.y - dy2 && r1.x + r1.width <= r2.x + r2.width + dx2 &&
      r1.y + r1.height <= r2.y + r2.height + dy2 && (n2 > (n1 > 3 ? n1 : 3) || n1 < 3);
}

}  // namespace grouping
}  // namespace cudavision
