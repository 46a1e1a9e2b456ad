/* Unit tests of the launch policy and the block-size model (no GPU needed).
 *
 * About the paper's figures. The model is Guerfi, Kriaa and Saidane,
 * "Towards Automatic Block Size Tuning for Image Processing Algorithms on
 * CUDA" (2022), run on a GTX 1650 Ti. Only the abstract and the opening of
 * its section 4 ("Tuning block size") could be retrieved while writing these
 * tests; the section with the model's equations and the table of block
 * sizes it chooses per image size could not. So no test below claims to
 * reproduce a number printed in the paper. The expectations are derived by
 * hand from the equations as docs/BLOCK-SIZING.md states them, with the
 * arithmetic in the comments, on the paper's GPU and image sizes. */
#include "launch_policy.h"
#include "tuning_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace cudavision;

namespace {

struct Size {
  long w, h;
};

/* The paper's ten image sizes, plus the degenerate and the 4K cases. */
const std::vector<Size> kSizes = {
  { 1, 1 }, { 100, 100 }, { 320, 240 }, { 480, 240 }, { 512, 512 }, { 640, 480 }, { 720, 480 },
  { 600, 800 }, { 1280, 720 }, { 1024, 1024 }, { 1024, 1280 }, { 3840, 2160 },
};

KernelResources
light ()
{
  KernelResources r;
  r.regs_per_thread = 32;
  return r;
}

KernelResources
heavy ()
{
  KernelResources r;
  r.regs_per_thread = 128;
  return r;
}

/* The paper's setting: one thread per work item, a 1D grid over all of
 * them. Passing the whole image as one row gives exactly that. */
KernelTraits
flat_kernel ()
{
  KernelTraits k;
  k.name = "test.flat";
  k.two_d = false;
  return k;
}

KernelTraits
image_kernel (unsigned ipt_x = 1)
{
  KernelTraits k;
  k.name = "gray.rgb_to_gray";
  k.two_d = true;
  k.items_per_thread_x = ipt_x;
  return k;
}

unsigned
flat_choice (const DeviceDescription & d, const KernelResources & r, Size s)
{
  BlockShape b = model_choose (d, r, flat_kernel (), s.w * s.h, 1);
  EXPECT_EQ (b.y, 1u);
  return b.threads ();
}

long
round32 (long v)
{
  return (v + 31) / 32 * 32;
}

}  // namespace

/* ---------------- BlockShape ---------------- */

TEST (BlockShape, ParseAccepts)
{
  BlockShape b;
  ASSERT_TRUE (BlockShape::parse ("32x8", &b));
  EXPECT_EQ (b, (BlockShape { 32, 8 }));
  ASSERT_TRUE (BlockShape::parse ("256", &b));
  EXPECT_EQ (b, (BlockShape { 256, 1 }));
  ASSERT_TRUE (BlockShape::parse ("32x32", &b));
  EXPECT_EQ (b.threads (), 1024u);
  EXPECT_EQ ((BlockShape { 32, 8 }).str (), "32x8");
  EXPECT_EQ ((BlockShape { 256, 1 }).str (), "256x1");
}

TEST (BlockShape, ParseRejects)
{
  BlockShape b { 7, 7 };
  for (const char *bad : { "0x8", "8x0", "0", "33x33", "1025", "64x32", "abc", "32x", "x8", "", "32x8x1",
           "-32x8", "32 x8", " 32x8", "32x8 ", "+32", "32X8", "99999999999x1" }) {
    EXPECT_FALSE (BlockShape::parse (bad, &b)) << bad;
  }
  EXPECT_EQ (b, (BlockShape { 7, 7 })) << "a rejected string must not change the output";
}

TEST (BlockSizing, Names)
{
  EXPECT_STREQ (block_sizing_name (BlockSizing::Static), "static");
  EXPECT_STREQ (block_sizing_name (BlockSizing::EmpiricalTable), "empirical-table");
  EXPECT_STREQ (block_sizing_name (BlockSizing::Model), "model");
}

