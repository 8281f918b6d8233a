// Per-thread local arrays indexed dynamically (forces .local), math functions.
__global__ void local_sort(const float *in, float *out, const int *idx, int n) {
  float buf[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#pragma unroll 1
  for (int k = 0; k < 16; k++) buf[k] = in[(i * 16 + k) % n];
#pragma unroll 1
  for (int a = 1; a < 16; a++) {
    float v = buf[a];
    int b = a - 1;
    while (b >= 0 && buf[b] > v) { buf[b + 1] = buf[b]; b--; }
    buf[b + 1] = v;
  }
  float s = buf[idx[i] & 15];
  s = sqrtf(fabsf(s)) + rsqrtf(1.0f + s * s) + __sinf(s) + __cosf(s) + __log2f(2.0f + fabsf(s)) + exp2f(s) + tanhf(s);
  out[i] = s + (float)__brev(i) + (float)__clz(i) + (float)__ffs(i) + copysignf(1.0f, s) + (float)__sad(i, n, 3u) + (float)__mul24(i, n);
  double d = (double)s;
  out[n + i] = (float)(sqrt(d) / (1.0 + d * d));
}
