// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s

// The PTX of a vectorized elementwise add (16-byte global loads and stores
// in the aligned version, 4-byte ones in the other), a row sum (butterfly
// shuffles within warps, the warps' partials through shared memory between
// barriers) and a column max (partials through shared memory). They are in
// the module as PTX whether or not ptxas is installed.

// CHECK-LABEL: .entry add_dispatch_0
// CHECK-DAG:   ld.global.v4.b32
// CHECK-DAG:   st.global.v4.b32
// CHECK-DAG:   ld.global.b32
// CHECK-DAG:   st.global.b32
// CHECK-LABEL: .entry row_sum_dispatch_0
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK:       st.shared.b32
// CHECK:       bar.sync 0;
// CHECK:       ld.shared
// CHECK:       st.global.b32
// CHECK-LABEL: .entry column_max_dispatch_0
// CHECK-NOT:   shfl.sync
// CHECK:       st.shared.b32
// CHECK:       bar.sync 0;
// CHECK:       ld.shared
// CHECK:       st.global.b32

func.func @add(%a: tensor<1024x256xf32>, %b: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %0 = tosa.add %a, %b : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<1024x256xf32>
  return %0 : tensor<1024x256xf32>
}

func.func @row_sum(%x: tensor<64x1000xf32>) -> tensor<64x1xf32> {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  return %0 : tensor<64x1xf32>
}

func.func @column_max(%x: tensor<512x64xf32>) -> tensor<1x64xf32> {
  %0 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<512x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}
