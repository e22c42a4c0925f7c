//===- early_launch_bench.cu - Kernel boundaries with early launches -----===//
//
// What a programmatic dependent launch saves at a kernel boundary, measured
// before the runtime used it (bench/README.md, "Early launches"): a CUDA
// graph of 50 dependent kernels, each reading the previous one's output,
// timed with CUDA events (median of 50 launches after 5), for 132, 264 and
// 1024 workgroups and 0, 200 and 1000 multiply-adds a thread. Modes: 0
// ordinary launches; 1 programmatic edges, each kernel waiting first
// (griddepcontrol.wait: what Kiln's kernels do); 2 as 1, each kernel also
// letting its dependents launch at its start; 3 as 2, reading data of its
// own before waiting. Needs nvcc and an sm_90 GPU:
//
//   nvcc -O3 -arch=sm_90a -o early_launch_bench bench/early_launch_bench.cu
//   ./early_launch_bench
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("err %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e));     \
      return 1;                                                                \
    }                                                                          \
  } while (0)
template <int Mode>
__global__ void step(const float *__restrict__ in, float *__restrict__ out,
                     const float *__restrict__ w, int n, int iters) {
  // Mode 0: plain. Mode 1: wait at top. Mode 2: trigger then wait. Mode 3: read
  // weights, trigger, wait.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  if (Mode == 3) {
    for (int k = 0; k < 8; ++k)
      acc += w[(i * 8 + k) % n];
  }
  if (Mode == 2 || Mode == 3)
    asm volatile("griddepcontrol.launch_dependents;");
  if (Mode >= 1)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (i < n) {
    float x = in[i] + acc * 1e-9f;
    for (int k = 0; k < iters; ++k)
      x = x * 0.999f + 0.001f;
    out[i] = x;
  }
}
template <int Mode>
int run(int blocks, int iters, int chain, float *a, float *b, float *w, int n) {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int c = 0; c < chain; ++c) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = blocks;
    cfg.blockDim = 256;
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = Mode ? 1 : 0;
    float *in = (c & 1) ? b : a;
    float *out = (c & 1) ? a : b;
    CK(cudaLaunchKernelEx(&cfg, step<Mode>, (const float *)in, out,
                          (const float *)w, n, iters));
  }
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < 5; ++r)
    CK(cudaGraphLaunch(ge, s));
  std::vector<float> ts;
  for (int r = 0; r < 50; ++r) {
    CK(cudaEventRecord(e0, s));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  printf("mode %d blocks %d iters %d: %.2f us per kernel (median %.1f us per "
         "graph of %d)\n",
         Mode, blocks, iters, ts[25] * 1000 / chain, ts[25] * 1000, chain);
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  CK(cudaStreamDestroy(s));
  return 0;
}
int main() {
  int n = 1 << 20;
  float *a, *b, *w;
  CK(cudaMalloc(&a, n * 4));
  CK(cudaMalloc(&b, n * 4));
  CK(cudaMalloc(&w, n * 4));
  CK(cudaMemset(a, 0, n * 4));
  CK(cudaMemset(b, 0, n * 4));
  CK(cudaMemset(w, 0, n * 4));
  for (int blocks : {132, 264, 1024})
    for (int iters : {0, 200, 1000}) {
      if (run<0>(blocks, iters, 50, a, b, w, n))
        return 1;
      if (run<1>(blocks, iters, 50, a, b, w, n))
        return 1;
      if (run<2>(blocks, iters, 50, a, b, w, n))
        return 1;
      if (run<3>(blocks, iters, 50, a, b, w, n))
        return 1;
    }
  return 0;
}
