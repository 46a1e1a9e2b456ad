/* cudavision tests — colour overlays checked sample by sample (see the
 * header). */
#include "overlay_check.h"

#include "gstcvoverlay.h"

#include <map>
#include <tuple>
#include <sstream>

namespace cvtest {

std::vector<uint8_t>
overlay_color_bytes (const GstVideoInfo * info, uint32_t argb)
{
  cudavision::Canvas c;
  if (!gst_cv_canvas_init (info, argb, &c))
    return {};
  switch (c.kind) {
    case cudavision::CanvasKind::Gray: return { c.value[0] };
    case cudavision::CanvasKind::Packed: return { c.value[0], c.value[1], c.value[2], c.value[3] };
    default: return { c.value[0], c.value[1], c.value[2] };
  }
}

namespace {

/* One expected sample: plane, row, byte within the row, value. */
struct Sample {
  int plane, y, byte;
  bool operator< (const Sample & o) const
  {
    return std::tie (plane, y, byte) < std::tie (o.plane, o.y, o.byte);
  }
};

}  // namespace

::testing::AssertionResult
overlay_matches (const std::vector<cv::Mat> & in, const std::vector<cv::Mat> & out, const GstVideoInfo * info,
    uint32_t argb, const std::vector<cv::Point> & pixels)
{
  if (in.size () != out.size () || in.empty ())
    return ::testing::AssertionFailure () << "plane counts " << in.size () << " and " << out.size ();
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  const uint8_t a = argb >> 24, r = argb >> 16, g = argb >> 8, b = argb;
  std::map<Sample, uint8_t> want;
  const std::vector<uint8_t> yuv = overlay_color_bytes (info, argb);
  for (const cv::Point & p : pixels) {
    if (p.x < 0 || p.y < 0 || p.x >= info->width || p.y >= info->height)
      return ::testing::AssertionFailure () << "painted pixel (" << p.x << ", " << p.y << ") outside the frame";
    switch (format) {
      case GST_VIDEO_FORMAT_GRAY8:
        want[{ 0, p.y, p.x }] = 255;
        break;
      case GST_VIDEO_FORMAT_NV12:
        want[{ 0, p.y, p.x }] = yuv[0];
        want[{ 1, p.y / 2, p.x / 2 * 2 }] = yuv[1];
        want[{ 1, p.y / 2, p.x / 2 * 2 + 1 }] = yuv[2];
        break;
      case GST_VIDEO_FORMAT_I420:
        want[{ 0, p.y, p.x }] = yuv[0];
        want[{ 1, p.y / 2, p.x / 2 }] = yuv[1];
        want[{ 2, p.y / 2, p.x / 2 }] = yuv[2];
        break;
      default: {
        const int bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
        /* the byte of component c of pixel p in its row (poffset is unsigned) */
        auto byte_of = [&] (int c) { return p.x * bpp + (int) GST_VIDEO_INFO_COMP_POFFSET (info, c); };
        want[{ 0, p.y, byte_of (GST_VIDEO_COMP_R) }] = r;
        want[{ 0, p.y, byte_of (GST_VIDEO_COMP_G) }] = g;
        want[{ 0, p.y, byte_of (GST_VIDEO_COMP_B) }] = b;
        if (GST_VIDEO_INFO_HAS_ALPHA (info))
          want[{ 0, p.y, byte_of (GST_VIDEO_COMP_A) }] = a;
        break;
      }
    }
  }
  long wrong_painted = 0, wrong_other = 0;
  std::ostringstream first;
  /* the bytes are visited in the map's order: one pass over both rather
   * than a look-up per byte (a million of them on a portrait) */
  auto next = want.begin ();
  for (size_t pl = 0; pl < in.size (); pl++) {
    const cv::Mat & i = in[pl], & o = out[pl];
    if (i.size () != o.size () || i.type () != o.type ())
      return ::testing::AssertionFailure () << "plane " << pl << " differs in size or type";
    const int row_bytes = i.cols * (int) i.elemSize ();
    for (int y = 0; y < i.rows; y++) {
      const uint8_t *ir = i.ptr<uint8_t> (y), *orow = o.ptr<uint8_t> (y);
      for (int x = 0; x < row_bytes; x++) {
        const Sample here { (int) pl, y, x };
        while (next != want.end () && next->first < here)
          next++;
        const auto it = next != want.end () && !(here < next->first) ? next : want.end ();
        const uint8_t expect = it != want.end () ? it->second : ir[x];
        if (orow[x] == expect)
          continue;
        (it != want.end () ? wrong_painted : wrong_other)++;
        if (first.tellp () == 0)
          first << "plane " << pl << " row " << y << " byte " << x << ": " << (int) orow[x] << ", expected "
                << (int) expect << (it != want.end () ? " (painted)" : " (unchanged)");
      }
    }
  }
  if (wrong_painted || wrong_other)
    return ::testing::AssertionFailure () << wrong_painted << " painted and " << wrong_other
                                          << " other bytes wrong of " << pixels.size () << " pixels; first: "
                                          << first.str ();
  return ::testing::AssertionSuccess ();
}

}  // namespace cvtest
