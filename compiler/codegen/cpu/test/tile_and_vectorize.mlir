// RUN: kiln-opt --split-input-file --pass-pipeline="builtin.module(kiln-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize))" %s | FileCheck %s
// Every op below is tiled to static shapes and vectorized: no linalg op is
// left for the scalar fallback.
// RUN: kiln-opt --split-input-file --pass-pipeline="builtin.module(kiln-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize))" %s | FileCheck %s --check-prefix=NOLINALG
// NOLINALG-NOT: linalg.

// matmul 64x64x64: the 64x64 workgroup tile covers the whole result, so the
// single-iteration workgroup loop folds away. Inside: 4x16 vector tiles,
// zero-initialized, accumulated over K in steps of 8 by vector.contract.

// CHECK-LABEL: func.func private @matmul_64(
// CHECK-SAME:    %[[A:[^:]+]]: memref<64x64xf32>, %[[B:[^:]+]]: memref<64x64xf32>, %[[C:[^:]+]]: memref<64x64xf32>)
// CHECK-DAG:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// CHECK-DAG:   %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:   %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK-NOT:   scf.forall
// CHECK:       %[[R:.+]] = scf.for %{{.+}} = %{{.+}} to %[[C64]] step %[[C4]]
// CHECK:         scf.for %{{.+}} = %{{.+}} to %[[C64]] step %[[C16]]
// CHECK:           %[[INIT:.+]] = vector.transfer_write %[[ZERO]], %{{.+}} : vector<4x16xf32>, tensor<4x16xf32>
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[C64]] step %[[C8]] iter_args(%{{.+}} = %[[INIT]]) -> (tensor<4x16xf32>)
// CHECK:             %[[LHS:.+]] = vector.transfer_read {{.+}} : tensor<4x8xf32>, vector<4x8xf32>
// CHECK:             %[[RHS:.+]] = vector.transfer_read {{.+}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK:             %[[ACC:.+]] = vector.transfer_read {{.+}} : tensor<4x16xf32>, vector<4x16xf32>
// CHECK:             vector.contract
// CHECK-SAME:          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>
// CHECK-SAME:          %[[LHS]], %[[RHS]], %[[ACC]] : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
// CHECK:       bufferization.materialize_in_destination %[[R]] in restrict writable %[[C]]
func.func private @matmul_64(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%fill : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// matmul 128x256x64 with a fused bias + relu consumer: 2x4 workgroups of
// 64x64 (scf.forall), the consumer computed per 4x16 tile right after its
// contraction, inside the same loops.

// CHECK-LABEL: func.func private @matmul_bias_relu(
// CHECK:       %[[R:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (128, 256) step (64, 64) shared_outs(%{{.+}}) -> (tensor<128x256xf32>)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[MM:.+]] = scf.for
// CHECK:               vector.contract {{.+}} : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
// CHECK:             %[[T:.+]] = vector.transfer_read %[[MM]]{{.+}} : tensor<4x16xf32>, vector<4x16xf32>
// CHECK:             %[[BIAS:.+]] = vector.broadcast %{{.+}} : vector<16xf32> to vector<4x16xf32>
// CHECK:             %[[S:.+]] = arith.addf %[[T]], %[[BIAS]] : vector<4x16xf32>
// CHECK:             arith.maximumf %[[S]], %{{.+}} : vector<4x16xf32>
// CHECK:         scf.forall.in_parallel
// CHECK-NEXT:      tensor.parallel_insert_slice %{{.+}} [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x256xf32>
// CHECK:       bufferization.materialize_in_destination %[[R]]
func.func private @matmul_bias_relu(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<128x256xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%fill : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<128x256xf32>, tensor<256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// Elementwise 64x128: workgroups of 32x128 elements, 1x16 vectors.

// CHECK-LABEL: func.func private @elementwise(
// CHECK:       scf.forall (%{{.+}}) = (0) to (64) step (32)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[X:.+]] = vector.transfer_read {{.+}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK:             %[[Y:.+]] = vector.transfer_read {{.+}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK:             %[[M:.+]] = arith.mulf %[[X]], %[[Y]] : vector<1x16xf32>
// CHECK:             %[[E:.+]] = math.exp %[[M]] : vector<1x16xf32>
// CHECK:             vector.transfer_write %[[E]], {{.+}} : vector<1x16xf32>, tensor<1x16xf32>
func.func private @elementwise(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>) -> tensor<64x128xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<64x128xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// Sizes with no good divisor still tile exactly (no masks): 7x13 runs one
// row at a time with 13-wide vectors, in a single workgroup.

// CHECK-LABEL: func.func private @odd_shape(
// CHECK-NOT:   scf.forall
// CHECK:       scf.for
// CHECK:         arith.negf %{{.+}} : vector<1x13xf32>
// CHECK-NOT:   vector.mask
func.func private @odd_shape(%a: tensor<7x13xf32>) -> tensor<7x13xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<7x13xf32>
  %0 = linalg.negf ins(%a : tensor<7x13xf32>) outs(%e : tensor<7x13xf32>) -> tensor<7x13xf32>
  return %0 : tensor<7x13xf32>
}

// -----

// Row reduction 128x64: 64 rows per workgroup, 8 rows x 16 columns per step.

// CHECK-LABEL: func.func private @row_sum(
// CHECK:       scf.forall (%{{.+}}) = (0) to (128) step (64)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.multi_reduction <add>, %{{.+}}, %{{.+}} [1] : vector<8x16xf32> to vector<8xf32>
func.func private @row_sum(%a: tensor<128x64xf32>) -> tensor<128xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<128x64xf32>) outs(%fill : tensor<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

// NHWC/HWCF conv 3x3: workgroups over output rows (4 each), one output row
// of 4x16 per vector tile, a loop over filter rows, and each filter row
// vectorized as a 1-D convolution: one vector.contract per filter column.

// CHECK-LABEL: func.func private @conv(
// CHECK:       scf.forall (%{{.+}}) = (0) to (8) step (4)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[KH:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}}) -> (tensor<1x1x4x16xf32>)
// CHECK:               %[[IN:.+]] = vector.transfer_read {{.+}} : tensor<1x6x8xf32>, vector<1x6x8xf32>
// CHECK:               %[[W:.+]] = vector.transfer_read {{.+}} : tensor<3x8x16xf32>, vector<3x8x16xf32>
// CHECK-COUNT-3:       vector.extract_strided_slice %[[IN]]
// CHECK-COUNT-3:       vector.extract %[[W]]
// CHECK-COUNT-3:       vector.contract {{.+}} : vector<1x4x8xf32>, vector<8x16xf32> into vector<1x4x16xf32>
// CHECK-NOT:           vector.contract
// CHECK:             tensor.insert_slice %[[KH]]
func.func private @conv(%x: tensor<1x10x18x8xf32>, %f: tensor<3x3x8x16xf32>) -> tensor<1x8x16x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%x, %f : tensor<1x10x18x8xf32>, tensor<3x3x8x16xf32>) outs(%fill : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// matmul 67x13x67: no tile size divides 67 or 13. Workgroups of 64x64 leave a
// partial last workgroup in each dimension; the K loop is one full step of 8
// and a peeled step of 5; inside a workgroup, the 4x16 vector loops are
// peeled too, and their partial iterations (whose extents depend on the
// workgroup) run vector.contract under masks sized by the extents' bounds.

// CHECK-LABEL: func.func private @matmul_67x13x67(
// CHECK:       scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (67, 67) step (64, 64)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.contract {{.+}} : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
// CHECK:             vector.contract {{.+}} : vector<4x5xf32>, vector<5x16xf32> into vector<4x16xf32>
// CHECK:           scf.for
// CHECK:             %[[MASK:.+]] = vector.create_mask %{{.+}}, %{{.+}}, %{{.+}} : vector<4x15x8xi1>
// CHECK:             vector.mask %[[MASK]] { vector.contract {{.+}} : vector<4x8xf32>, vector<8x15xf32> into vector<4x15xf32> }
// CHECK:         scf.for
// CHECK:           vector.create_mask {{.+}} : vector<3x16x8xi1>
func.func private @matmul_67x13x67(%a: tensor<67x13xf32>, %b: tensor<13x67xf32>) -> tensor<67x67xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x67xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<67x67xf32>) -> tensor<67x67xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<67x13xf32>, tensor<13x67xf32>) outs(%fill : tensor<67x67xf32>) -> tensor<67x67xf32>
  return %0 : tensor<67x67xf32>
}
