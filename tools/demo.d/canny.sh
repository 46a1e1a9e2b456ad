# Sourced by tools/demo.sh: Canny edges with the fused pre-blur.
run astronaut-edges cudagray ! cudacanny blur-sigma=1.5
