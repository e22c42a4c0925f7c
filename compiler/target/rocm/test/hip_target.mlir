// RUN: rm -rf %t && mkdir -p %t/arch %t/sku %t/code %t/rocm %t/amdgpu %t/iree-device %t/iree-chip
// RUN: kiln-compile %s --target-device=hip -o %t/default.kiln
// RUN: kiln-dump-module %t/default.kiln | FileCheck %s --check-prefix=DEFAULT
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx942 --dump-executable-binaries-to=%t/arch -o %t/arch.kiln
// RUN: kiln-compile %s --target-device=hip --hip-target=mi300x --dump-executable-binaries-to=%t/sku -o %t/sku.kiln
// RUN: kiln-compile %s --target-device=hip --hip-target=cdna3 --dump-executable-binaries-to=%t/code -o %t/code.kiln
// RUN: kiln-compile %s --target-device=rocm --iree-hip-target=mi325x --dump-executable-binaries-to=%t/rocm -o %t/rocm.kiln
// RUN: kiln-compile %s --target-device=amdgpu --iree-rocm-target-chip=mi300a --dump-executable-binaries-to=%t/amdgpu -o %t/amdgpu.kiln
// RUN: kiln-compile %s --iree-hal-target-device=amdgpu --hip-target=gfx942 --dump-executable-binaries-to=%t/iree-device -o %t/iree-device.kiln
// RUN: kiln-compile %s --iree-hal-target-backends=rocm --iree-rocm-target-chip=gfx942 --iree-hip-bc-dir=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode --dump-executable-binaries-to=%t/iree-chip -o %t/iree-chip.kiln
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/sku/hip_gfx942.amdgpu-hsaco
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/code/hip_gfx942.amdgpu-hsaco
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/rocm/hip_gfx942.amdgpu-hsaco
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/amdgpu/hip_gfx942.amdgpu-hsaco
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/iree-device/hip_gfx942.amdgpu-hsaco
// RUN: cmp %t/arch/hip_gfx942.amdgpu-hsaco %t/iree-chip/hip_gfx942.amdgpu-hsaco
// RUN: kiln-dump-module %t/sku.kiln | FileCheck %s --check-prefix=SKU
// RUN: kiln-compile %s --target-device=hip --hip-target=rx9070xt -o %t/rdna4.kiln
// RUN: kiln-dump-module %t/rdna4.kiln | FileCheck %s --check-prefix=RDNA4
// RUN: not kiln-compile %s --target-device=hip --hip-target=gfx1234 -o %t/x.kiln 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-compile %s --target-device=radeon -o %t/x.kiln 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: kiln-compile --help | FileCheck %s --check-prefix=HELP

// --target-device=hip and its other names (rocm, amdgpu; IREE's
// --iree-hal-target-device and --iree-hal-target-backends=rocm), and
// --hip-target's three kinds of name (issue 18): an architecture, a product
// and a code name give the same code object for the same architecture, as
// do the IREE spellings of the flags. Without --hip-target, gfx908 (MI100).
// The module's variant names the architecture; the runtime's hip and amdgpu
// drivers take format 'amdgpu-hsaco' for exactly that architecture.

// DEFAULT: variant 0: format 'amdgpu-hsaco', target 'gfx908'
// SKU:     variant 0: format 'amdgpu-hsaco', target 'gfx942'
// RDNA4:   variant 0: format 'amdgpu-hsaco', target 'gfx1201'
// UNKNOWN: error: unknown --hip-target 'gfx1234'; known: gfx900, gfx906, gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201, cdna1, mi100, cdna2, mi210, mi250, cdna3, mi300a, mi300x, mi308x, mi325x, cdna4, mi350x, mi355x, rdna2, rdna3, w7800, w7900, rx7900xt, rx7900xtx, v710, w7700, rx7700xt, rx7800xt, rx9060xt, rdna4, r9700, rx9070, rx9070xt
// DEVICE:  error: unknown --target-device 'radeon'; supported: cpu, cuda, hip, rocm, amdgpu
// HELP:    --hip-bc-dir=<string>
// HELP:    --hip-target=<string> {{.*}}AMD chip for HIP code: gfx900 ... gfx1201 (default gfx908), or a code or product name (cdna1, mi100 -> gfx908;
// HELP:    --target-device=<string> {{.*}}hip (also rocm, amdgpu)

func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.add ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
