#include "npp_common.h"

int
main (int argc, char **argv)
{
  nppbench::Session session;
  const NppStreamContext & ctx = session.ctx;
  for (auto f : nppbench::sizes (argc, argv)) {
    const int p = f.w;
    const size_t b = (size_t) p * f.h;
    const int n = cvbench::rotation_count (2 * b);
    auto in = cvbench::random_buffers (n, b, 1), out = cvbench::random_buffers (n, b, 2);
    auto t = cvbench::time_launches (session.s (), 20, 300, [&] (int i) {
      nppbench::npp_check (nppiFilterGaussBorder_8u_C1R_Ctx (in[i % n].as<Npp8u> (), p, { f.w, f.h }, { 0, 0 },
                               out[i % n].as<Npp8u> (), p, { f.w, f.h }, NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx),
          "FilterGaussBorder");
    });
    nppbench::print_row ("nppiFilterGaussBorder_8u_C1R_Ctx 5x5", f, t);
  }
  return 0;
}
