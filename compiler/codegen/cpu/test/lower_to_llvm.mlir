// The whole CPU codegen pipeline (buildCpuCodegenPipeline), ending in
// kiln-cpu-lower-to-llvm.
// RUN: kiln-opt --pass-pipeline="builtin.module(kiln-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize),kiln-bufferize,canonicalize,func.func(promote-buffers-to-stack),kiln-distribute-to-workgroups,kiln-cpu-lower-to-llvm)" %s | FileCheck %s
// RUN: kiln-opt --pass-pipeline="builtin.module(kiln-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize),kiln-bufferize,canonicalize,func.func(promote-buffers-to-stack),kiln-distribute-to-workgroups,kiln-cpu-lower-to-llvm)" %s | FileCheck %s --check-prefix=LLVMONLY

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
// The entry carries what the module writer records: bindings, push
// constants (none) and grid.
// CHECK:       llvm.func @exp(%[[BINDINGS:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32, %[[Z:[^:]+]]: i32)
// CHECK-SAME:    attributes {kiln.binding_count = 2 : i32, kiln.push_constant_count = 0 : i32, kiln.workgroup_count = array<i64: 2, 1, 1>} {
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
// CHECK-SAME:    attributes {kiln.binding_count = 3 : i32, kiln.push_constant_count = 0 : i32, kiln.workgroup_count = array<i64: 8, 1, 1>} {
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

// Scalar arguments (push constants) arrive as 32-bit words after the
// binding pointers: the entry loads them from its push constant pointer,
// and the body decodes them (an f32 is a bitcast word, an i64 two words,
// the low one first).

// CHECK-LABEL: llvm.func internal @scale_impl(
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[W0:[^:]+]]: i32, %[[W1:[^:]+]]: i32, %[[W2:[^:]+]]: i32, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-DAG:     llvm.bitcast %[[W0]] : i32 to f32
// CHECK-DAG:     %[[LOW:.+]] = llvm.zext %[[W1]] : i32 to i64
// CHECK-DAG:     %[[HIGH:.+]] = llvm.zext %[[W2]] : i32 to i64
// CHECK-DAG:     %[[SHIFTED:.+]] = llvm.shl %[[HIGH]], %{{.+}} : i64
// CHECK-DAG:     llvm.or %[[LOW]], %[[SHIFTED]] : i64
// CHECK:       llvm.func @scale(%[[BINDINGS:[^:]+]]: !llvm.ptr, %[[PUSH:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32, %[[Z:[^:]+]]: i32)
// CHECK-SAME:    attributes {kiln.binding_count = 2 : i32, kiln.push_constant_count = 3 : i32, kiln.workgroup_count = array<i64: 1, 1, 1>} {
// CHECK-COUNT-2: llvm.load %{{.+}} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P0:.+]] = llvm.getelementptr %[[PUSH]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[V0:.+]] = llvm.load %[[P0]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[P1:.+]] = llvm.getelementptr %[[PUSH]][1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[V1:.+]] = llvm.load %[[P1]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[P2:.+]] = llvm.getelementptr %[[PUSH]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[V2:.+]] = llvm.load %[[P2]] : !llvm.ptr -> i32
// CHECK-COUNT-3: llvm.zext
// CHECK-NEXT:    llvm.call @scale_impl(%{{.+}}, %{{.+}}, %[[V0]], %[[V1]], %[[V2]], %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i64, i64, i64) -> ()
func.func private @scale(%a: tensor<16xi64>, %s: f32, %o: i64) -> tensor<16xi64> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<16xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<16xi64>) outs(%e : tensor<16xi64>) {
  ^bb0(%x: i64, %out: i64):
    %f = arith.sitofp %x : i64 to f32
    %m = arith.mulf %f, %s : f32
    %i = arith.fptosi %m : f32 to i64
    %t = arith.addi %i, %o : i64
    linalg.yield %t : i64
  } -> tensor<16xi64>
  return %r : tensor<16xi64>
}
