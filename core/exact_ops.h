/* cudavision — float and double operations rounded one at a time, the
 * same on the device and the host.
 *
 * Code that must agree with OpenCV bit for bit (the cascade's arithmetic,
 * groupRectangles' means) computes as x86-64 SSE code does: every
 * operation rounded to nearest on its own. On the device the _rn
 * intrinsics stop nvcc from fusing a multiply and an add into one FMA;
 * on the host (no -ffast-math, no FMA contraction across statements of
 * SSE code) the plain operators already round so. */
#pragma once

#include "hd.h"

#include <cmath>



namespace cudavision {
namespace exact {

CV_HD float fmul (float a, float b) { return CV_HD_PICK (__fmul_rn (a, b), a * b); }
CV_HD float fadd (float a, float b) { return CV_HD_PICK (__fadd_rn (a, b), a + b); }
CV_HD float fsub (float a, float b) { return CV_HD_PICK (__fsub_rn (a, b), a - b); }
CV_HD float fdiv (float a, float b) { return CV_HD_PICK (__fdiv_rn (a, b), a / b); }
CV_HD double dmul (double a, double b) { return CV_HD_PICK (__dmul_rn (a, b), a * b); }
CV_HD double dadd (double a, double b) { return CV_HD_PICK (__dadd_rn (a, b), a + b); }
CV_HD double dsub (double a, double b) { return CV_HD_PICK (__dsub_rn (a, b), a - b); }
CV_HD double ddiv (double a, double b) { return CV_HD_PICK (__ddiv_rn (a, b), a / b); }
CV_HD double dsqrt (double a) { return CV_HD_PICK (__dsqrt_rn (a), std::sqrt (a)); }
/* cvRound: round half to even. */
CV_HD int round_d (double v) { return CV_HD_PICK (__double2int_rn (v), (int) std::lrint (v)); }
CV_HD int round_f (float v) { return CV_HD_PICK (__float2int_rn (v), (int) std::lrintf (v)); }

}  // namespace exact
}  // namespace cudavision
