// RUN: kiln-opt --kiln-gpu-set-target=chip=h100 %s | FileCheck %s --check-prefix=H100
// RUN: kiln-opt --kiln-gpu-set-target=chip=sm_80 %s | FileCheck %s --check-prefix=SM80
// RUN: kiln-opt --kiln-gpu-set-target=chip=l4 %s | FileCheck %s --check-prefix=L4
// RUN: kiln-opt --kiln-gpu-set-target=chip=t4 %s | FileCheck %s --check-prefix=T4
// RUN: not kiln-opt --kiln-gpu-set-target=chip=gfx4242 %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt '--kiln-gpu-set-target=target={vendor="nvidia",arch="x",subgroup_size=24,processors=1,max_workgroup_threads=1024,max_threads_per_processor=2048,shared_memory_bytes=0,max_shared_memory_bytes=0,processor_shared_memory_bytes=0,reserved_shared_memory_bytes=0,async_copy=false,tma=false,matrix=[]}' %s 2>&1 | FileCheck %s --check-prefix=BADWIDTH
// RUN: not kiln-opt '--kiln-gpu-set-target=target={vendor="nvidia",arch="x",subgroup_size=32,processors=1,max_workgroup_threads=1024,max_threads_per_processor=2048,shared_memory_bytes=0,max_shared_memory_bytes=0,processor_shared_memory_bytes=0,reserved_shared_memory_bytes=0,async_copy=false,tma=false,matrix=["mma_sync.m16n8.f16.f32"]}' %s 2>&1 | FileCheck %s --check-prefix=BADMATRIX
// RUN: not kiln-opt '--kiln-gpu-set-target=target={vendor="nvidia",arch="x",subgroup_size=32,processors=1,max_workgroup_threads=1024,max_threads_per_processor=2048,shared_memory_bytes=0,max_shared_memory_bytes=1024,processor_shared_memory_bytes=512,reserved_shared_memory_bytes=0,async_copy=false,tma=false,matrix=[]}' %s 2>&1 | FileCheck %s --check-prefix=BADSHARED
// RUN: not kiln-opt --kiln-gpu-reduction-kernels %s 2>&1 | FileCheck %s --check-prefix=MISSING

// The chip tables' facts, as every GPU pass reads them. An H100 (sm_90a):
// 132 multiprocessors, mma.sync and wgmma, cp.async and TMA, 228 KiB of
// shared memory a multiprocessor of which each resident block takes 1 KiB
// more than it uses. sm_80 (an
// A100's 108): mma.sync and cp.async, no wgmma or TMA. An L4 (sm_89): its
// own 58 multiprocessors and 1536 threads each. A T4 (sm_75): no matrix
// instruction the kernels use, no cp.async. Only sm_90 and later launch
// kernels early (each waits for its prerequisites itself).

// H100:      module attributes {kiln.gpu_target = {arch = "sm_90a", async_copy = true, early_launch = true,
// H100-SAME: matrix = ["mma_sync.m16n8k16.f16.f32", "mma_sync.m16n8k16.bf16.f32", "mma_sync.m16n8k8.tf32.f32", "wgmma.m64n0k16.f16.f32", "wgmma.m64n0k16.bf16.f32", "wgmma.m64n0k8.tf32.f32"]
// H100-SAME: max_shared_memory_bytes = 232448 : i64, max_threads_per_processor = 2048 : i64, max_workgroup_threads = 1024 : i64
// H100-SAME: processor_shared_memory_bytes = 233472 : i64, processors = 132 : i64, reserved_shared_memory_bytes = 1024 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, tma = true, vendor = "nvidia"}}

// SM80:      {arch = "sm_80", async_copy = true, early_launch = false,
// SM80-SAME: matrix = ["mma_sync.m16n8k16.f16.f32", "mma_sync.m16n8k16.bf16.f32", "mma_sync.m16n8k8.tf32.f32"]
// SM80-SAME: processors = 108 : i64
// SM80-SAME: tma = false

// L4:        {arch = "sm_89", async_copy = true,
// L4-SAME:   max_threads_per_processor = 1536 : i64
// L4-SAME:   processors = 58 : i64

// T4:        {arch = "sm_75", async_copy = false, early_launch = false, matrix = []
// T4-SAME:   processors = 40 : i64

// UNKNOWN:   error: kiln-gpu-set-target: no GPU target table knows 'gfx4242'
// BADWIDTH:  error: kiln.gpu_target: 'subgroup_size' must be a power of two dividing max_workgroup_threads
// BADMATRIX: error: kiln.gpu_target: 'matrix' must be an array of names such as "mma_sync.m16n8k16.f16.f32"
// BADSHARED: error: kiln.gpu_target: 'processor_shared_memory_bytes' must be at least max_shared_memory_bytes
// MISSING:   error: no kiln.gpu_target dictionary on the module: GPU code generation needs the target's description
module {
}
