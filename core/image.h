/* cudavision — plain views of pitched images, the currency of cuda/ and cpu/.
 *
 * No GStreamer types here: the elements fill these from GstVideoFrames. */
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudavision {

template <typename T> struct ImageView {
  T *data = nullptr;
  size_t pitch = 0;  /* bytes between rows */
  int width = 0;
  int height = 0;
};

using Image8 = ImageView<uint8_t>;
using ConstImage8 = ImageView<const uint8_t>;

/* Packed colour layouts that cudagray reads. The channel order names the
 * bytes in memory, as GStreamer's format names do. */
enum class PackedRgb { RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR };

struct PackedRgbLayout {
  int channels;  /* bytes per pixel: 3 or 4 */
  int r, g, b;   /* byte offset of each colour within a pixel */
};

inline PackedRgbLayout
packed_rgb_layout (PackedRgb f)
{
  switch (f) {
    case PackedRgb::RGBA: case PackedRgb::RGBx: return { 4, 0, 1, 2 };
    case PackedRgb::BGRA: case PackedRgb::BGRx: return { 4, 2, 1, 0 };
    case PackedRgb::ARGB: case PackedRgb::xRGB: return { 4, 1, 2, 3 };
    case PackedRgb::ABGR: case PackedRgb::xBGR: return { 4, 3, 2, 1 };
    case PackedRgb::RGB: return { 3, 0, 1, 2 };
    case PackedRgb::BGR: return { 3, 2, 1, 0 };
  }
  return { 4, 0, 1, 2 };
}

}  // namespace cudavision
