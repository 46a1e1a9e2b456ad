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
 * on 132 SMs), and every SM is given the same number of runs. Each input
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
 * finished. Unpacking each row once and summing the symmetric taps in
 * pairs takes fewer instructions and registers than accumulating every
 * row into the outputs it touches, as a first form did
 * (docs/PERFORMANCE.md, "Why the kernels are built as they are").
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
 * registers capped at 85 a thread): the fastest of 2, 4 and 8 rows, capped
 * or not (4 rows capped spill). Fewer rows a lane mean more warps to hide
 * the loads; the R-row overlap they read again comes from L2. */
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

}  // namespace cudavision
