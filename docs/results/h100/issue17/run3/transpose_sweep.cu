// Transpose design sweeps at 16384^2 f32 (issue 17): which layout reaches memcpy?
// `./a.out 1` runs the rows of transpose-sweep1.log, `./a.out 2` those of transpose-sweep2.log
// (first run as two files, joined here).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e){printf("err %s line %d\n",cudaGetErrorString(e),__LINE__);exit(1);}}while(0)
const int N = 16384;

__global__ void copy_sm(float* o, const float* i) {
  __shared__ float t[32][32];
  int x = blockIdx.x*32+threadIdx.x, y = blockIdx.y*32+threadIdx.y;
  for (int j=0;j<32;j+=8) t[threadIdx.y+j][threadIdx.x] = i[(size_t)(y+j)*N+x];
  __syncthreads();
  for (int j=0;j<32;j+=8) o[(size_t)(y+j)*N+x] = t[threadIdx.y+j][threadIdx.x];
}
// book: 32x32 pad 1, 32x8
template<int T, int R>
__global__ void tr_book(float* o, const float* i) {
  __shared__ float t[T][T+1];
  int x = blockIdx.x*T+threadIdx.x, y = blockIdx.y*T+threadIdx.y;
  for (int j=0;j<T;j+=R) t[threadIdx.y+j][threadIdx.x] = i[(size_t)(y+j)*N+x];
  __syncthreads();
  x = blockIdx.y*T+threadIdx.x; y = blockIdx.x*T+threadIdx.y;
  for (int j=0;j<T;j+=R) o[(size_t)(y+j)*N+x] = t[threadIdx.x][threadIdx.y+j];
}
// grouped block order: G tile-columns of the input per group, walked tile-row-major within
template<int T, int R, int G>
__global__ void tr_group(float* o, const float* i) {
  __shared__ float t[T][T+1];
  int tiles = N/T;
  int id = blockIdx.y*gridDim.x + blockIdx.x;
  int per_group = G*tiles;
  int g = id / per_group, r = id % per_group;
  int bx = g*G + r % G, by = r / G;
  int x = bx*T+threadIdx.x, y = by*T+threadIdx.y;
  for (int j=0;j<T;j+=R) t[threadIdx.y+j][threadIdx.x] = i[(size_t)(y+j)*N+x];
  __syncthreads();
  x = by*T+threadIdx.x; y = bx*T+threadIdx.y;
  for (int j=0;j<T;j+=R) o[(size_t)(y+j)*N+x] = t[threadIdx.x][threadIdx.y+j];
}
// float4 loads and stores: 64x64 tile, 16x16 threads; each thread 4 rows of float4
__global__ void tr_vec4(float* o, const float* i) {
  __shared__ float t[64][65];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x*64, y0 = blockIdx.y*64;
  #pragma unroll
  for (int j=0;j<64;j+=16) {
    float4 v = *(const float4*)&i[(size_t)(y0+ty+j)*N + x0 + 4*tx];
    t[ty+j][4*tx]=v.x; t[ty+j][4*tx+1]=v.y; t[ty+j][4*tx+2]=v.z; t[ty+j][4*tx+3]=v.w;
  }
  __syncthreads();
  #pragma unroll
  for (int j=0;j<64;j+=16) {
    float4 v; int c = ty+j; // output row = x0 + c, output cols y0+4tx..
    v.x=t[4*tx][c]; v.y=t[4*tx+1][c]; v.z=t[4*tx+2][c]; v.w=t[4*tx+3][c];
    *(float4*)&o[(size_t)(x0+c)*N + y0 + 4*tx] = v;
  }
}
// float2: 32x64 tile? keep 64x64 with 32x8 threads using float2
__global__ void tr_vec2(float* o, const float* i) {
  __shared__ float t[64][65];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x*64, y0 = blockIdx.y*64;
  #pragma unroll
  for (int j=0;j<64;j+=8) {
    float2 v = *(const float2*)&i[(size_t)(y0+ty+j)*N + x0 + 2*tx];
    t[ty+j][2*tx]=v.x; t[ty+j][2*tx+1]=v.y;
  }
  __syncthreads();
  #pragma unroll
  for (int j=0;j<64;j+=8) {
    float2 v; int c = ty+j;
    v.x=t[2*tx][c]; v.y=t[2*tx+1][c];
    *(float2*)&o[(size_t)(x0+c)*N + y0 + 2*tx] = v;
  }
}
// 64x64 scalar tile, 32x8 threads (two 32-wide halves)
__global__ void tr_64(float* o, const float* i) {
  __shared__ float t[64][65];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x*64, y0 = blockIdx.y*64;
  #pragma unroll
  for (int j=0;j<64;j+=8) { t[ty+j][tx] = i[(size_t)(y0+ty+j)*N+x0+tx]; t[ty+j][tx+32] = i[(size_t)(y0+ty+j)*N+x0+tx+32]; }
  __syncthreads();
  #pragma unroll
  for (int j=0;j<64;j+=8) { o[(size_t)(x0+ty+j)*N+y0+tx] = t[tx][ty+j]; o[(size_t)(x0+ty+j)*N+y0+tx+32] = t[tx+32][ty+j]; }
}