TEST (Devices, FixedDescriptions)
{
  const DeviceDescription g = gtx_1650_ti ();
  EXPECT_EQ (g.name, "NVIDIA GeForce GTX 1650 Ti");
  EXPECT_EQ (g.cc_major * 10 + g.cc_minor, 75);
  EXPECT_EQ (g.sm_count, 16);
  EXPECT_EQ (g.max_warps_per_sm (), 32);
  EXPECT_EQ (g.max_blocks_per_sm, 16);
  const DeviceDescription h = h100_sxm ();
  EXPECT_EQ (h.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ (h.cc_major * 10 + h.cc_minor, 90);
  EXPECT_EQ (h.sm_count, 132);
  EXPECT_EQ (h.max_warps_per_sm (), 64);
  EXPECT_EQ (h.max_blocks_per_sm, 32);
  EXPECT_EQ (h.smem_per_sm, 233472u);
}

/* ---------------- make_launch_config ---------------- */

TEST (LaunchConfig, GridCoversWork)
{
  KernelTraits k = image_kernel ();
  LaunchConfig c = make_launch_config (k, { 32, 8 }, 1920, 1080, "static");
  EXPECT_EQ (c.grid_x, 60u);   /* 1920 / 32 */
  EXPECT_EQ (c.grid_y, 135u);  /* 1080 / 8 */
  EXPECT_STREQ (c.source, "static");

  c = make_launch_config (k, { 32, 8 }, 1921, 1081, "static");
  EXPECT_EQ (c.grid_x, 61u);
  EXPECT_EQ (c.grid_y, 136u);

  /* 4 items per thread in x: 1921 -> 481 threads -> 16 blocks of 32. */
  c = make_launch_config (image_kernel (4), { 32, 8 }, 1921, 1080, "model");
  EXPECT_EQ (c.grid_x, 16u);

  /* Large frames: no cap on grid_y here, the launcher strides. */
  c = make_launch_config (k, { 32, 1 }, 64, 100000, "static");
  EXPECT_EQ (c.grid_y, 100000u);

  c = make_launch_config (k, { 32, 8 }, 1, 1, "static");
  EXPECT_EQ (c.grid_x, 1u);
  EXPECT_EQ (c.grid_y, 1u);
  c = make_launch_config (k, { 32, 8 }, 0, 0, "static");
  EXPECT_EQ (c.grid_x, 1u);
  EXPECT_EQ (c.grid_y, 1u);
}

/* ---------------- search space ---------------- */

TEST (SearchSpace, PaperBoundsOnBothDevices)
{
  /* GTX: B >= 1024 / 16 = 64; H100: B >= 2048 / 32 = 64; both up to 1024. */
  for (const DeviceDescription & d : { gtx_1650_ti (), h100_sxm () }) {
    std::vector<unsigned> s = model_search_space (d, light ());
    ASSERT_FALSE (s.empty ());
    EXPECT_EQ (s.front (), 64u) << d.name;
    EXPECT_EQ (s.back (), 1024u) << d.name;
    EXPECT_EQ (s.size (), 31u) << d.name;  /* 64, 96, ..., 1024 */
    for (unsigned b : s)
      EXPECT_EQ (b % 32, 0u);
  }
}

TEST (SearchSpace, LowerBoundFollowsDevice)
{
  /* A device with 2048 threads and 16 blocks per SM cannot fill an SM with
   * blocks under 128 threads. */
  DeviceDescription d = gtx_1650_ti ();
  d.max_threads_per_sm = 2048;
  EXPECT_EQ (model_search_space (d, light ()).front (), 128u);
}

TEST (SearchSpace, KernelLimits)
{
  /* 128 registers per thread: 128 * 32 = 4096 per warp; a sub-partition
   * holds 65536 / 4 = 16384 registers = 4 such warps, an SM 16 warps, so
   * no block above 512 threads can launch. */
  for (const DeviceDescription & d : { gtx_1650_ti (), h100_sxm () })
    EXPECT_EQ (model_search_space (d, heavy ()).back (), 512u) << d.name;

  KernelResources r = light ();
  r.max_threads_per_block = 256;
  EXPECT_EQ (model_search_space (gtx_1650_ti (), r).back (), 256u);

  /* 64 bytes of shared memory per thread: 49152 / 64 = 768 threads max. */
  r = light ();
  r.dynamic_smem_per_thread = 64;
  EXPECT_EQ (model_search_space (gtx_1650_ti (), r).back (), 768u);
}

/* ---------------- occupancy terms ---------------- */

TEST (ModelTerms, HandComputedGtx)
{
  /* GTX, 32 regs, B = 256, 640x480 = 307200 threads.
   * warps/block 8; limits: warps 32/8 = 4, blocks 16, registers
   * (32*32 = 1024 per warp, 16 warps per sub-partition, 64 per SM) 64/8 = 8
   * -> 4 resident blocks. warp occ 4*8/32 = 1; block occ 4/16 = 0.25.
   * 1200 blocks >= 16 SMs -> SM occ 1. Waves: ceil(1200 / (16*4)) = 19;
   * efficiency 307200 / (19 * 16*4*256) = 307200/311296. */
  OccupancyTerms t = model_terms (gtx_1650_ti (), light (), 256, 640 * 480);
  EXPECT_EQ (t.resident_blocks, 4);
  EXPECT_DOUBLE_EQ (t.warp_occupancy, 1.0);
  EXPECT_DOUBLE_EQ (t.block_occupancy, 0.25);
  EXPECT_DOUBLE_EQ (t.sm_occupancy, 1.0);
  EXPECT_NEAR (t.score, 307200.0 / 311296.0, 1e-12);

  /* Same block, 100 threads: 1 block on 1 SM of 16. Score
   * 1/16 * 1 * 100/(1 * 16*4*256). */
  t = model_terms (gtx_1650_ti (), light (), 256, 100);
  EXPECT_DOUBLE_EQ (t.sm_occupancy, 1.0 / 16);
  EXPECT_NEAR (t.score, (1.0 / 16) * (100.0 / 16384.0), 1e-15);

  /* B = 96: 3 warps, 32/3 = 10 blocks -> 30 warps, warp occ 30/32. */
  t = model_terms (gtx_1650_ti (), light (), 96, 640 * 480);
  EXPECT_EQ (t.resident_blocks, 10);
  EXPECT_DOUBLE_EQ (t.warp_occupancy, 30.0 / 32);
  EXPECT_DOUBLE_EQ (t.block_occupancy, 10.0 / 16);
}

TEST (ModelTerms, HandComputedH100RegisterBound)
{
  /* H100, 128 regs, B = 96, 10000 threads. Registers: 4096 per warp, 4
   * warps per sub-partition, 16 per SM -> 16/3 = 5 blocks (warps would
   * allow 64/3 = 21, blocks 32; the 1 KiB reserved shared memory 228).
   * warp occ 5*3/64 = 15/64; block occ 5/32. 105 blocks on 132 SMs ->
   * SM occ 105/132. One wave; efficiency 10000 / (132*5*96) = 10000/63360. */
  OccupancyTerms t = model_terms (h100_sxm (), heavy (), 96, 10000);
  EXPECT_EQ (t.resident_blocks, 5);
  EXPECT_DOUBLE_EQ (t.warp_occupancy, 15.0 / 64);
  EXPECT_DOUBLE_EQ (t.block_occupancy, 5.0 / 32);
  EXPECT_DOUBLE_EQ (t.sm_occupancy, 105.0 / 132);
  EXPECT_NEAR (t.score, (105.0 / 132) * (15.0 / 64) * (10000.0 / 63360.0), 1e-12);

  /* The allocation rounding matters: 37 regs * 32 = 1184 registers per
   * warp, allocated as 1280 (5 units of 256); a sub-partition's 16384
   * registers hold 12 such warps, the SM 48, so 48/3 = 16 blocks of 96.
   * (Without the rounding: 13 warps per part, 17 blocks; with one pool of
   * 65536: 51 warps, 17 blocks.) */
  KernelResources r;
  r.regs_per_thread = 37;
  t = model_terms (h100_sxm (), r, 96, 1 << 20);
  EXPECT_EQ (t.resident_blocks, 16);
  EXPECT_DOUBLE_EQ (t.warp_occupancy, 48.0 / 64);
}

TEST (ModelTerms, SharedMemoryAndLaunchFailures)
{
  /* 20000 bytes of static shared memory, rounded to 128 -> 20096; 65536 /
   * 20096 = 3 blocks per SM, below the warp limit 32/4 = 8 for B = 128. */
  KernelResources r = light ();
  r.static_smem_bytes = 20000;
  OccupancyTerms t = model_terms (gtx_1650_ti (), r, 128, 1 << 20);
  EXPECT_EQ (t.resident_blocks, 3);
  EXPECT_DOUBLE_EQ (t.warp_occupancy, 12.0 / 32);

  /* Hopper keeps 1 KiB per block for the system: 23000 + 1024 bytes round
   * to 24064, and 233472 / 24064 = 9 blocks (10 without the reserve). */
  r.static_smem_bytes = 23000;
  EXPECT_EQ (model_terms (h100_sxm (), r, 64, 1 << 20).resident_blocks, 9);

  /* More than 48 KiB per block cannot launch: everything 0. */
  r.static_smem_bytes = 50000;
  t = model_terms (gtx_1650_ti (), r, 128, 1 << 20);
  EXPECT_EQ (t.resident_blocks, 0);
  EXPECT_EQ (t.score, 0.0);

  /* 1024 threads of 128 registers need 131072 > 65536 registers. */
  t = model_terms (gtx_1650_ti (), heavy (), 1024, 1 << 20);
  EXPECT_EQ (t.resident_blocks, 0);
  EXPECT_EQ (t.score, 0.0);
}

/* ---------------- model choices ---------------- */

TEST (Model, HandDerivedChoicesGtx)
{
  const DeviceDescription g = gtx_1650_ti ();
  /* 100x100 = 10000 threads. One full wave holds 16*1024 = 16384 threads,
   * so every B with N = ceil(10000/B) >= 16 blocks (B <= 625) that fits
   * in one wave scores 10000/16384; B >= 544 has 1 resident block and so
   * either N <= 16 (idle SMs) or 2 waves. Of the tied scores, full warp
   * occupancy leaves 64, 128, 256, 512; the busiest SM then holds
   * ceil(157/16)*64 = 640, ceil(79/16)*128 = 640, ceil(40/16)*256 = 768,
   * ceil(20/16)*512 = 1024 threads; 64 and 128 balance best, and the
   * larger wins: 128. */
  EXPECT_EQ (flat_choice (g, light (), { 100, 100 }), 128u);

  /* 640x480 = 307200 threads = 18.75 full waves: every full-occupancy B
   * (64..1024, powers of two) needs 19 waves, any other needs more.
   * Busiest SM: 300*64 = 150*128 = 75*256 = 19200 threads, 38*512 =
   * 19*1024 = 19456 (1.3% worse), so 256. */
  EXPECT_EQ (flat_choice (g, light (), { 640, 480 }), 256u);

  /* 1920x1080 = 2073600 threads, 126.6 waves for all full-occupancy B;
   * the busiest SM differs by 0.35% at most (129600 for 64 vs 130048 for
   * 1024 threads), below the model's resolution, so the largest: 1024. */
  EXPECT_EQ (flat_choice (g, light (), { 1920, 1080 }), 1024u);

  /* Less work than the smallest candidate (64): one warp. */
  EXPECT_EQ (model_choose (g, light (), flat_kernel (), 1, 1), (BlockShape { 32, 1 }));
  EXPECT_EQ (model_choose (g, light (), image_kernel (), 1, 1), (BlockShape { 32, 1 }));
}

TEST (Model, HandDerivedChoicesH100)
{
  const DeviceDescription h = h100_sxm ();
  /* 100x100 on 132 SMs: only B <= 75 gives >= 132 blocks (64 -> 157), any
   * larger B leaves SMs idle (96 -> 105/132), so 64. On the GTX it is 128:
   * the same image gets a different block on the two devices. */
  EXPECT_EQ (flat_choice (h, light (), { 100, 100 }), 64u);
  EXPECT_NE (flat_choice (h, light (), { 100, 100 }), flat_choice (gtx_1650_ti (), light (), { 100, 100 }));
}

TEST (Model, ChoiceIsInBoundsAndNeverLargerThanTheWork)
{
  for (const DeviceDescription & d : { gtx_1650_ti (), h100_sxm () }) {
    for (const KernelResources & r : { light (), heavy () }) {
      const std::vector<unsigned> space = model_search_space (d, r);
      for (const Size & s : kSizes) {
        for (const KernelTraits & k : { flat_kernel (), image_kernel (), image_kernel (4) }) {
          const long w = k.two_d ? s.w : s.w * s.h;
          const long h = k.two_d ? s.h : 1;
          const BlockShape b = model_choose (d, r, k, w, h);
          const long tx = (w + k.items_per_thread_x - 1) / k.items_per_thread_x;
          const long work = tx * h;
          SCOPED_TRACE (d.name + " " + std::to_string (s.w) + "x" + std::to_string (s.h) + " regs " +
              std::to_string (r.regs_per_thread) + " " + b.str ());
          ASSERT_TRUE (b.valid ());
          EXPECT_LE ((long) b.threads (), round32 (work));
          EXPECT_LE ((long) b.x, round32 (tx));
          EXPECT_EQ (b.x % 32, 0u);
          if (work >= 64) {
            /* Within the paper's search space. */
            EXPECT_GE (b.threads (), space.front ());
            EXPECT_LE (b.threads (), space.back ());
            EXPECT_EQ (b.threads () % 32, 0u);
          }
          if (!k.two_d) {
            EXPECT_EQ (b.y, 1u);
          }
        }
      }
    }
  }
}

TEST (Model, SizeChangesTheChoice)
{
  /* The tail-effect term: small and large images do not get one block. */
  const DeviceDescription g = gtx_1650_ti ();
  EXPECT_NE (flat_choice (g, light (), { 100, 100 }), flat_choice (g, light (), { 3840, 2160 }));
  std::set<unsigned> seen;
  for (const Size & s : kSizes)
    seen.insert (flat_choice (g, light (), s));
  EXPECT_GE (seen.size (), 3u);
}

TEST (Model, DevicesDiffer)
{
  int differ = 0;
  for (const Size & s : kSizes) {
    if (flat_choice (gtx_1650_ti (), light (), s) != flat_choice (h100_sxm (), light (), s))
      differ++;
    if (model_choose (gtx_1650_ti (), light (), image_kernel (), s.w, s.h) !=
        model_choose (h100_sxm (), light (), image_kernel (), s.w, s.h))
      differ++;
  }
  EXPECT_GE (differ, 2);
}

TEST (Model, RegisterHeavyKernelsGetSmallerOrEqualBlocks)
{
  /* Where 128 registers per thread bind (at most 512 threads), the choice
   * must move; it can never grow. 1024x1024 on the GTX: the light kernel
   * takes 1024 threads (256 full waves of 16 blocks), the heavy one cannot. */
  const DeviceDescription g = gtx_1650_ti ();
  EXPECT_EQ (flat_choice (g, light (), { 1024, 1024 }), 1024u);
  EXPECT_EQ (flat_choice (g, heavy (), { 1024, 1024 }), 512u);

  int differ = 0;
  for (const DeviceDescription & d : { gtx_1650_ti (), h100_sxm () }) {
    for (const Size & s : kSizes) {
      for (const KernelTraits & k : { flat_kernel (), image_kernel () }) {
        const long w = k.two_d ? s.w : s.w * s.h;
        const long h = k.two_d ? s.h : 1;
        const unsigned lt = model_choose (d, light (), k, w, h).threads ();
        const unsigned ht = model_choose (d, heavy (), k, w, h).threads ();
        EXPECT_LE (ht, 512u);
        EXPECT_LE (ht, lt) << d.name << " " << s.w << "x" << s.h;
        differ += ht != lt;
      }
    }
  }
  EXPECT_GT (differ, 0);
}

TEST (Model, TwoDLayout)
{
  const DeviceDescription g = gtx_1650_ti ();
  /* 1920x1080 takes 1024 threads (as the flat case). Laid out: 1024x1,
   * 512x2 and 256x4 pad the width to 2048; 64x16 and 32x32 pad the height
   * to 1088; 128x8 covers 1920x1080 exactly. */
  EXPECT_EQ (model_choose (g, light (), image_kernel (), 1920, 1080), (BlockShape { 128, 8 }));

  /* A 1-row image never gets a tall block. */
  BlockShape b = model_choose (g, light (), image_kernel (), 3840, 1);
  EXPECT_EQ (b.y, 1u);

  /* A 1-column image: x is one warp, y carries the rest. */
  b = model_choose (g, light (), image_kernel (), 1, 4096);
  EXPECT_EQ (b.x, 32u);

  for (const Size & s : kSizes) {
    for (const DeviceDescription & d : { gtx_1650_ti (), h100_sxm () }) {
      b = model_choose (d, light (), image_kernel (4), s.w, s.h);
      EXPECT_EQ (b.x % 32, 0u) << s.w << "x" << s.h;
    }
  }
}

TEST (Model, FixedBlockAndPurity)
{
  KernelTraits k = image_kernel ();
  k.fixed_block = true;
  k.static_block = { 16, 16 };
  EXPECT_EQ (model_choose (gtx_1650_ti (), light (), k, 1920, 1080), (BlockShape { 16, 16 }));

  /* A pure function: same inputs, same answer. */
  const BlockShape a = model_choose (h100_sxm (), light (), image_kernel (), 1280, 720);
  for (int i = 0; i < 3; i++)
    EXPECT_EQ (model_choose (h100_sxm (), light (), image_kernel (), 1280, 720), a);

  /* No device description (no GPU queried): the kernel's static shape. */
  EXPECT_EQ (model_choose (DeviceDescription (), light (), image_kernel (), 640, 480), (BlockShape { 32, 8 }));
}

/* ---------------- LaunchPolicy ---------------- */

namespace {

struct LogSink {
  std::vector<std::pair<int, std::string>> lines;
  LaunchPolicy::Logger logger ()
  {
    return [this] (int level, const std::string & m) { lines.emplace_back (level, m); };
  }
  int count (const std::string & needle) const
  {
    int n = 0;
    for (const auto & l : lines)
      n += l.second.find (needle) != std::string::npos;
    return n;
  }
};

}  // namespace

TEST (Policy, StaticAndUser)
{
  LogSink log;
  KernelTraits k = image_kernel ();

  LaunchPolicy p (gtx_1650_ti (), BlockSizing::Static);
  p.set_logger (log.logger ());
  LaunchConfig c = p.choose (k, light (), 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 32, 8 }));
  EXPECT_STREQ (c.source, "static");
  EXPECT_EQ (c.grid_x, 60u);
  EXPECT_EQ (c.grid_y, 135u);
  ASSERT_EQ (log.lines.size (), 1u);
  EXPECT_EQ (log.lines[0].first, LaunchPolicy::LOG_DEBUG);
  EXPECT_EQ (log.lines[0].second, "kernel gray.rgb_to_gray 1920x1080: block 32x8 grid 60x135 (static)");

  LaunchPolicy u (gtx_1650_ti (), BlockSizing::Static, { 64, 2 });
  c = u.choose (k, light (), 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 64, 2 }));
  EXPECT_STREQ (c.source, "user");

  /* A kernel limited to 128 threads: shapes degrade, y first. */
  KernelResources small = light ();
  small.max_threads_per_block = 128;
  c = p.choose (k, small, 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 32, 4 }));
  c = u.choose (k, small, 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 64, 2 }));
  LaunchPolicy wide (gtx_1650_ti (), BlockSizing::Static, { 256, 4 });
  c = wide.choose (k, small, 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 128, 1 }));
  EXPECT_STREQ (c.source, "user");

  /* An impossible user shape (not from parse()) degrades too. */
  LaunchPolicy big (gtx_1650_ti (), BlockSizing::Static, { 64, 64 });
  c = big.choose (k, light (), 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 64, 16 }));
}

