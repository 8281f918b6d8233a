# Sourced by bench/gpu-inline.sh and bench/gpu-inline-sample.sh: one launch file made
# ready for the GPU runs of kernel mode.
#
# inline_prep LAUNCH OUT TAG: compiles the launch's .cu to PTX once (nvcc -ptx -lineinfo
# -arch=sm_90, the flags coalcheck uses) into OUT/NAME/k.ptx and writes the same launch on
# that PTX beside the original (its file: paths are relative to it) as .TAG_LAUNCH. Sets
# name (DIR_LAUNCH), w (OUT/NAME) and ll (the new launch file). Returns 1 when nvcc fails
# (its messages in $w/nvcc.err). Needs NVCC set.
inline_prep() {
  local launch=$1 out=$2 tag=$3 dir body cu
  dir=$(cd "$(dirname "$launch")" && pwd)
  name=$(basename "$dir")_$(basename "$launch" .launch)
  w="$out/$name"
  mkdir -p "$w"
  body=$(grep -v '^#' "$launch")
  cu=$(echo "$body" | head -n1 | awk '{print $1}')
  "$NVCC" -ptx -lineinfo -arch=sm_90 "$dir/$cu" -o "$w/k.ptx" 2>"$w/nvcc.err" || return 1
  ll="$dir/.${tag}_$(basename "$launch")"
  echo "$body" | sed "1s|^$cu|$w/k.ptx|" >"$ll"
}
