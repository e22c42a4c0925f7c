/*===- CtsKernels.c - Hand-written CPU kernels for runtime tests ----------===*
 *
 * Built as a shared object implementing the CPU entry point ABI
 * (runtime/hal/drivers/local/CpuAbi.h), exactly what the compiler emits, so
 * the HAL conformance suite, DynamicLibrary and module tests load real code.
 *===----------------------------------------------------------------------===*/
#include "runtime/hal/drivers/local/CpuAbi.h"

#include <time.h>

/* out[i] = a[i] + b[i] (f32). Workgroup x covers elements
 * [x * perGroup, min((x + 1) * perGroup, n)).
 * bindings: a, b, out. push constants: n, perGroup. */
void add_f32(void *const *bindings, const uint32_t *pushConstants, uint32_t wgX,
             uint32_t wgY, uint32_t wgZ) {
  (void)wgY;
  (void)wgZ;
  const float *a = (const float *)bindings[0];
  const float *b = (const float *)bindings[1];
  float *out = (float *)bindings[2];
  uint64_t n = pushConstants[0];
  uint64_t begin = (uint64_t)wgX * pushConstants[1];
  uint64_t end = begin + pushConstants[1];
  if (end > n)
    end = n;
  for (uint64_t i = begin; i < end; ++i)
    out[i] = a[i] + b[i];
}

/* Counts how often each workgroup id ran: counters[(z * cy + y) * cx + x]
 * (u32) is incremented atomically. bindings: counters. push: cx, cy. */
void count_workgroups(void *const *bindings, const uint32_t *pushConstants,
                      uint32_t wgX, uint32_t wgY, uint32_t wgZ) {
  uint32_t *counters = (uint32_t *)bindings[0];
  uint64_t index =
      ((uint64_t)wgZ * pushConstants[1] + wgY) * pushConstants[0] + wgX;
  __atomic_fetch_add(&counters[index], 1, __ATOMIC_RELAXED);
}

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Proves workgroups (or dispatches) run at the same time: each one arrives
 * at state[0] and waits (up to timeoutMs) until `parties` have arrived;
 * those that saw everyone arrive increment state[1]. Run sequentially, the
 * first one waits in vain, so a short timeout also shows that two
 * dispatches were ordered. bindings: state (2 x u32). push: parties,
 * timeoutMs. */
void rendezvous(void *const *bindings, const uint32_t *pushConstants,
                uint32_t wgX, uint32_t wgY, uint32_t wgZ) {
  (void)wgX;
  (void)wgY;
  (void)wgZ;
  uint32_t *state = (uint32_t *)bindings[0];
  uint32_t parties = pushConstants[0];
  __atomic_fetch_add(&state[0], 1, __ATOMIC_ACQ_REL);
  double deadline = nowSeconds() + pushConstants[1] * 1e-3;
  while (__atomic_load_n(&state[0], __ATOMIC_ACQUIRE) < parties) {
    if (nowSeconds() > deadline)
      return;
  }
  __atomic_fetch_add(&state[1], 1, __ATOMIC_ACQ_REL);
}

/* out[i] = in[i] * scale + bias for i < n, one element per workgroup x
 * (scale and bias are f32 bit patterns in the push constants).
 * bindings: in, out. push: n, scale bits, bias bits. */
void scale_bias_f32(void *const *bindings, const uint32_t *pushConstants,
                    uint32_t wgX, uint32_t wgY, uint32_t wgZ) {
  (void)wgY;
  (void)wgZ;
  union {
    uint32_t Bits;
    float Value;
  } scale, bias;
  scale.Bits = pushConstants[1];
  bias.Bits = pushConstants[2];
  if (wgX >= pushConstants[0])
    return;
  const float *in = (const float *)bindings[0];
  float *out = (float *)bindings[1];
  out[wgX] = in[wgX] * scale.Value + bias.Value;
}