template<int G, int R>
__global__ void tr_vec2g(float* o, const float* i) {
  __shared__ float t[64][65];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tiles = N/64;
  int id = blockIdx.y*gridDim.x + blockIdx.x;
  int per_group = G*tiles;
  int g = id / per_group, r = id % per_group;
  int bx = g*G + r % G, by = r / G;
  int x0 = bx*64, y0 = by*64;
  #pragma unroll
  for (int j=0;j<64;j+=R) {
    float2 v = *(const float2*)&i[(size_t)(y0+ty+j)*N + x0 + 2*tx];
    t[ty+j][2*tx]=v.x; t[ty+j][2*tx+1]=v.y;
  }
  __syncthreads();
  #pragma unroll
  for (int j=0;j<64;j+=R) {
    float2 v; int c = ty+j;
    v.x=t[2*tx][c]; v.y=t[2*tx+1][c];
    *(float2*)&o[(size_t)(x0+c)*N + y0 + 2*tx] = v;
  }
}
template<class F> float timeit(F f, int reps=50) {
  cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b);
  f(); CK(cudaDeviceSynchronize());
  float best=1e9, tot=0; float ms[64];
  for(int r=0;r<reps;r++){ cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms[r],a,b);}
  // median
  for(int p=0;p<reps;p++) for(int q=p+1;q<reps;q++) if(ms[q]<ms[p]){float t=ms[p];ms[p]=ms[q];ms[q]=t;}
  return ms[reps/2];
}
int main(int argc, char** argv){
  int sweep = argc > 1 ? atoi(argv[1]) : 1;
  size_t bytes=(size_t)N*N*4; float *i,*o; CK(cudaMalloc(&i,bytes)); CK(cudaMalloc(&o,bytes));
  float* h=(float*)malloc(bytes); for(size_t k=0;k<(size_t)N*N;k++) h[k]=(float)(k%1000003); CK(cudaMemcpy(i,h,bytes,cudaMemcpyHostToDevice));
  float* g=(float*)malloc(bytes);
  double gb = 2.0*bytes/1e9;
  float mc = timeit([&]{cudaMemcpy(o,i,bytes,cudaMemcpyDeviceToDevice);});
  printf("memcpy %.1f GB/s\n", gb/mc*1e3);
  auto check=[&](const char* name){ CK(cudaMemcpy(g,o,bytes,cudaMemcpyDeviceToHost)); size_t bad=0; for(size_t y=0;y<(size_t)N;y+=97) for(size_t x=0;x<(size_t)N;x+=13) if(g[x*N+y]!=h[y*N+x]) bad++; if(bad) printf("  %s WRONG %zu\n",name,bad); };
  auto row=[&](const char* name, float ms, bool tr){ printf("%-28s %8.1f GB/s  %.3f of memcpy\n", name, gb/ms*1e3, mc/ms); if(tr) check(name); };
  if (sweep == 1) {
  for (int rep=0; rep<2; rep++) {
  row("copy_shared", timeit([&]{copy_sm<<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), false);
  row("book 32x32/32x8", timeit([&]{tr_book<32,8><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("book 32x32/32x16", timeit([&]{tr_book<32,16><<<dim3(N/32,N/32),dim3(32,16)>>>(o,i);}), true);
  row("book 32x32/32x32", timeit([&]{tr_book<32,32><<<dim3(N/32,N/32),dim3(32,32)>>>(o,i);}), true);
  row("group4 32x32/32x8", timeit([&]{tr_group<32,8,4><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("group8 32x32/32x8", timeit([&]{tr_group<32,8,8><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("group16 32x32/32x8", timeit([&]{tr_group<32,8,16><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("group32 32x32/32x8", timeit([&]{tr_group<32,8,32><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("tile64 32x8", timeit([&]{tr_64<<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 64x64/32x8", timeit([&]{tr_vec2<<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec4 64x64/16x16", timeit([&]{tr_vec4<<<dim3(N/64,N/64),dim3(16,16)>>>(o,i);}), true);
  }
  } else {
  for (int rep=0; rep<2; rep++) {
  row("copy_shared", timeit([&]{copy_sm<<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), false);
  row("book 32x32/32x8", timeit([&]{tr_book<32,8><<<dim3(N/32,N/32),dim3(32,8)>>>(o,i);}), true);
  row("vec2 64x64/32x8", timeit([&]{tr_vec2<<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group1 (swap) /32x8", timeit([&]{tr_vec2g<1,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group2 /32x8", timeit([&]{tr_vec2g<2,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group4 /32x8", timeit([&]{tr_vec2g<4,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group8 /32x8", timeit([&]{tr_vec2g<8,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group16 /32x8", timeit([&]{tr_vec2g<16,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  row("vec2 group4 /32x16", timeit([&]{tr_vec2g<4,16><<<dim3(N/64,N/64),dim3(32,16)>>>(o,i);}), true);
  row("vec2 group8 /32x16", timeit([&]{tr_vec2g<8,16><<<dim3(N/64,N/64),dim3(32,16)>>>(o,i);}), true);
  row("vec2 group256 /32x8", timeit([&]{tr_vec2g<256,8><<<dim3(N/64,N/64),dim3(32,8)>>>(o,i);}), true);
  }
  }
  return 0;
}
