// RUN: kiln-opt --kiln-gpu-set-target=chip=mi300x %s | FileCheck %s --check-prefix=MI300X
// RUN: kiln-opt --kiln-gpu-set-target=chip=rdna3 %s | FileCheck %s --check-prefix=RDNA3
// RUN: kiln-opt --kiln-gpu-set-target=chip=gfx906 %s | FileCheck %s --check-prefix=GFX906
// RUN: kiln-opt --kiln-gpu-set-target=chip=gfx908 %s | FileCheck %s --check-prefix=GFX908
// RUN: kiln-opt --kiln-gpu-set-target=chip=mi355x %s | FileCheck %s --check-prefix=MI355X
// RUN: kiln-opt --kiln-gpu-set-target=chip=mi250 %s | FileCheck %s --check-prefix=MI250
// RUN: kiln-opt --kiln-gpu-set-target=chip=mi300a %s | FileCheck %s --check-prefix=MI300A
// RUN: kiln-opt --kiln-gpu-set-target=chip=rx9070 %s | FileCheck %s --check-prefix=RX9070
// RUN: kiln-opt --kiln-gpu-set-target=chip=mi300a %s | sed 's/processors = [0-9]*/processors = N/' > %t.mi300a
// RUN: kiln-opt --kiln-gpu-set-target=chip=gfx942 %s | sed 's/processors = [0-9]*/processors = N/' > %t.gfx942
// RUN: diff %t.mi300a %t.gfx942
// RUN: kiln-opt --kiln-gpu-set-target=chip=rx7900xt %s | sed 's/processors = [0-9]*/processors = N/' > %t.rx7900xt
// RUN: kiln-opt --kiln-gpu-set-target=chip=gfx1100 %s | sed 's/processors = [0-9]*/processors = N/' > %t.gfx1100
// RUN: diff %t.rx7900xt %t.gfx1100
// RUN: kiln-opt --kiln-gpu-set-target=chip=cdna3 %s > %t.cdna3
// RUN: kiln-opt --kiln-gpu-set-target=chip=gfx942 %s > %t.gfx942.full
// RUN: cmp %t.cdna3 %t.gfx942.full
// RUN: not kiln-opt --kiln-gpu-set-target=chip=mi301x %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The AMD chip table (compiler/target/rocm/HipTarget.cpp) as the GPU passes
// read it. An MI300X (gfx942): 304 compute units of 64-lane wavefronts,
// 64 KiB of LDS, MFMA f16 and bf16, no cp.async or TMA. rdna3 (gfx1100, as
// an RX 7900 XTX's 96): wave32 and WMMA. gfx906 (MI50): no matrix
// instructions. gfx908 (MI100) has the first bf16 MFMA shapes, gfx950 twice
// the K and 160 KiB of LDS. An MI250 is two 104-CU devices to the runtime.
// A product or code name gives its architecture's facts, the product its
// own compute units.

// MI300X:      module attributes {kiln.gpu_target = {arch = "gfx942", async_copy = false, early_launch = false,
// MI300X-SAME: matrix = ["mfma.m16n16k16.f16.f32", "mfma.m32n32k8.f16.f32", "mfma.m16n16k16.bf16.f32", "mfma.m32n32k8.bf16.f32"]
// MI300X-SAME: max_shared_memory_bytes = 65536 : i64, max_threads_per_processor = 2048 : i64, max_workgroup_threads = 1024 : i64
// MI300X-SAME: processor_shared_memory_bytes = 65536 : i64, processors = 304 : i64, reserved_shared_memory_bytes = 0 : i64, shared_memory_bytes = 65536 : i64, subgroup_size = 64 : i64, tma = false, vendor = "amd"}}

// RDNA3:       {arch = "gfx1100", async_copy = false, early_launch = false, matrix = ["wmma.m16n16k16.f16.f32", "wmma.m16n16k16.bf16.f32"]
// RDNA3-SAME:  max_threads_per_processor = 1024 : i64
// RDNA3-SAME:  processors = 96 : i64
// RDNA3-SAME:  subgroup_size = 32 : i64, tma = false, vendor = "amd"

// GFX906:      {arch = "gfx906", async_copy = false, early_launch = false, matrix = []
// GFX906-SAME: max_threads_per_processor = 2560 : i64
// GFX906-SAME: processors = 60 : i64
// GFX906-SAME: subgroup_size = 64 : i64

// GFX908:      {arch = "gfx908", async_copy = false, early_launch = false, matrix = ["mfma.m16n16k16.f16.f32", "mfma.m32n32k8.f16.f32", "mfma.m16n16k8.bf16.f32", "mfma.m32n32k4.bf16.f32"]
// GFX908-SAME: processors = 120 : i64

// MI355X:      {arch = "gfx950", async_copy = false, early_launch = false, matrix = ["mfma.m16n16k32.f16.f32", "mfma.m32n32k16.f16.f32", "mfma.m16n16k32.bf16.f32", "mfma.m32n32k16.bf16.f32", "mfma.m16n16k16.f16.f32"
// MI355X-SAME: max_shared_memory_bytes = 163840 : i64
// MI355X-SAME: processors = 256 : i64

// MI250:       {arch = "gfx90a",
// MI250-SAME:  processors = 104 : i64

// MI300A:      {arch = "gfx942",
// MI300A-SAME: processors = 228 : i64

// RX9070:      {arch = "gfx1201",
// RX9070-SAME: processors = 56 : i64
// RX9070-SAME: subgroup_size = 32 : i64

// UNKNOWN:     error: kiln-gpu-set-target: no GPU target table knows 'mi301x'; known: sm_60, {{.*}}, h100, {{.*}}, gfx900, gfx906, gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201, cdna1, mi100, {{.*}}, mi300x, {{.*}}, r9700, rx9070, rx9070xt
module {
}