TEST (Policy, TableHitAndMiss)
{
  const DeviceDescription g = gtx_1650_ti ();
  auto table = std::make_shared<TuningTable> ();
  TuningKey key;
  key.gpu_name = g.name;
  key.cc_major = 7;
  key.cc_minor = 5;
  key.sm_count = 16;
  key.kernel = "gray.rgb_to_gray";
  key.width = 1920;
  key.height = 1080;
  table->put (key, { { 64, 4 }, 12.5, 12040 });

  LogSink log;
  LaunchPolicy p (g, BlockSizing::EmpiricalTable, {}, table);
  p.set_logger (log.logger ());
  KernelTraits k = image_kernel ();

  LaunchConfig c = p.choose (k, light (), 1920, 1080);
  EXPECT_EQ (c.block, (BlockShape { 64, 4 }));
  EXPECT_STREQ (c.source, "table");
  EXPECT_EQ (c.grid_x, 30u);
  EXPECT_EQ (c.grid_y, 270u);
  EXPECT_EQ (log.count ("no tuning-table entry"), 0);

  /* A size the table does not have: the model, reported once. */
  const BlockShape m = model_choose (g, light (), k, 1280, 720);
  for (int i = 0; i < 2; i++) {
    c = p.choose (k, light (), 1280, 720);
    EXPECT_EQ (c.block, m);
    EXPECT_STREQ (c.source, "table-miss:model");
  }
  EXPECT_EQ (log.count ("no tuning-table entry"), 1);
  EXPECT_EQ (log.count ("kernel gray.rgb_to_gray 1280x720: no tuning-table entry for NVIDIA GeForce GTX 1650 Ti"), 1);
  EXPECT_EQ (log.count ("(table-miss:model)"), 2) << "every choice is still logged";

  /* Another missing size is its own report. */
  p.choose (k, light (), 640, 480);
  EXPECT_EQ (log.count ("no tuning-table entry"), 2);
  for (const auto & l : log.lines)
    EXPECT_EQ (l.first, LaunchPolicy::LOG_DEBUG);

  /* Same name, other SM count (a cut-down part): not this GPU's entry. */
  DeviceDescription other = g;
  other.sm_count = 14;
  LaunchPolicy q (other, BlockSizing::EmpiricalTable, {}, table);
  EXPECT_STREQ (q.choose (k, light (), 1920, 1080).source, "table-miss:model");

  /* No table loaded at all. */
  LaunchPolicy none (g, BlockSizing::EmpiricalTable);
  LogSink log2;
  none.set_logger (log2.logger ());
  EXPECT_STREQ (none.choose (k, light (), 1920, 1080).source, "table-miss:model");
  none.choose (k, light (), 1920, 1080);
  EXPECT_EQ (log2.count ("no tuning-table entry"), 1);
}

