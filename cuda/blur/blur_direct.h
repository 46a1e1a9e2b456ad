/* cudavision — cudablur's direct kernel for GRAY8 (blur.h's
 * BlurVariant::Direct), internal to cuda/blur/: gaussian_blur calls it.
 *
 * A lane owns 16 adjacent pixels of a row (one 16-byte load) on a run of
 * consecutive rows and streams down them (blur_direct_strip.h), columns
 * first: the input rows (the rows, plus R above and R below) make packed
 * integer column sums (two pixels per multiply-add; the 2-row kernel adds
 * each row into the outputs it touches, the streaming kernel below keeps
 * 2R + 1 rows and sums an output's column at once), and an output row gets
 * its row pass, is packed and stored (one 16-byte store) as soon as its
 * last input row is in. The column sums beside a lane's 16
 * come from its neighbours by warp shuffle; only a segment's two end lanes
 * read one extra word each. No barrier, no halo tile, no pixel shared
 * between lanes through shared memory (the streaming kernel's row ring
 * there is each lane's own): the frame is read from DRAM about once (the
 * R rows above and below a run come from L2) and written once.
 *
 * Radius classes 1 and 2 (3x3, 5x5; blur_direct.cu's streaming kernel): a
 * lane's run is as long as fills one resident wave of blocks (8 rows at 4K
 * on an H100), and every SM is given the same number of runs. Each input
 * row is unpacked once (bytes widened to 16-bit pairs) into a ring of
 * 2R + 1 rows of registers; an output row's column sums are formed when
 * its last row is in, from pair sums of the symmetric taps (at radius 2: 2
 * adds and 3 multiply-adds a packed word), and its row pass runs by
 * two-way dot products (__dp2a_lo/hi: a 16-bit sum pair times byte taps, 3
 * a pixel), so row taps must fit a byte (a centre tap of 256, the identity
 * along x, takes the 2-row kernel, as do frames of R rows or fewer).
 * Frames whose width is a multiple of 16 read their rows through a ring of
 * 6 rows in shared memory that asynchronous copies (cp.async) fill 5 rows
 * ahead; other widths load the next row into registers while a row is
 * finished.
 *
 * Measured (cudavision-bench-kernels --only blur --iters 200, 5x5, median
 * of 200, us; each line one device call, two rounds): the first form,
 * every row accumulated into the 5 outputs it touches and the row pass in
 * unpacked 32-bit sums, with the register prefetch, on an H100: 8.35 at
 * 1920x1080, 9.73 at 2560x1440, 13.95 at 3840x2160 (2-row kernel 10.66,
 * 12.42, 17.02; fused 9.47, 12.93, 21.07); with an 8-row shared-memory
 * ring 8.00-8.10 and 12.83-12.96. The unpacked rows, pair sums and dp2a
 * row pass, 8-row ring, same H100 call: 7.58-7.62 and 12.29-12.32 (ncu: the
 * kernel 9.59 against 10.4 us at 4K, 3.90M instructions against 4.84M, 87
 * registers against 119). The form here (also 4-instruction reflection,
 * 6-row ring), on an H200 beside the first form with the 8-row ring:
 * 7.23 against 7.94-7.97 at 1920x1080, 10.98-11.10 against 12.16 at
 * 3840x2160; on an H100 beside the first form with the 6-row ring
 * (fifth session): 7.49-7.55 against 8.13-8.16, 11.94-12.16 against
 * 13.09-13.12. Of the bench's figure about 5 us is
 * the cost of a launch between two events (a 256x64 frame: 5.2 us).
 * Radius classes 3 and 4 (up to 9x9) keep the 2-row
 * kernel: a lane loads its 2 + 2R rows at once, kBlurDirectRows output
 * rows a lane; the halo is then at most one word on each side. Beyond,
 * the fused kernel runs.
 *
 * The arithmetic is blur.h's, reordered exactly (integer sums, see
 * blur_direct_strip.h) and rounded as OpenCV rounds, so the result is the
 * fused kernel's, bit for bit. */
#pragma once

#include "blur.h"

namespace cudavision {

/* The 2-row kernel (radius classes 3 and 4, and 1 and 2 for frames whose
 * pitch times height passes 2^32): output rows a lane produces (it reads
 * kBlurDirectRows + 2R rows), and the blocks an SM must hold at once (3:
 * registers capped at 85 a thread).
 * Measured on an H100 (2026-11-26, 5x5 at 4K, 16x16 blocks): 2 rows with 3
 * blocks 17.2 us; 4 rows, no cap (115 registers, 2 blocks) 18.5; 2 rows
 * uncapped 19.0; 4 rows capped at 3 blocks 21.4 (spills); 8 rows 31.4.
 * Fewer rows a lane mean more warps to hide the loads; the R-row overlap
 * they read again comes from L2. */
constexpr int kBlurDirectRows = 2;
constexpr int kBlurDirectThreads = 256; /* the fixed 16x16 block */
/* Radii 3 and 4 keep 2 blocks: capped at 3, their sums spill. (The
 * streaming kernel sets its own, kStreamMinBlocks in blur_direct.cu.) */
constexpr int
blur_direct_min_blocks (int radius)
{
  return radius <= 2 ? 3 : 2;
}
/* Largest radius the direct kernel compiles (radius classes 1 .. 4). */
constexpr int kBlurDirectMaxRadius = 4;

/* Whether the direct kernel can blur this: one channel, radii up to
 * kBlurDirectMaxRadius, source and destination rows 16-byte aligned. */
bool blur_direct_supported (int channels, const BlurTaps & taps, ConstImage8 src, Image8 dst);

/* Launches it (after blur_direct_supported), asynchronously, on its fixed
 * 16 x (kBlurDirectThreads / 16) block whatever the block-sizing mode. */
CudaStatus blur_direct (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy,
    cudaStream_t stream);

/* Traits of the kernel of a radius class (1..4), "blur.direct.c1.rR". */
const KernelTraits & blur_direct_traits (int radius_class);

}  // namespace cudavision
