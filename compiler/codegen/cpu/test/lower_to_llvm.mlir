// The whole CPU codegen pipeline (buildCpuCodegenPipeline), ending in
// kiln-cpu-lower-to-llvm.
// RUN: kiln-opt --pass-pipeline="builtin.module(kiln-cpu-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize),kiln-bufferize,canonicalize,func.func(promote-buffers-to-stack),kiln-distribute-to-workgroups,kiln-cpu-lower-to-llvm)" %s | FileCheck %s
// RUN: kiln-opt --pass-pipeline="builtin.module(kiln-cpu-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize),kiln-bufferize,canonicalize,func.func(promote-buffers-to-stack),kiln-distribute-to-workgroups,kiln-cpu-lower-to-llvm)" %s | FileCheck %s --check-prefix=LLVMONLY

// Only the LLVM dialect is left; exp is a polynomial, not a libm call.
// LLVMONLY-NOT: func.func
// LLVMONLY-NOT: {{ (memref|vector|scf|cf|arith|math|affine|linalg|bufferization|tensor|ub)\.}}
// LLVMONLY-NOT: unrealized_conversion_cast
// LLVMONLY-NOT: @expf

// Each dispatch becomes an internal `<name>_impl(binding ptrs..., x, y, z)`
// that keeps its workgroup count, and the exported entry point
// `void <name>(void *const *bindings, const uint32_t *push, u32 x, y, z)`
// that loads every binding pointer, widens the ids and calls it.

// CHECK-LABEL: llvm.func internal @exp_impl(
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-SAME:    kiln.workgroup_count = array<i64: 2, 1, 1>
// CHECK:         llvm.intr.fma
// The entry carries what the module writer records: bindings and grid.
// CHECK:       llvm.func @exp(%[[BINDINGS:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32, %[[Z:[^:]+]]: i32)
// CHECK-SAME:    attributes {kiln.binding_count = 2 : i32, kiln.workgroup_count = array<i64: 2, 1, 1>} {
// CHECK-NEXT:    %[[S0:.+]] = llvm.getelementptr %[[BINDINGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B0:.+]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S1:.+]] = llvm.getelementptr %[[BINDINGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B1:.+]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[X64:.+]] = llvm.zext %[[X]] : i32 to i64
// CHECK-NEXT:    %[[Y64:.+]] = llvm.zext %[[Y]] : i32 to i64
// CHECK-NEXT:    %[[Z64:.+]] = llvm.zext %[[Z]] : i32 to i64
// CHECK-NEXT:    llvm.call @exp_impl(%[[B0]], %[[B1]], %[[X64]], %[[Y64]], %[[Z64]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
func.func private @exp(%a: tensor<64x128xf32>) -> tensor<64x128xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<64x128xf32>
  %0 = linalg.exp ins(%a : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// Three bindings (two inputs, one output); the contraction is lowered to
// vector FMAs over 16-lane rows.

// CHECK-LABEL: llvm.func internal @matmul_impl(
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-SAME:    kiln.workgroup_count = array<i64: 8, 1, 1>
// CHECK:         llvm.intr.fmuladd({{.+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:       llvm.func @matmul(%[[BINDINGS:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32)
// CHECK-SAME:    attributes {kiln.binding_count = 3 : i32, kiln.workgroup_count = array<i64: 8, 1, 1>} {
// CHECK-COUNT-3: llvm.load
// CHECK-COUNT-3: llvm.zext
// CHECK-NEXT:    llvm.call @matmul_impl({{.+}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
func.func private @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%fill : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}
