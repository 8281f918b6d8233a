// Arrays of structures read member by member, for `coalcheck fix --transform soa`, which
// lays each array out in blocks of 32 elements, each member contiguous within a block
// (element e's member m at byte (e / 32) * 32 * sizeof(S) + 32 * offsetof(S, m) +
// (e % 32) * sizeof(m)): a warp's lanes reading member m of 32 consecutive elements then
// read one run of sizeof(m) sectors.
//
// Pattern and expected figures (sm_90 model, 64 CTAs of 256 threads = 512 warps):
// step (step.launch, 16384 bodies of 24 bytes): a warp's 32 bodies are 768 bytes from a
//   multiple of 768, so sector aligned; its lanes start 24 bytes apart (< 32 bytes), so
//   every member access touches all 24 sectors. nvcc loads t (f64), v and a together
//   (ld.v2.f32) and steps, and stores t, v, steps: 6 requests of 24 sectors per warp,
//   loads 36,864 and stores 36,864 sectors (ideal 8 + 8 + 4 and 8 + 4 + 4 per warp: 10,240
//   and 8,192). After the fix: loads t 8, v 4, a 4, steps 4, stores t 8, v 4, steps 4 =
//   36 per warp, 18,432 in all (the ideal; 73,728 before).
// step (step_n1000.launch, 1000 bodies): 32 warps, the last with 8 lanes (bodies 992..999,
//   192 bytes from 23,808 = 744 * 32: 6 sectors): 31 * 24 + 6 = 750 sectors per
//   instruction, 4,500 in all. 1000 is not a multiple of 32: --transform soa refuses
//   (pad the array to 1024 elements).
// knn_dist (knn.launch, 16384 points of 16 bytes, each copied whole): 4 loads of 512
//   bytes = 16 sectors per request (ideal 4), 2 coalesced stores of 4: 36,864 sectors;
//   after the fix every request is 4 sectors: 6 * 4 * 512 = 12,288.
// energy (energy.launch, 16384 particles of 12 bytes): 3 loads of 12 sectors, 1 store of
//   4: 20,480 sectors; the structure pointer is passed to norm2, so --transform soa
//   refuses and prints the structure of arrays to adopt (three float arrays).
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
