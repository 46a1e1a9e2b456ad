/* cudavision — the luma of GRAY8, NV12, I420 or packed RGB frames (see the
 * header). */
#include "gstcvlumainput.h"

#include "gstcvoverlay.h"

#include "../cpu/gray_cpu.h"

bool
gst_cv_luma_input_set (GstCvLumaInput * in, const GstVideoInfo * info)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  in->yuv = gst_cv_format_is_yuv420 (format);
  in->gray = format == GST_VIDEO_FORMAT_GRAY8 || in->yuv;
  in->bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  return in->gray || gst_cv_packed_rgb_layout (format, &in->layout);
}

void
gst_cv_luma_input_copy_cpu (const GstCvLumaInput & in, cudavision::ConstImage8 src, cudavision::Image8 dst)
{
  /* copy_plane copies `width` bytes a row: widen the views to bytes */
  cudavision::cpu::copy_plane ({ src.data, src.pitch, src.width * in.bpp, src.height },
      { dst.data, dst.pitch, dst.width * in.bpp, dst.height });
}

void
gst_cv_luma_input_copy_chroma_cpu (const GstCvLumaInput & in, GstVideoFrame * src, GstVideoFrame * dst)
{
  if (!in.yuv)
    return;
  for (guint plane = 1; plane < GST_VIDEO_FRAME_N_PLANES (src); plane++) {
    const cudavision::ConstImage8 s = gst_cv_frame_const_plane (src, plane);
    /* NV12's UV plane: two bytes a sample */
    const int bytes = s.width * GST_VIDEO_FRAME_COMP_PSTRIDE (src, plane);
    cudavision::cpu::copy_plane ({ s.data, s.pitch, bytes, s.height },
        { (uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (dst, plane), (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (dst, plane), bytes,
            s.height });
  }
}

cudavision::CudaStatus
gst_cv_luma_input_copy_chroma_gpu (const GstCvLumaInput & in, GstVideoFrame * src, GstVideoFrame * dst,
    cudaStream_t stream)
{
  if (!in.yuv)
    return {};
  return gst_cv_frame_copy_planes (dst, src, 1, cudaMemcpyDeviceToDevice, stream);
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
