// a syntax error on line 2: nvcc must fail
__global__ void k(int *a) { a[0] = ; }
