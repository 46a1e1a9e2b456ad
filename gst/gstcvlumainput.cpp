/* cudavision — the luma of GRAY8 or packed RGB frames (see the header). */
#include "gstcvlumainput.h"

#include "../cpu/gray_cpu.h"

bool
gst_cv_luma_input_set (GstCvLumaInput * in, const GstVideoInfo * info)
{
  in->gray = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_GRAY8;
  in->bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  return in->gray || gst_cv_packed_rgb_layout (GST_VIDEO_INFO_FORMAT (info), &in->layout);
}

void
gst_cv_luma_input_copy_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src, cudavision::Image8 dst)
{
  /* copy_plane copies `width` bytes a row: widen the views to bytes */
  cudavision::cpu::copy_plane ({ src.data, src.pitch, src.width * in.bpp, src.height },
      { dst.data, dst.pitch, dst.width * in.bpp, dst.height });
}

cudavision::ConstImage8
gst_cv_luma_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src, std::vector<uint8_t> * scratch)
{
  if (in.gray)
    return src;
  scratch->resize ((size_t) src.width * src.height);
  const cudavision::Image8 g { scratch->data (), (size_t) src.width, src.width, src.height };
  cudavision::cpu::rgb_to_gray (src, in.layout, g);
  return { g.data, g.pitch, g.width, g.height };
}
