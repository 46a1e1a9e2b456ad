# Sourced by tools/demo.sh: smoothing, binarization and corners.
run astronaut-blur cudablur sigma=3
src=tests/data/sudoku.png run sudoku-otsu cudagray ! cudaotsu
src=tests/data/left01.jpg run left01-corners cudaharris method=shi-tomasi draw=true
