// A common user kernel (not from a suite): an explicit Euler step over an array of
// particle structures, one thread per particle. particles_flat: members all floats
// {x, y, z, vx, vy, vz, mass} (28 bytes: lanes 28 bytes apart per member);
// particles_vec: the same with float3 members {pos, vel} and a mass (28 bytes), as most
// users write it. Written for bench/unseen.
struct ParticleFlat {
  float x, y, z, vx, vy, vz, mass;
};

struct ParticleVec {
  float3 pos;
  float3 vel;
  float mass;
};

__global__ void particles_flat(ParticleFlat *p, int n, float dt, float g)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ax = 0.0f, ay = -g, az = 0.0f;
    float inv = 1.0f / p[i].mass;
    p[i].vx += ax * inv * dt;
    p[i].vy += ay * inv * dt;
    p[i].vz += az * inv * dt;
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

__global__ void particles_vec(ParticleVec *p, int n, float dt, float g)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float inv = 1.0f / p[i].mass;
    p[i].vel.y -= g * inv * dt;
    p[i].pos.x += p[i].vel.x * dt;
    p[i].pos.y += p[i].vel.y * dt;
    p[i].pos.z += p[i].vel.z * dt;
  }
}
