#include "npp_common.h"

int
main (int argc, char **argv)
{
  nppbench::Session session;
  const NppStreamContext & ctx = session.ctx;
  for (auto f : nppbench::sizes (argc, argv)) {
    const int p = f.w;
    const size_t b = (size_t) p * f.h;
    const int n = cvbench::rotation_count (b);
    auto in = cvbench::random_buffers (n, b, 1);
    size_t buf_size = 0;
    nppbench::npp_check (nppiHistogramEvenGetBufferSize_8u_C1R_Ctx ({ f.w, f.h }, 257, &buf_size, ctx), "size");
    cudavision::DeviceBuffer buf, hist;
    cvbench::check (buf.allocate (buf_size).err, "buf");
    cvbench::check (hist.allocate (256 * sizeof (Npp32s)).err, "hist");
    auto t = cvbench::time_launches (session.s (), 20, 300, [&] (int i) {
      nppbench::npp_check (nppiHistogramEven_8u_C1R_Ctx (in[i % n].as<Npp8u> (), p, { f.w, f.h }, hist.as<Npp32s> (),
                               257, 0, 256, buf.as<Npp8u> (), ctx), "HistogramEven");
    });
    nppbench::print_row ("nppiHistogramEven_8u_C1R_Ctx 256 bins", f, t);
  }
  return 0;
}