TEST (Policy, ModelMode)
{
  LogSink log;
  LaunchPolicy p (h100_sxm (), BlockSizing::Model);
  p.set_logger (log.logger ());
  KernelTraits k = image_kernel ();
  LaunchConfig c = p.choose (k, light (), 1920, 1080);
  EXPECT_EQ (c.block, model_choose (h100_sxm (), light (), k, 1920, 1080));
  EXPECT_STREQ (c.source, "model");
  const LaunchConfig expect = make_launch_config (k, c.block, 1920, 1080, "model");
  EXPECT_EQ (c.grid_x, expect.grid_x);
  EXPECT_EQ (c.grid_y, expect.grid_y);
  ASSERT_EQ (log.lines.size (), 1u);
  EXPECT_EQ (log.lines[0].second, "kernel gray.rgb_to_gray 1920x1080: block " + c.block.str () + " grid " +
      std::to_string (c.grid_x) + "x" + std::to_string (c.grid_y) + " (model)");
}

TEST (Policy, FixedBlockInEveryMode)
{
  KernelTraits k = image_kernel ();
  k.name = "test.tiled";
  k.fixed_block = true;
  k.static_block = { 16, 16 };
  auto table = std::make_shared<TuningTable> ();
  TuningKey key;
  key.gpu_name = gtx_1650_ti ().name;
  key.cc_major = 7;
  key.cc_minor = 5;
  key.sm_count = 16;
  key.kernel = "test.tiled";
  key.width = 640;
  key.height = 480;
  table->put (key, { { 256, 1 }, 3.0, 0 });
  for (BlockSizing m : { BlockSizing::Static, BlockSizing::EmpiricalTable, BlockSizing::Model }) {
    LaunchPolicy p (gtx_1650_ti (), m, { 128, 1 }, table);
    LaunchConfig c = p.choose (k, light (), 640, 480);
    EXPECT_EQ (c.block, (BlockShape { 16, 16 })) << block_sizing_name (m);
    EXPECT_STREQ (c.source, "fixed");
    EXPECT_EQ (c.grid_x, 40u);
    EXPECT_EQ (c.grid_y, 30u);
  }
}
