// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-gpu-outline-kernels %s | FileCheck %s

// The dispatch becomes a kernel taking its bindings; workgroup ids come
// from gpu.block_id, and the launch metadata and the lowering
// configuration travel as attributes.

// CHECK:       module attributes {gpu.container_module}
// CHECK-NOT:   func.func
// CHECK:       gpu.module @kiln_kernels
// CHECK:         gpu.func @double(%[[IN:.+]]: memref<512xf32>, %[[OUT:.+]]: memref<512xf32>) kernel
// CHECK-SAME:      kiln.binding_count = 2 : i32
// CHECK-SAME:      kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 256>}
// CHECK-SAME:      kiln.workgroup_count = array<i64: 2, 1, 1>
// CHECK-SAME:      kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK:           %[[WG:.+]] = gpu.block_id x
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           affine.apply #{{.+}}()[%[[WG]], %[[TID]]]
// CHECK:           gpu.return
func.func private @double(%in: memref<512xf32>, %out: memref<512xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 256>}, kiln.workgroup_count = array<i64: 2, 1, 1>, kiln.workgroup_size = array<i64: 256, 1, 1>} {
  %t = gpu.thread_id x
  %i = affine.apply affine_map<()[s0, s1] -> (s0 * 256 + s1)>()[%x, %t]
  %v = memref.load %in[%i] : memref<512xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %out[%i] : memref<512xf32>
  return
}

// -----

// Scalar arguments (push constants) become one i32 parameter (.u32) per
// word after the bindings, decoded in the kernel: an f16 from the low half
// of its word, an i64 from two words, the low one first.

// CHECK:       gpu.func @scaled(%[[IN:[^:]+]]: memref<512xf16>, %[[OUT:[^:]+]]: memref<512xi64>, %[[W0:[^:]+]]: i32, %[[W1:[^:]+]]: i32, %[[W2:[^:]+]]: i32) kernel
// CHECK-SAME:      kiln.binding_count = 2 : i32
// CHECK-SAME:      kiln.push_constant_count = 3 : i32
// CHECK-DAG:       %[[H:.+]] = arith.trunci %[[W0]] : i32 to i16
// CHECK-DAG:       %[[S:.+]] = arith.bitcast %[[H]] : i16 to f16
// CHECK-DAG:       %[[LOW:.+]] = arith.extui %[[W1]] : i32 to i64
// CHECK-DAG:       %[[HIGH:.+]] = arith.extui %[[W2]] : i32 to i64
// CHECK-DAG:       %[[SHIFTED:.+]] = arith.shli %[[HIGH]], %{{.+}} : i64
// CHECK-DAG:       %[[O:.+]] = arith.ori %[[LOW]], %[[SHIFTED]] : i64
// CHECK:           arith.mulf %{{.+}}, %[[S]] : f16
// CHECK:           arith.addi %{{.+}}, %[[O]] : i64
func.func private @scaled(%in: memref<512xf16>, %out: memref<512xi64>, %s: f16, %o: i64, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 2, 1, 1>, kiln.workgroup_size = array<i64: 256, 1, 1>} {
  %t = gpu.thread_id x
  %i = affine.apply affine_map<()[s0, s1] -> (s0 * 256 + s1)>()[%x, %t]
  %v = memref.load %in[%i] : memref<512xf16>
  %w = arith.mulf %v, %s : f16
  %n = arith.fptosi %w : f16 to i64
  %r = arith.addi %n, %o : i64
  memref.store %r, %out[%i] : memref<512xi64>
  return
}

// -----

// A kernel cannot allocate from the heap.

func.func private @heap(%in: memref<4096xf32>, %out: memref<4096xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 1, 1, 1>, kiln.workgroup_size = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{GPU kernels cannot allocate a 'memref<4096xf32>' temporary yet}}
  %t = memref.alloc() : memref<4096xf32>
  linalg.copy ins(%in : memref<4096xf32>) outs(%t : memref<4096xf32>)
  linalg.copy ins(%t : memref<4096xf32>) outs(%out : memref<4096xf32>)
  memref.dealloc %t : memref<4096xf32>
  return
}

// -----

// A grid computed per dispatch (issue 19): its PushConstant leaves (opcode
// 2) name i64 arguments until outlining, then the arguments' first words,
// as the kernel's .u32 parameters take them: argument 3 (%n) follows the
// bindings and the two words of argument 2, so it starts at word 2.

// CHECK-LABEL: gpu.func @dynamic_grid(
// CHECK-SAME:    %{{.+}}: memref<1xf32>, %{{.+}}: memref<1xf32>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32) kernel
// CHECK-SAME:    kiln.push_constant_count = 4 : i32
// CHECK-SAME:    kiln.workgroup_count = array<i64: 1, 1, 1>
// CHECK-SAME:    kiln.workgroup_count_nodes = array<i64: 3, 0, 0>
// CHECK-SAME:    kiln.workgroup_count_program = array<i64: 0, 1, 0, 2, 2, 0, 0, 64, 0, 7, 1, 2>
func.func private @dynamic_grid(%in: memref<1xf32>, %out: memref<1xf32>, %m64: i64, %n64: i64, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 1, 1, 1>, kiln.workgroup_count_nodes = array<i64: 3, 0, 0>, kiln.workgroup_count_program = array<i64: 0, 1, 0, 2, 3, 0, 0, 64, 0, 7, 1, 2>, kiln.workgroup_size = array<i64: 64, 1, 1>} {
  %n = arith.index_cast %n64 : i64 to index
  %view = memref.reinterpret_cast %out to offset: [0], sizes: [%n], strides: [1] : memref<1xf32> to memref<?xf32>
  %t = gpu.thread_id x
  %i = affine.apply affine_map<()[s0, s1] -> (s0 * 64 + s1)>()[%x, %t]
  %inside = arith.cmpi ult, %i, %n : index
  scf.if %inside {
    %v = memref.load %in[%i] : memref<1xf32>
    memref.store %v, %view[%i] : memref<?xf32>
  }
  return
}
