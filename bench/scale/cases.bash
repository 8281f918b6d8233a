# The launches of bench/scale.sh's cases (sourced by bench/scale.sh and bench/scale-ab.sh,
# run from the repository root): the naive and tiled transposes at 4096^2 and PolyBench's
# covariance kernel, as PTX in this folder (no nvcc needed); lanes2 (not in scale.sh's
# default cases): the naive transpose by lanes 5 and 27 of each warp, every record of 2 lanes, the
# cache model unsampled (lanes2.ptx says why).
# the launch of each case (INPUT and arguments) and its output buffer
case_args() {
  case $1 in
  naive) echo "bench/scale/transpose.ptx --kernel _Z15transpose_naivePfPKfi --grid 128,512
    --block 32,8 --arg out=f32[n*n]:zero --arg in=f32[n*n]:random:1 --arg n=4096" ;;
  tiled) echo "bench/scale/transpose.ptx --kernel _Z15transpose_tiledPfPKfi --grid 128,128
    --block 32,8 --arg out=f32[n*n]:zero --arg in=f32[n*n]:random:1 --arg n=4096" ;;
  covariance) echo "bench/scale/covariance.ptx --kernel _Z12covar_kernelPfS_ii --grid 64
    --block 32 --arg symmat=f32[(m+1)*(m+1)]:zero --arg data=f32[(n+1)*(m+1)]:random:51
    --arg m=2048 --arg n=48" ;;
  lanes2) echo "bench/scale/lanes2.ptx --kernel transpose_lanes2 --grid 128,512 --block 32,8
    --arg out=f32[n*n]:zero --arg in=f32[n*n]:random:1 --arg n=4096 --cache h100,sample=1" ;;
  esac
}
case_buf() { [ "$1" = covariance ] && echo symmat || echo out; }
