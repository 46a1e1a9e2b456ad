# Sourced by tools/demo.sh: faces boxed (OpenCV's frontal-face cascade).
run astronaut-faces cudafacedetect draw=true
