// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --precision=tf32 -o %t.tf32.kiln
// RUN: strings %t.tf32.kiln | FileCheck %s --check-prefix=TF32

// An f32 attention (4 heads of 128 tokens and 64 dims, a binding mask) is
// one kernel on tf32 tensor cores: 32 keys a step split over four warps,
// so each warp's step is 8 head steps of S = Q . K^T (one m16n8k8 each)
// and 8 value tiles of O += P . V. At the default precision each product
// is three mma.syncs on operands split into tf32 parts and remainders
// (3xTF32, f32's accuracy): 48 a step; with --precision=tf32 one, 16.

// CHECK-LABEL: .entry attention_mask_f32_dispatch_0
// CHECK:       cvt.rna.tf32.f32
// CHECK-COUNT-48: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT:   mma.sync
// CHECK:       ret;

// TF32-LABEL: .entry attention_mask_f32_dispatch_0
// TF32-COUNT-16: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TF32-NOT:   mma.sync
// TF32:       ret;

func.func @attention_mask_f32(%q: tensor<4x128x64xf32>, %k: tensor<4x128x64xf32>, %v: tensor<4x128x64xf32>, %mask: tensor<1x128x128xf32>) -> tensor<4x128x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x128x64xf32>) -> tensor<4x64x128xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x128x64xf32>, tensor<4x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x128x128xf32>
  %y0 = tosa.mul %s, %scale, %shift : (tensor<4x128x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x128x128xf32>
  %y = tosa.add %y0, %mask : (tensor<4x128x128xf32>, tensor<1x128x128xf32>) -> tensor<4x128x128xf32>
  %m = tosa.reduce_max %y {axis = 2 : i32} : (tensor<4x128x128xf32>) -> tensor<4x128x1xf32>
  %d = tosa.sub %y, %m : (tensor<4x128x128xf32>, tensor<4x128x1xf32>) -> tensor<4x128x128xf32>
  %e = tosa.exp %d : (tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x128x128xf32>) -> tensor<4x128x1xf32>
  %p = tosa.reciprocal %sum : (tensor<4x128x1xf32>) -> tensor<4x128x1xf32>
  %pn = tosa.mul %e, %p, %shift : (tensor<4x128x128xf32>, tensor<4x128x1xf32>, tensor<1xi8>) -> tensor<4x128x128xf32>
  %o = tosa.matmul %pn, %v, %zp, %zp : (tensor<4x128x128xf32>, tensor<4x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x128x64xf32>
  return %o : tensor<4x128x64xf32>
}
