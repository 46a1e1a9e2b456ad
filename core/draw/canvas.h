/* cudavision — a frame that overlays are drawn on, in any format the
 * elements pass through (GRAY8, packed RGB, NV12, I420), and the one
 * function that paints a pixel of it. The GPU's drawing kernels (face
 * boxes, corner crosses, flow tracks) and the CPU backend call the same
 * paint (), so both backends draw the same bytes.
 *
 * A pixel (x, y) of a YUV frame is its luma sample and the chroma sample
 * that covers it, (x / 2, y / 2): a mark one pixel wide colours a 2x2
 * block of chroma around it, as every 4:2:0 overlay does. Every pixel of
 * a mark writes the same values, so overlapping marks and threads that
 * meet on one chroma sample agree whatever their order. Opaque: the
 * colour replaces what was there (an alpha channel of the frame gets the
 * colour's alpha; padding bytes are left alone). Plain C++, callable from
 * kernels. */
#pragma once

#include "../image.h"
#include "../hd.h"

#include <cstddef>
#include <cstdint>

namespace cudavision {

enum class CanvasKind : uint8_t {
  Gray,        /* one byte a pixel: value[0] */
  Packed,      /* 3 or 4 bytes a pixel: value[k] at byte offset[k] (R, G, B, A; -1: none) */
  SemiPlanar,  /* NV12: Y plane, then interleaved U V at half size: value[0..2] = Y, U, V */
  Planar,      /* I420: Y, U, V planes, chroma at half size */
};

struct Canvas {
  CanvasKind kind = CanvasKind::Gray;
  uint8_t *plane[3] = { nullptr, nullptr, nullptr };
  size_t pitch[3] = { 0, 0, 0 };
  int width = 0, height = 0;       /* in pixels (the luma's size) */
  int bpp = 1;                     /* Packed: bytes per pixel */
  int8_t offset[4] = { 0, -1, -1, -1 };
  uint8_t value[4] = { 255, 0, 0, 0 };

  CV_HD bool
  inside (int x, int y) const
  {
    return x >= 0 && y >= 0 && x < width && y < height;
  }

  /* Paints pixel (x, y), which must be inside (). */
  CV_HD void
  paint (int x, int y) const
  {
    switch (kind) {
      case CanvasKind::Gray:
        plane[0][(size_t) y * pitch[0] + x] = value[0];
        break;
      case CanvasKind::Packed: {
        uint8_t *px = plane[0] + (size_t) y * pitch[0] + (size_t) x * bpp;
        for (int k = 0; k < 4; k++)
          if (offset[k] >= 0)
            px[offset[k]] = value[k];
        break;
      }
      case CanvasKind::SemiPlanar: {
        plane[0][(size_t) y * pitch[0] + x] = value[0];
        uint8_t *uv = plane[1] + (size_t) (y >> 1) * pitch[1] + (size_t) (x >> 1) * 2;
        uv[0] = value[1];
        uv[1] = value[2];
        break;
      }
      case CanvasKind::Planar: {
        plane[0][(size_t) y * pitch[0] + x] = value[0];
        plane[1][(size_t) (y >> 1) * pitch[1] + (x >> 1)] = value[1];
        plane[2][(size_t) (y >> 1) * pitch[2] + (x >> 1)] = value[2];
        break;
      }
    }
  }

  /* The same canvas on another frame of the same format and size: plane
   * 0 at `data` (pitch `p`); a kernel replayed from a graph takes its
   * frame's pointer so. Single-plane kinds only. */
  CV_HD Canvas
  with_plane0 (uint8_t *data, size_t p) const
  {
    Canvas c = *this;
    c.plane[0] = data;
    c.pitch[0] = p;
    return c;
  }

  /* Whether the colour can be drawn from a graph that knows plane 0 alone. */
  CV_HD bool single_plane () const { return kind == CanvasKind::Gray || kind == CanvasKind::Packed; }
};

/* An opaque colour as textoverlay's `color` property gives it: 0xAARRGGBB. */
struct OverlayColor {
  uint8_t a = 255, r = 255, g = 255, b = 255;

  static OverlayColor
  from_argb (uint32_t argb)
  {
    OverlayColor c;
    c.a = (uint8_t) (argb >> 24);
    c.r = (uint8_t) (argb >> 16);
    c.g = (uint8_t) (argb >> 8);
    c.b = (uint8_t) argb;
    return c;
  }
  uint32_t argb () const { return (uint32_t) a << 24 | (uint32_t) r << 16 | (uint32_t) g << 8 | b; }
};

/* The canvas of a packed RGB frame (`frame`'s width in pixels) in colour
 * `c`: R, G, B at the layout's bytes, the colour's alpha at an alpha byte
 * (padding bytes x are left alone). */
inline Canvas
packed_canvas (Image8 frame, PackedRgb layout, OverlayColor c)
{
  const PackedRgbLayout l = packed_rgb_layout (layout);
  int alpha = -1;
  switch (layout) {
    case PackedRgb::RGBA: case PackedRgb::BGRA: alpha = 3; break;
    case PackedRgb::ARGB: case PackedRgb::ABGR: alpha = 0; break;
    default: break;
  }
  Canvas cv;
  cv.kind = CanvasKind::Packed;
  cv.plane[0] = frame.data;
  cv.pitch[0] = frame.pitch;
  cv.width = frame.width;
  cv.height = frame.height;
  cv.bpp = l.channels;
  cv.offset[0] = (int8_t) l.r;
  cv.offset[1] = (int8_t) l.g;
  cv.offset[2] = (int8_t) l.b;
  cv.offset[3] = (int8_t) alpha;
  cv.value[0] = c.r;
  cv.value[1] = c.g;
  cv.value[2] = c.b;
  cv.value[3] = c.a;
  return cv;
}

/* The canvas of a GRAY8 frame: marks in white. */
inline Canvas
gray_canvas (Image8 frame)
{
  Canvas cv;
  cv.plane[0] = frame.data;
  cv.pitch[0] = frame.pitch;
  cv.width = frame.width;
  cv.height = frame.height;
  return cv;
}

}  // namespace cudavision
