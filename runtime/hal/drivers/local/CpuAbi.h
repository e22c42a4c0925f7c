/*===- CpuAbi.h - How the local drivers call compiled CPU code ------------===*
 *
 * An executable of format "cpu-elf-x86_64" is an ELF shared object. The
 * driver loads it from memory (RTLD_LOCAL | RTLD_NOW) and looks up each entry
 * point by its name with dlsym. Every entry point has this C signature:
 *
 *   void entry(void *const *bindings, const uint32_t *pushConstants,
 *              uint32_t wgX, uint32_t wgY, uint32_t wgZ);
 *
 *  - bindings[i] is the address of dispatch binding i: the buffer's base plus
 *    the binding's offset (already added). The array has the entry point's
 *    binding_count elements; buffers are at least 64-byte aligned, so the
 *    alignment of bindings[i] is that of the offset the compiler chose.
 *  - pushConstants has the entry point's push_constant_count elements (the
 *    pointer may be null when there are none).
 *  - (wgX, wgY, wgZ) is one workgroup id: the driver calls the function once
 *    for every id with 0 <= wgX < countX, 0 <= wgY < countY,
 *    0 <= wgZ < countZ of the dispatch's grid, in no particular order and,
 *    on local-task, from several threads at once. Workgroups of one dispatch
 *    must not depend on each other's order; there is no workgroup shared
 *    memory (keep per-workgroup scratch on the stack).
 *  - The function must not unwind, longjmp or keep the pointers after it
 *    returns; it reports nothing: errors are the compiler's to prevent.
 *
 * The header is C so the compiler's tests and hand-written kernels can
 * include it.
 *===----------------------------------------------------------------------===*/
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUABI_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*KilnCpuEntryPoint)(void *const *bindings,
                                  const uint32_t *pushConstants, uint32_t wgX,
                                  uint32_t wgY, uint32_t wgZ);

/* The executable format and the targets the local drivers understand. */
#define KILN_CPU_EXECUTABLE_FORMAT "cpu-elf-x86_64"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUABI_H */
