#include "npp_common.h"

int
main (int argc, char **argv)
{
  nppbench::Session session;
  const NppStreamContext & ctx = session.ctx;
  for (auto f : nppbench::sizes (argc, argv)) {
    const int sp = f.w, dp = f.w * 4;
    const size_t in_b = (size_t) sp * f.h, out_b = (size_t) dp * f.h;
    const int n = cvbench::rotation_count (in_b + out_b);
    auto in = cvbench::random_buffers (n, in_b, 1), out = cvbench::random_buffers (n, out_b, 2);
    int buf_size = 0;
    nppbench::npp_check (nppiFilterHarrisCornersBorderGetBufferSize ({ f.w, f.h }, &buf_size), "size");
    cudavision::DeviceBuffer buf;
    cvbench::check (buf.allocate (buf_size).err, "buf");
    auto t = cvbench::time_launches (session.s (), 20, 300, [&] (int i) {
      nppbench::npp_check (nppiFilterHarrisCornersBorder_8u32f_C1R_Ctx (in[i % n].as<Npp8u> (), sp, { f.w, f.h },
                               { 0, 0 }, out[i % n].as<Npp32f> (), dp, { f.w, f.h }, NPP_FILTER_SOBEL,
                               NPP_MASK_SIZE_3_X_3, NPP_MASK_SIZE_3_X_3, 0.04f, 1.0f, NPP_BORDER_REPLICATE,
                               buf.as<Npp8u> (), ctx),
          "HarrisCorners");
    });
    nppbench::print_row ("nppiFilterHarrisCornersBorder_8u32f_C1R_Ctx", f, t);
  }
  return 0;
}
