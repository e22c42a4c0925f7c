//===- CtsKernels.cu - The conformance suite's kernels for CUDA -----------===//
//
// The kernels of CtsKernels.c, with the same bindings, push constants and
// per-workgroup semantics, for GPU drivers: one thread per workgroup (block)
// runs what one CPU workgroup call does. Bindings arrive as pointers and push
// constants as 32-bit values, in that order, as the cuda driver passes them.
// Compiled to PTX for sm_80 by nvcc at build time where the CUDA toolkit is
// found (runtime/hal/cts/CMakeLists.txt); newer GPUs JIT it.
//
//===----------------------------------------------------------------------===//
#include <cstdint>

extern "C" __global__ void add_f32(const float *a, const float *b, float *out,
                                   uint32_t n, uint32_t perGroup) {
  uint64_t begin = uint64_t(blockIdx.x) * perGroup;
  uint64_t end = begin + perGroup;
  if (end > n)
    end = n;
  for (uint64_t i = begin; i < end; ++i)
    out[i] = a[i] + b[i];
}

extern "C" __global__ void count_workgroups(uint32_t *counters, uint32_t cx,
                                            uint32_t cy) {
  uint64_t index = (uint64_t(blockIdx.z) * cy + blockIdx.y) * cx + blockIdx.x;
  atomicAdd(&counters[index], 1u);
}

static __device__ uint64_t nowNanoseconds() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Every workgroup arrives at state[0] and waits (up to timeoutMs) for
// `parties` arrivals; those that saw everyone increment state[1].
extern "C" __global__ void rendezvous(uint32_t *state, uint32_t parties,
                                      uint32_t timeoutMs) {
  atomicAdd(&state[0], 1u);
  uint64_t deadline = nowNanoseconds() + uint64_t(timeoutMs) * 1000000ull;
  while (atomicAdd(&state[0], 0u) < parties) {
    if (nowNanoseconds() > deadline)
      return;
  }
  atomicAdd(&state[1], 1u);
}

extern "C" __global__ void scale_bias_f32(const float *in, float *out,
                                          uint32_t n, uint32_t scaleBits,
                                          uint32_t biasBits) {
  if (blockIdx.x >= n)
    return;
  out[blockIdx.x] =
      in[blockIdx.x] * __uint_as_float(scaleBits) + __uint_as_float(biasBits);
}
