/* cudavision — the boxes cudafacedetect draws, pixel for pixel the same on
 * the GPU (face_draw.cu) and the CPU backend (cpu/facedetect_cpu.cpp): a
 * border of kFaceBoxThickness pixels inside each box clipped to the frame,
 * each pixel painted on the frame's canvas (common/canvas.h: any format
 * the element passes through, in the element's `color`). Plain C++,
 * callable from kernels. */
#pragma once

#include "../hd.h"

#include <cstdint>


namespace cudavision {

constexpr int kFaceBoxThickness = 2;
constexpr uint32_t kFaceBoxColor = 0xff00ff00u;  /* ARGB: opaque green, the element's default */

/* A box clipped to the frame, split into its border bands. */
struct BoxBorder {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  /* clipped, exclusive end */
  int top = 0, bottom = 0;             /* full-width rows */
  int left = 0, right = 0;             /* columns of the rows in between */

  CV_HD int width () const { return x1 - x0; }
  CV_HD int middle_rows () const { return y1 - y0 - top - bottom; }
  /* Number of border pixels. */
  CV_HD int count () const { return (top + bottom) * width () + middle_rows () * (left + right); }

  /* The i-th border pixel (0 <= i < count()), rows first. */
  CV_HD void pixel (int i, int *x, int *y) const
  {
    const int w = width ();
    if (i < top * w) {
      *y = y0 + i / w;
      *x = x0 + i % w;
      return;
    }
    i -= top * w;
    if (i < bottom * w) {
      *y = y1 - bottom + i / w;
      *x = x0 + i % w;
      return;
    }
    i -= bottom * w;
    const int side = left + right;
    *y = y0 + top + i / side;
    const int c = i % side;
    *x = c < left ? x0 + c : x1 - right + (c - left);
  }
};

CV_HD BoxBorder
box_border (int x, int y, int w, int h, int frame_width, int frame_height, int thickness = kFaceBoxThickness)
{
  BoxBorder b;
  b.x0 = x < 0 ? 0 : x;
  b.y0 = y < 0 ? 0 : y;
  b.x1 = x + w > frame_width ? frame_width : x + w;
  b.y1 = y + h > frame_height ? frame_height : y + h;
  if (b.x1 <= b.x0 || b.y1 <= b.y0) {
    b.x1 = b.x0;
    b.y1 = b.y0;
    return b;
  }
  const int bw = b.x1 - b.x0, bh = b.y1 - b.y0;
  b.top = thickness < bh ? thickness : bh;
  b.bottom = thickness < bh - b.top ? thickness : bh - b.top;
  b.left = thickness < bw ? thickness : bw;
  b.right = thickness < bw - b.left ? thickness : bw - b.left;
  return b;
}

}  // namespace cudavision
