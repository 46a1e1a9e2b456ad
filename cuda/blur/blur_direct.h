/* cudavision — cudablur's direct kernel for GRAY8 (blur.h's
 * BlurVariant::Direct), internal to cuda/blur/: gaussian_blur calls it.
 *
 * A lane owns 16 adjacent pixels of a row (one 16-byte load) on a run of
 * consecutive rows and streams down them (blur_direct_strip.h), columns
 * first: each input row (the rows, plus R above and R below) goes at once
 * into the packed integer column sums of the output rows it touches (two
 * pixels per multiply-add), and an output row gets its row pass, is packed
 * and stored (one 16-byte store) as soon as its last input row is in, so
 * at most 2R + 1 rows of sums are live. The column sums beside a lane's 16
 * come from its neighbours by warp shuffle; only a segment's two end lanes
 * read one extra word each. No barrier, no halo tile, no pixel shared
 * between lanes through shared memory (the streaming kernel's row ring
 * there is each lane's own): the frame is read from DRAM about once (the
 * R rows above and below a run come from L2) and written once.
 *
 * Radius classes 1 and 2 (3x3, 5x5; blur_direct.cu's streaming kernel): a
 * lane's run is as long as fills one resident wave of blocks (8 rows at 4K
 * on an H100), the sums of 2R + 1 rows in a ring of registers, and every
 * SM is given the same number of runs. Frames whose width is a multiple
 * of 16 read their input rows through a ring of 8 rows in shared memory
 * that asynchronous copies (cp.async) fill 7 rows ahead of the row being
 * summed; other widths load the next row into registers while a row is
 * finished. Measured on an H100 (2026-11-26,
 * cudavision-bench-kernels --only blur, 5x5, median of 200, µs), with the
 * register prefetch alone: 8.35 at 1920x1080, 9.73 at 2560x1440, 13.95 at
 * 3840x2160, against 10.66, 12.42 and 17.02 for the 2-row kernel below in
 * the same run (fused: 9.47, 12.93, 21.07); with the shared-memory ring,
 * beside the register form in one run: 8.06-8.13 against 8.26-8.42 at
 * 1920x1080, 12.90-13.15 against 13.79-13.86 at 3840x2160. Radius classes
 * 3 and 4 (up to 9x9) keep the 2-row
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
