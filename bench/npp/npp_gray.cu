#include "npp_common.h"

int
main (int argc, char **argv)
{
  nppbench::Session session;
  const NppStreamContext & ctx = session.ctx;
  for (auto f : nppbench::sizes (argc, argv)) {
    const int sp = f.w * 4, dp = f.w;
    const size_t in_b = (size_t) sp * f.h, out_b = (size_t) dp * f.h;
    const int n = cvbench::rotation_count (in_b + out_b);
    auto in = cvbench::random_buffers (n, in_b, 1), out = cvbench::random_buffers (n, out_b, 2);
    auto t = cvbench::time_launches (session.s (), 20, 300, [&] (int i) {
      nppbench::npp_check (nppiRGBToGray_8u_AC4C1R_Ctx (in[i % n].as<Npp8u> (), sp, out[i % n].as<Npp8u> (), dp,
                               { f.w, f.h }, ctx), "RGBToGray");
    });
    nppbench::print_row ("nppiRGBToGray_8u_AC4C1R_Ctx", f, t);
  }
  return 0;
}
