// Rodinia kmeans (kmeans_cuda_kernel.cu), features stored point-major as the host reads
// them: features[point * nfeatures + f], the classic array-of-structures case. Rodinia's
// invert_mapping transposes them to feature-major (features_flipped[f * npoints + point])
// before kmeansPoint; here kmeansPoint reads the point-major array directly, as ports that
// skip the transpose do. Cluster centres in global memory (Rodinia binds a texture).
#include <float.h>

// One thread per point: the point's row of nfeatures floats becomes column point of the
// feature-major copy.
__global__ void invert_mapping(float *input, float *output, int npoints, int nfeatures)
{
  int point_id = threadIdx.x + blockDim.x * blockIdx.x;
  int i;

  if (point_id < npoints) {
    for (i = 0; i < nfeatures; i++)
      output[point_id + npoints * i] = input[point_id * nfeatures + i];
  }
  return;
}

// One thread per point: the nearest of nclusters centres, by squared Euclidean distance.
__global__ void kmeansPoint(float *features, int nfeatures, int npoints, int nclusters,
                            int *membership, float *clusters)
{
  const unsigned int block_id = gridDim.x * blockIdx.y + blockIdx.x;
  const unsigned int point_id = block_id * blockDim.x * blockDim.y + threadIdx.x;
  int index = -1;

  if (point_id < npoints) {
    int i, j;
    float min_dist = FLT_MAX;
    float dist;
    for (i = 0; i < nclusters; i++) {
      int cluster_base_index = i * nfeatures;
      float ans = 0.0;
      for (j = 0; j < nfeatures; j++) {
        int addr = point_id * nfeatures + j;
        float diff = (features[addr] - clusters[cluster_base_index + j]);
        ans += diff * diff;
      }
      dist = ans;
      if (dist < min_dist) {
        min_dist = dist;
        index = i;
      }
    }
    membership[point_id] = index;
  }
}

// The same point struct-wise, as C ports that read a struct of fixed features write it.
#define NFEAT 8
struct kpoint {
  float f[NFEAT];
};

__global__ void kmeansPoint_struct(const kpoint *points, int npoints, int nclusters,
                                   int *membership, const float *clusters)
{
  int point_id = blockIdx.x * blockDim.x + threadIdx.x;
  if (point_id < npoints) {
    float min_dist = FLT_MAX;
    int index = -1;
    for (int i = 0; i < nclusters; i++) {
      float ans = 0.0f;
      for (int j = 0; j < NFEAT; j++) {
        float diff = points[point_id].f[j] - clusters[i * NFEAT + j];
        ans += diff * diff;
      }
      if (ans < min_dist) {
        min_dist = ans;
        index = i;
      }
    }
    membership[point_id] = index;
  }
}
