/* cudavision — groupRectangles semantics (see face_grouping.h); the
 * arithmetic is face_grouping_math.h's, shared with the device. */
#include "face_grouping.h"
#include "face_grouping_math.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace cudavision {

namespace {

int
find_root (std::vector<int> & parent, int i)
{
  int r = i;
  while (parent[r] != r)
    r = parent[r];
  while (parent[i] != r) {  /* path compression */
    const int next = parent[i];
    parent[i] = r;
    i = next;
  }
  return r;
}

}  // namespace

int
partition_rectangles (const std::vector<FaceRect> & rects, std::vector<int> & label, double eps)
{
  const int n = (int) rects.size ();
  std::vector<int> parent (n);
  for (int i = 0; i < n; i++)
    parent[i] = i;
  /* Only pairs that can be similar are compared: similar (a, b) needs
   * |a.x - b.x| and |a.y - b.y| <= delta <= eps * (a.width + a.height) / 2,
   * so for each rectangle the candidates lie in an x range of the list
   * sorted by x, and most of those fail on y at once. The classes are the
   * connected components of the relation whatever the order of the
   * unions, so they are the all-pairs loop's (cv::partition's) at a tenth
   * of its cost on a crowd. (A grid of cells per size class costs more in
   * lookups than the candidates it saves.) */
  struct Item {
    int x, y, index;
  };
  std::vector<Item> by_x (n);
  for (int i = 0; i < n; i++)
    by_x[i] = { rects[i].x, rects[i].y, i };
  std::sort (by_x.begin (), by_x.end (), [] (const Item & a, const Item & b) { return a.x < b.x; });
  for (int k = 0; k < n; k++) {
    const Item & a = by_x[k];
    const FaceRect & ra = rects[a.index];
    const int reach = (int) std::floor (eps * ((double) ra.width + ra.height) * 0.5);
    for (int m = k + 1; m < n && by_x[m].x - a.x <= reach; m++) {
      const Item & b = by_x[m];
      if (std::abs (b.y - a.y) > reach || !grouping::similar (ra, rects[b.index], eps))
        continue;
      const int ia = find_root (parent, a.index), ib = find_root (parent, b.index);
      if (ia != ib)
        parent[std::max (ia, ib)] = std::min (ia, ib);
    }
  }
  /* Classes numbered by their first member, as cv::partition numbers them. */
  label.assign (n, -1);
  std::vector<int> root_label (n, -1);
  int nclasses = 0;
  for (int i = 0; i < n; i++) {
    const int r = find_root (parent, i);
    if (root_label[r] < 0)
      root_label[r] = nclasses++;
    label[i] = root_label[r];
  }
  return nclasses;
}

void
group_rectangles (std::vector<FaceRect> & rects, int min_neighbors, double eps, std::vector<int> * neighbors)
{
  if (min_neighbors <= 0 || rects.empty ()) {
    if (neighbors)
      neighbors->assign (rects.size (), 1);
    return;
  }
  std::vector<int> labels;
  const int nclasses = partition_rectangles (rects, labels, eps);
  merge_classes (rects, labels, nclasses, min_neighbors, eps, neighbors);
}

void
merge_classes (std::vector<FaceRect> & rects, const std::vector<int> & label, int nclasses, int min_neighbors,
    double eps, std::vector<int> * neighbors)
{
  const int n = (int) rects.size ();
  std::vector<FaceRect> sum (nclasses);
  std::vector<int> count (nclasses, 0);
  for (int i = 0; i < n; i++) {
    FaceRect & s = sum[label[i]];
    s.x += rects[i].x;
    s.y += rects[i].y;
    s.width += rects[i].width;
    s.height += rects[i].height;
    count[label[i]]++;
  }
  std::vector<FaceRect> mean (nclasses);
  for (int c = 0; c < nclasses; c++)
    mean[c] = grouping::class_mean (sum[c], count[c]);

  /* Only the classes with more than min_neighbors members are kept or
   * can hide another: the pair test runs over those alone (a crowd of
   * faces leaves thousands of classes, a few hundred of them kept; over
   * all of them, as groupRectangles loops, this took most of the host's
   * time per frame), each one's margin computed once. Same classes, same
   * order, same test as OpenCV's. */
  struct Kept {
    int cls, dx, dy;
  };
  std::vector<Kept> kept;
  for (int c = 0; c < nclasses; c++)
    if (count[c] > min_neighbors)
      kept.push_back ({ c, grouping::containment_margin (mean[c].width, eps),
          grouping::containment_margin (mean[c].height, eps) });
  rects.clear ();
  if (neighbors)
    neighbors->clear ();
  for (const Kept & k1 : kept) {
    const FaceRect & r1 = mean[k1.cls];
    const int n1 = count[k1.cls];
    /* Drop a cluster inside a stronger one (small faces inside large). */
    bool inside = false;
    for (size_t j = 0; j < kept.size () && !inside; j++) {
      const Kept & k2 = kept[j];
      if (k2.cls == k1.cls)
        continue;
      inside = grouping::inside_stronger (r1, n1, mean[k2.cls], count[k2.cls], k2.dx, k2.dy);
    }
    if (inside)
      continue;
    rects.push_back (r1);
    if (neighbors)
      neighbors->push_back (n1);
  }
}

void
clip_rectangles (std::vector<FaceRect> & rects, int width, int height, std::vector<int> * neighbors)
{
  std::vector<FaceRect> out;
  std::vector<int> out_neighbors;
  out.reserve (rects.size ());
  for (size_t i = 0; i < rects.size (); i++) {
    const FaceRect & r = rects[i];
    const int x0 = std::max (r.x, 0), y0 = std::max (r.y, 0);
    const int x1 = std::min (r.x + r.width, width), y1 = std::min (r.y + r.height, height);
    if (x1 <= x0 || y1 <= y0)
      continue;
    out.push_back ({ x0, y0, x1 - x0, y1 - y0 });
    if (neighbors)
      out_neighbors.push_back ((*neighbors)[i]);
  }
  rects.swap (out);
  if (neighbors)
    neighbors->swap (out_neighbors);
}

}  // namespace cudavision
