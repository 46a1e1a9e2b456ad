/* NPP's Canny (Sobel 3x3, thresholds 50 / 150, replicated border) on the
 * frames cudavision-bench-kernels' canny rows use: the edge-rich cells frame
 * (bench/canny_frame.h) and uniform random bytes, with both norms, and the
 * bundled photographs (L2) that cudavision-bench-kernels left scaled in
 * canny_photo_dir () (run it first; a missing photograph is reported). */
#include "npp_common.h"

#include "../canny_frame.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <string>

int
main (int argc, char **argv)
{
  nppbench::Session session;
  const NppStreamContext & ctx = session.ctx;
  for (auto f : nppbench::sizes (argc, argv)) {
    const int p = f.w;
    const size_t b = (size_t) p * f.h;
    const int n = cvbench::rotation_count (2 * b);
    auto noise = cvbench::random_buffers (n, b, 1), out = cvbench::random_buffers (n, b, 2);
    auto cells = cvbench::random_buffers (n, b, 3);
    const std::vector<uint8_t> host = cvbench::canny_frame (f.w, f.h, (size_t) p);
    for (auto & c : cells)
      cvbench::check (cudaMemcpy (c.get (), host.data (), b, cudaMemcpyHostToDevice), "upload");
    int buf_size = 0;
    nppbench::npp_check (nppiFilterCannyBorderGetBufferSize ({ f.w, f.h }, &buf_size), "FilterCannyBorderGetBufferSize");
    cudavision::DeviceBuffer buf;
    cvbench::check (buf.allocate ((size_t) buf_size).err, "buf");
    struct Case {
      std::string name;
      std::vector<cudavision::DeviceBuffer> *in;
      NppiNorm norm;
    };
    std::vector<Case> cases = {
      { "nppiFilterCannyBorder_8u_C1R_Ctx L2 cells", &cells, nppiNormL2 },
      { "nppiFilterCannyBorder_8u_C1R_Ctx L1 cells", &cells, nppiNormL1 },
      { "nppiFilterCannyBorder_8u_C1R_Ctx L2 noise", &noise, nppiNormL2 },
    };
    std::vector<std::vector<cudavision::DeviceBuffer>> photos;
    photos.reserve (sizeof (cvbench::kCannyPhotos) / sizeof (cvbench::kCannyPhotos[0]));
    for (const char *file : cvbench::kCannyPhotos) {
      const std::string path = cvbench::canny_photo_path (file, f.w, f.h);
      std::vector<uint8_t> px (b);
      std::ifstream in (path, std::ios::binary);
      if (!in.read ((char *) px.data (), (std::streamsize) b)) {
        std::printf ("NPP canny: no %s (run cudavision-bench-kernels first)\n", path.c_str ());
        continue;
      }
      photos.push_back (cvbench::random_buffers (n, b, 4));
      for (auto & d : photos.back ())
        cvbench::check (cudaMemcpy (d.get (), px.data (), b, cudaMemcpyHostToDevice), "upload");
      const std::string name = file;
      cases.push_back ({ "nppiFilterCannyBorder_8u_C1R_Ctx L2 " + name.substr (0, name.find_first_of ("._")),
          &photos.back (), nppiNormL2 });
    }
    for (const Case & c : cases) {
      auto t = cvbench::time_launches (session.s (), 20, 300, [&] (int i) {
        nppbench::npp_check (nppiFilterCannyBorder_8u_C1R_Ctx ((*c.in)[i % n].as<const Npp8u> (), p, { f.w, f.h },
                                 { 0, 0 }, out[i % n].as<Npp8u> (), p, { f.w, f.h }, NPP_FILTER_SOBEL,
                                 NPP_MASK_SIZE_3_X_3, (Npp16s) 50, (Npp16s) 150, c.norm, NPP_BORDER_REPLICATE,
                                 buf.as<Npp8u> (), ctx),
            "FilterCannyBorder");
      });
      nppbench::print_row (c.name.c_str (), f, t);
    }
  }
  return 0;
}
