// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-gpu-outline-kernels %s | FileCheck %s

// The dispatch becomes a kernel taking only its bindings; workgroup ids come
// from gpu.block_id, and the launch metadata travels as attributes.

// CHECK:       module attributes {gpu.container_module}
// CHECK-NOT:   func.func
// CHECK:       gpu.module @kiln_kernels
// CHECK:         gpu.func @double(%[[IN:.+]]: memref<512xf32>, %[[OUT:.+]]: memref<512xf32>) kernel
// CHECK-SAME:      kiln.binding_count = 2 : i32
// CHECK-SAME:      kiln.workgroup_count = array<i64: 2, 1, 1>
// CHECK-SAME:      kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK:           %[[WG:.+]] = gpu.block_id x
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           affine.apply #{{.+}}()[%[[WG]], %[[TID]]]
// CHECK:           gpu.return
func.func private @double(%in: memref<512xf32>, %out: memref<512xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 2, 1, 1>, kiln.workgroup_size = array<i64: 256, 1, 1>} {
  %t = gpu.thread_id x
  %i = affine.apply affine_map<()[s0, s1] -> (s0 * 256 + s1)>()[%x, %t]
  %v = memref.load %in[%i] : memref<512xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %out[%i] : memref<512xf32>
  return
}

// -----

// A kernel cannot allocate from the heap.

func.func private @heap(%in: memref<4096xf32>, %out: memref<4096xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 1, 1, 1>, kiln.workgroup_size = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{the cuda target cannot allocate a 'memref<4096xf32>' temporary yet}}
  %t = memref.alloc() : memref<4096xf32>
  linalg.copy ins(%in : memref<4096xf32>) outs(%t : memref<4096xf32>)
  linalg.copy ins(%t : memref<4096xf32>) outs(%out : memref<4096xf32>)
  memref.dealloc %t : memref<4096xf32>
  return
}
