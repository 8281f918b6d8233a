# Sourced by the scripts: puts the CUDA toolkit on PATH when it is installed in the usual
# place but not on PATH (CI's environment may lack the login shell's PATH).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
