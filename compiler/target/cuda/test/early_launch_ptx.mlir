// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-dump-module %t.kiln | FileCheck %s --check-prefix=DUMP
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_80 -o %t80.kiln
// RUN: strings %t80.kiln | FileCheck %s --check-prefix=SM80
// RUN: kiln-dump-module %t80.kiln | FileCheck %s --check-prefix=DUMP80

// On sm_90 every kernel may be launched while the kernels before it finish
// (programmatic dependent launch): it waits for them first thing, before
// any load or store, and its entry point says so, which is what lets the
// runtime's graph give it an early edge. Older chips have no such launch:
// no wait, no flag. Modules with such entry points are version 1.4 (a
// 1.3 reader skips the flag and launches kernels the ordinary way).

// CHECK-LABEL: .entry chain_dispatch_0(
// CHECK:       .maxntid
// CHECK-NOT:   ld.global
// CHECK-NOT:   st.global
// CHECK:       griddepcontrol.wait;

// DUMP: module 'module': version 1.4,
// DUMP: entry point 0 'chain_dispatch_0': {{.*}}, waits for its prerequisites (launched early)

// SM80-NOT: griddepcontrol
// DUMP80: module 'module': version 1.2,
// DUMP80-NOT: waits for its prerequisites

func.func @chain(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %abb = linalg.matmul ins(%ab, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %abb : tensor<64x64xf32>
}
