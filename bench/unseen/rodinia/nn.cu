// Rodinia nn (nn_cuda.cu): distance of every record, an array of struct {float lat, lng;},
// to one target location. Rodinia's kernel takes a pointer to the thread's record
// (latLong = d_locations + globalId); euclid_sub reads the members by subscript.
typedef struct latLong {
  float lat;
  float lng;
} LatLong;

__global__ void euclid(LatLong *d_locations, float *d_distances, int numRecords, float lat,
                       float lng)
{
  int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  LatLong *latLong = d_locations + globalId;
  if (globalId < numRecords) {
    float *dist = d_distances + globalId;
    *dist = (float)sqrt((lat - latLong->lat) * (lat - latLong->lat) +
                        (lng - latLong->lng) * (lng - latLong->lng));
  }
}

__global__ void euclid_sub(LatLong *d_locations, float *d_distances, int numRecords, float lat,
                           float lng)
{
  int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (globalId < numRecords) {
    d_distances[globalId] =
        (float)sqrt((lat - d_locations[globalId].lat) * (lat - d_locations[globalId].lat) +
                    (lng - d_locations[globalId].lng) * (lng - d_locations[globalId].lng));
  }
}
