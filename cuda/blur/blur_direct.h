/* cudavision — cudablur's register-only kernel for GRAY8 (blur.h's
 * BlurVariant::Direct), internal to cuda/blur/: gaussian_blur calls it.
 *
 * A thread owns 4 adjacent pixels of a row (one 32-bit word) on
 * kBlurDirectRows consecutive rows and streams down them
 * (blur_direct_strip.h): each input row (the rows, plus R above and R
 * below) is read as aligned 32-bit words (the thread's word and one on each
 * side; the neighbours' words come from L1), its row pass is two dp4a
 * instructions a pixel (4 taps times 4 bytes each: the 8.8 taps fit in a
 * byte once the centre tap is below 256), and its 4 results go straight
 * into the column sums of the output rows they touch; an output row is
 * packed and stored (one 32-bit store) as soon as its last input row is in,
 * so at most 2R + 1 rows of sums are live. No shared memory, no barrier, no
 * halo tile: the frame is read from DRAM about once (the halo rows and
 * words hit L1) and written once.
 *
 * Radius classes 1 to 4 are compiled (up to 9x9): beyond, the words and
 * live sums a thread holds grow, and the fused kernel's shared tile amortizes
 * the halo better (not measured yet: bench/ times both).
 *
 * The arithmetic is blur.h's: the row pass in exact integers (at most
 * 255 * 256), the column pass in float on integer values below 2^24, the
 * rounding by blur_detail::out_bits, so the result is the fused kernel's,
 * bit for bit. */
#pragma once

#include "blur.h"

namespace cudavision {

/* Output rows a thread produces (it reads kBlurDirectRows + 2R rows). */
constexpr int kBlurDirectRows = 16;
/* Largest radius the direct kernel compiles (radius classes 1 .. 4). */
constexpr int kBlurDirectMaxRadius = 4;

/* Whether the direct kernel can blur this: one channel, radii up to
 * kBlurDirectMaxRadius, every x tap below 256 (a centre tap of 256, a
 * kernel that is 1 at its centre, does not fit dp4a's bytes), source and
 * destination rows 4-byte aligned. */
bool blur_direct_supported (int channels, const BlurTaps & taps, ConstImage8 src, Image8 dst);

/* Launches it (after blur_direct_supported). Asynchronous. */
CudaStatus blur_direct (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy,
    cudaStream_t stream);

/* Traits of the kernel of a radius class (1..4), "blur.direct.c1.rR". */
const KernelTraits & blur_direct_traits (int radius_class);

}  // namespace cudavision
