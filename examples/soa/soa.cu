// Arrays of structures read member by member, for `coalcheck fix --transform soa`.
struct body {
  double t;   // time of the body's clock, 8 bytes at offset 0
  float v;    // velocity, offset 8
  float a;    // acceleration, offset 12
  int steps;  // steps taken, offset 16; 4 bytes of padding follow (sizeof(body) = 24)
};

// One explicit Euler step per body: every member read, modified and written back.
__global__ void step(body *b, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i].t += (double)dt;
    b[i].v += b[i].a * dt;
    b[i].steps += 1;
  }
}

struct point {
  float x, y, z;
  int label;  // sizeof(point) = 16
};

// kNN / streamcluster-like: each thread copies its point whole and measures its squared
// distance to one query point.
__global__ void knn_dist(const point *pts, float qx, float qy, float qz, float *dist,
                         int *label, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    point p = pts[i];
    float dx = p.x - qx, dy = p.y - qy, dz = p.z - qz;
    dist[i] = dx * dx + dy * dy + dz * dz;
    label[i] = p.label;
  }
}

struct particle {
  float x, y, z;
};

__device__ float norm2(const particle *p, int i)
{
  return p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z;
}

// The structure escapes: its pointer is passed to norm2, which the rewrite would have to
// follow; `coalcheck fix --transform soa` refuses and prints the structure of arrays to
// adopt instead.
__global__ void energy(const particle *p, float *e, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = 0.5f * norm2(p, i);
}
