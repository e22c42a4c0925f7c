// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_80 -o %t.sm80.kiln
// RUN: strings %t.sm80.kiln | FileCheck %s --check-prefix=SM80
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --precision=tf32 -o %t.tf32.kiln
// RUN: strings %t.tf32.kiln | FileCheck %s --check-prefix=TF32

// The PTX of the two contraction kernels: the f16 one on the tensor cores;
// the IEEE f32 one (2048 rows, K 256) on sm_90a as 3xTF32 wgmma (each operand's
// low 13 bits cleared, three m64n128k8 a k8), on sm_80 on the CUDA cores
// (128 x 128 tiles: 16-byte shared loads, FMA); tf32 mma.sync with
// --precision=tf32. Both are in the module as PTX whether or not ptxas is installed.
// On sm_90a the f16 kernel copies with cp.async into swizzled dynamic
// shared memory, fences the async proxy and issues wgmma (64 x 64 tiles: an
// m64n64k16 per 16 of K, a step's waited for in the next); on sm_80 it reads
// fragments with ldmatrix into mma.sync, and has no wgmma.

// CHECK:       .shared .align 16 .b8 __dynamic_shmem__0
// CHECK-LABEL: .entry f16_dispatch_0
// CHECK-DAG:   mov.b64 {{.*}}, __dynamic_shmem__0
// CHECK-DAG:   cp.async.cg.shared.global
// CHECK-DAG:   cp.async.wait_group 0
// CHECK-DAG:   fence.proxy.async.shared::cta
// CHECK-DAG:   wgmma.fence.sync.aligned
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-DAG:   wgmma.commit_group.sync.aligned
// CHECK-DAG:   wgmma.wait_group.sync.aligned 1
// CHECK-DAG:   wgmma.wait_group.sync.aligned 0
// CHECK-NOT:   mma.sync
// CHECK-NOT:   .minnctapersm
// CHECK-LABEL: .entry f16_wide_dispatch_0

// A long, large GEMM (K = 1024, 528 workgroups of 128 x 64) takes the
// two-warpgroup tiles first: 128 x 64, two warpgroups of 128 threads; two
// workgroups a multiprocessor fit their four stages, and the kernel says
// so, so that ptxas keeps to 128 registers a thread.
// CHECK:       .maxntid 256, 1, 1
// CHECK-NEXT:  .minnctapersm 2
// CHECK:       wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-LABEL: .entry f32_dispatch_0
// CHECK-DAG:   and.b32 {{.*}}, -8192;
// CHECK-DAG:   fence.proxy.async.shared::cta
// CHECK-COUNT-12: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-NOT:   fma.rn.f32

// SM80-LABEL: .entry f16_dispatch_0
// SM80-DAG:   cp.async.cg.shared.global
// SM80-DAG:   cp.async.wait_group 2
// SM80-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-DAG:   ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// SM80-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT:   wgmma
// SM80-LABEL: .entry f16_wide_dispatch_0
// SM80-LABEL: .entry f32_dispatch_0
// SM80-DAG:   ld.shared.v4.b32
// SM80-DAG:   fma.rn.f32
// SM80-NOT:   wgmma

// With --precision=tf32 the f32 kernel is on the tensor cores too: its A
// fragments by ldmatrix (32-bit elements), each operand rounded to tf32,
// mma.sync m16n8k8; the f16 kernel is as before.
// TF32-LABEL: .entry f16_dispatch_0
// TF32:       wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// TF32-LABEL: .entry f16_wide_dispatch_0
// TF32-LABEL: .entry f32_dispatch_0
// TF32-DAG:   cp.async.cg.shared.global
// TF32-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TF32-DAG:   cvt.rna.tf32.f32
// TF32-DAG:   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TF32-NOT:   fma.rn.f32

func.func @f16(%a: tensor<2048x64xf16>, %b: tensor<64x256xf16>) -> tensor<2048x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x256xf32>) -> tensor<2048x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2048x64xf16>, tensor<64x256xf16>) outs(%f : tensor<2048x256xf32>) -> tensor<2048x256xf32>
  return %m : tensor<2048x256xf32>
}

func.func @f16_wide(%a: tensor<67584x1024xf16>, %b: tensor<1024x64xf16>) -> tensor<67584x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67584x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<67584x64xf32>) -> tensor<67584x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<67584x1024xf16>, tensor<1024x64xf16>) outs(%f : tensor<67584x64xf32>) -> tensor<67584x64xf32>
  return %m : tensor<67584x64xf32>
}

func.func @f32(%a: tensor<2048x256xf32>, %b: tensor<256x1024xf32>) -> tensor<2048x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2048x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  return %m : tensor<2048x1024xf32>
}
