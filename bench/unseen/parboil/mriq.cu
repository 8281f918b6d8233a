// Parboil mri-q: ComputePhiMag (phiMag[i] = phiR[i]^2 + phiI[i]^2, one thread per k-space
// sample) and ComputeQ (one thread per image voxel x[t], y[t], z[t] in separate arrays, a
// loop over the k-space samples, each an {Kx, Ky, Kz, PhiMag} structure that every thread
// of the warp reads at once: Parboil keeps them in __constant__ memory in chunks; here a
// global array, read by broadcast). mriq_aos: the same ComputeQ for a voxel array of
// structures {x, y, z} (a naive port's layout: lanes 12 bytes apart) writing Qr, Qi as one
// float2 array. Written for bench/unseen.
#define PIx2 6.2831853071795864769252867665590058f

struct kValues {
  float Kx, Ky, Kz, PhiMag;
};

struct voxel {
  float x, y, z;
};

__global__ void mriq_phimag(const float *phiR, const float *phiI, float *phiMag, int numK)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < numK) {
    float real = phiR[i];
    float imag = phiI[i];
    phiMag[i] = real * real + imag * imag;
  }
}

__global__ void mriq_computeq(int numK, const kValues *kv, const float *x, const float *y,
                              const float *z, float *Qr, float *Qi)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float sx = x[t], sy = y[t], sz = z[t];
  float qr = Qr[t], qi = Qi[t];
  for (int k = 0; k < numK; k++) {
    float expArg = PIx2 * (kv[k].Kx * sx + kv[k].Ky * sy + kv[k].Kz * sz);
    qr += kv[k].PhiMag * __cosf(expArg);
    qi += kv[k].PhiMag * __sinf(expArg);
  }
  Qr[t] = qr;
  Qi[t] = qi;
}

__global__ void mriq_aos(int numK, const kValues *kv, const voxel *vox, float2 *Q)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float sx = vox[t].x, sy = vox[t].y, sz = vox[t].z;
  float qr = 0.0f, qi = 0.0f;
  for (int k = 0; k < numK; k++) {
    float expArg = PIx2 * (kv[k].Kx * sx + kv[k].Ky * sy + kv[k].Kz * sz);
    qr += kv[k].PhiMag * __cosf(expArg);
    qi += kv[k].PhiMag * __sinf(expArg);
  }
  Q[t] = make_float2(qr, qi);
}
