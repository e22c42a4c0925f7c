// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-form-dispatches %s | FileCheck %s

// A single elementwise op becomes one dispatch; its empty init is recomputed
// inside and erased from the host.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[A:.+]]: tensor<8xf32>) -> tensor<8xf32>
// CHECK-NOT:   tensor.empty
// CHECK-NEXT:  %[[R:.+]] = call @elementwise_dispatch_0(%[[A]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:  return %[[R]]
// CHECK:       func.func private @elementwise_dispatch_0(%[[X:.+]]: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch}
// CHECK-NEXT:  %[[E:.+]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[Y:.+]] = linalg.exp ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT:  return %[[Y]]
func.func @elementwise(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// matmul + its zero fill + the bias/relu consumer: one dispatch. The scalar
// zero (also captured by the consumer's body) is cloned, not passed.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias_relu(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>, %[[BIAS:[^:]+]]: tensor<16xf32>)
// CHECK-NEXT:  %[[R:.+]] = call @matmul_bias_relu_dispatch_0(%[[A]], %[[B]], %[[BIAS]])
// CHECK-SAME:    : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:  return %[[R]]
// CHECK-NOT:   func.func private
// CHECK:       func.func private @matmul_bias_relu_dispatch_0(
// CHECK-SAME:    %[[DA:[^:]+]]: tensor<4x8xf32>, %[[DB:[^:]+]]: tensor<8x16xf32>, %[[DBIAS:[^:]+]]: tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-SAME:    attributes {kiln.dispatch}
// CHECK:       %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK:       %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK:       %[[MM:.+]] = linalg.matmul ins(%[[DA]], %[[DB]] : {{.*}}) outs(%[[FILL]] : tensor<4x16xf32>)
// CHECK:       %[[OUT:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[MM]], %[[DBIAS]] : tensor<4x16xf32>, tensor<16xf32>)
// CHECK:         arith.maximumf %{{.+}}, %[[ZERO]] : f32
// CHECK:       return %[[OUT]] : tensor<4x16xf32>
func.func @matmul_bias_relu(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// The bias broadcast that initializes a convolution's accumulator is
// absorbed into the convolution's dispatch.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @conv_bias_init(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x6x6x2xf32>, %[[F:[^:]+]]: tensor<3x3x2x4xf32>, %[[BIAS:[^:]+]]: tensor<4xf32>)
// CHECK-NOT:   linalg.generic
// CHECK:       %[[R:.+]] = call @conv_bias_init_dispatch_0(%[[BIAS]], %[[X]], %[[F]])
// CHECK-NEXT:  return %[[R]]
// CHECK:       func.func private @conv_bias_init_dispatch_0(
// CHECK-SAME:    %[[DBIAS:[^:]+]]: tensor<4xf32>, %[[DX:[^:]+]]: tensor<1x6x6x2xf32>, %[[DF:[^:]+]]: tensor<3x3x2x4xf32>)
// CHECK-SAME:    attributes {kiln.dispatch}
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<1x4x4x4xf32>
// CHECK:       %[[INIT:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[DBIAS]] : tensor<4xf32>) outs(%[[E]] : tensor<1x4x4x4xf32>)
// CHECK:       %[[C:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    ins(%[[DX]], %[[DF]] : {{.*}}) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK:       return %[[C]]
func.func @conv_bias_init(%x: tensor<1x6x6x2xf32>, %f: tensor<3x3x2x4xf32>, %bias: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %b = linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<4xf32>) outs(%e : tensor<1x4x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %f : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// Two independent roots: two dispatches, each called in program order.

// CHECK-LABEL: func.func @two_roots(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-NEXT:  %[[R0:.+]] = call @two_roots_dispatch_0(%[[A]])
// CHECK-NEXT:  %[[R1:.+]] = call @two_roots_dispatch_1(%[[B]])
// CHECK-NEXT:  return %[[R0]], %[[R1]]
// CHECK-DAG:   func.func private @two_roots_dispatch_0(%{{.+}}: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch}
// CHECK-DAG:   func.func private @two_roots_dispatch_1(%{{.+}}: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch}
// CHECK-DAG:   linalg.exp
// CHECK-DAG:   linalg.negf
// CHECK-NOT:   func.func
func.func @two_roots(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.negf ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Reshapes of dispatch results stay on the host (the host plan aliases
// them); the consumer of a reshape is a separate dispatch.

// CHECK-LABEL: func.func @alias_ops(
// CHECK-SAME:    %[[A:.+]]: tensor<2x4xf32>)
// CHECK-NEXT:  %[[D0:.+]] = call @alias_ops_dispatch_0(%[[A]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:  %[[C0:.+]] = tensor.collapse_shape %[[D0]] {{\[\[}}0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK-NEXT:  %[[D1:.+]] = call @alias_ops_dispatch_1(%[[C0]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:  %[[X:.+]] = tensor.expand_shape %[[D1]]
// CHECK-NEXT:  %[[C1:.+]] = tensor.collapse_shape %[[X]]
// CHECK-NEXT:  return %[[C1]] : tensor<8xf32>
// CHECK:       func.func private @alias_ops_dispatch_
// CHECK-NOT:   tensor.collapse_shape
// CHECK-NOT:   tensor.expand_shape
// CHECK:       func.func private @alias_ops_dispatch_
// CHECK-NOT:   tensor.collapse_shape
// CHECK-NOT:   tensor.expand_shape
func.func @alias_ops(%a: tensor<2x4xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %0 = linalg.exp ins(%a : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %2 = linalg.negf ins(%1 : tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %3 = tensor.expand_shape %2 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %4 = tensor.collapse_shape %3 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// Dense constants stay on the host and are passed to the dispatch; scalar
// constants are cloned into it. Unused constants disappear.

// CHECK-LABEL: func.func @constants(
// CHECK-SAME:    %[[A:.+]]: tensor<4xf32>)
// CHECK-NOT:   arith.constant 2.500000e+00
// CHECK-NOT:   dense<3.000000e+00>
// CHECK:       %[[K:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:  %[[R:.+]] = call @constants_dispatch_0(%[[A]], %[[K]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  return %[[R]]
// CHECK:       func.func private @constants_dispatch_0(%[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NOT:   dense<
// CHECK:       %[[S:.+]] = arith.constant 2.500000e+00 : f32
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:         arith.addf %{{.+}}, %[[S]] : f32
func.func @constants(%a: tensor<4xf32>) -> tensor<4xf32> {
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %unused = arith.constant dense<3.0> : tensor<4xf32>
  %s = arith.constant 2.5 : f32
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %k : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A consumer that reads its producer through a permutation (a transpose)
// joins a chain of elementwise ops: the dispatch stays elementwise, and
// each element of the producer is still computed once.

// CHECK-LABEL: func.func @fuse_transposed_read(
// CHECK:       call @fuse_transposed_read_dispatch_0
// CHECK-NOT:   call
func.func @fuse_transposed_read(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = linalg.exp ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// After a contraction it is not: the GEMM kernels take epilogues at the
// output's own indices. The transpose is a dispatch of its own.

// CHECK-LABEL: func.func @no_fuse_transposed_read(
// CHECK:       call @no_fuse_transposed_read_dispatch_0
// CHECK:       call @no_fuse_transposed_read_dispatch_1
func.func @no_fuse_transposed_read(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// A scalar computed on the host has no dispatch to go to.

func.func @host_scalar_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  // expected-error @+1 {{'arith.addf' computes on scalars outside any tensor op; Kiln cannot place it in a dispatch}}
  %s = arith.addf %c1, %c2 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

func.func @host_extract(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tensor.extract' computes on scalars outside any tensor op}}
  %x = tensor.extract %a[%c0] : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

// tosa's implicit broadcast reads the unit dimension of the bias at constant
// index 0; the bias add still fuses into the batch matmul. A second matmul
// makes a second dispatch, placed after the first so entry points follow
// program order.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bcast = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @broadcast_bias(
// CHECK-NEXT:  %[[H:.+]] = call @broadcast_bias_dispatch_0(
// CHECK-NEXT:  %[[O:.+]] = call @broadcast_bias_dispatch_1(%[[H]]
// CHECK-NEXT:  return %[[O]]
// CHECK:       func.func private @broadcast_bias_dispatch_0(
// CHECK:       linalg.batch_matmul
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}]
// CHECK:       arith.addf
// CHECK:       func.func private @broadcast_bias_dispatch_1(
// CHECK:       linalg.batch_matmul
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @broadcast_bias(%x: tensor<1x4x8xf32>, %w: tensor<1x8x16xf32>, %b: tensor<1x1x16xf32>, %w2: tensor<1x16x2xf32>) -> tensor<1x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %mm = linalg.batch_matmul ins(%x, %w : tensor<1x4x8xf32>, tensor<1x8x16xf32>) outs(%f : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %h = linalg.generic {indexing_maps = [#id3, #bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %b : tensor<1x4x16xf32>, tensor<1x1x16xf32>) outs(%e : tensor<1x4x16xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  %e2 = tensor.empty() : tensor<1x4x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %o = linalg.batch_matmul ins(%h, %w2 : tensor<1x4x16xf32>, tensor<1x16x2xf32>) outs(%f2 : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %o : tensor<1x4x2xf32>
}

// -----

// A consumer of two elementwise roots joins the first one's dispatch only:
// every op is outlined exactly once.

// CHECK-LABEL: func.func @consumer_of_two_roots(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK:       %[[N:.+]] = call @consumer_of_two_roots_dispatch_1(%[[B]])
// CHECK:       %[[M:.+]] = call @consumer_of_two_roots_dispatch_0(%[[A]], %[[N]])
// CHECK:       return %[[M]]
// CHECK:       func.func private @consumer_of_two_roots_dispatch_0(
// CHECK:         linalg.exp
// CHECK:         linalg.mul
// CHECK:       func.func private @consumer_of_two_roots_dispatch_1(
// CHECK-NOT:     linalg.mul
// CHECK:         linalg.negf
// CHECK-NOT:     linalg.mul
// CHECK:         return
func.func @consumer_of_two_roots(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.exp ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %n = linalg.negf ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.mul ins(%t, %n : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// An elementwise op that is both a consumer of a broadcast and the only
// producer of a reduction's accumulator stays with the reduction.

// CHECK-LABEL: func.func @consumer_and_init_producer(
// CHECK:       call @consumer_and_init_producer_dispatch_0(
// CHECK:       call @consumer_and_init_producer_dispatch_1(
// CHECK:       func.func private @consumer_and_init_producer_dispatch_0(
// CHECK:         linalg.broadcast
// CHECK-NOT:     linalg.generic
// CHECK:         return
// CHECK:       func.func private @consumer_and_init_producer_dispatch_1(
// CHECK:         %[[INIT:.+]] = linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} outs(%[[INIT]] :
func.func @consumer_and_init_producer(%s: tensor<f32>, %x: tensor<5x8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %b = linalg.broadcast ins(%s : tensor<f32>) outs(%e : tensor<8xf32>) dimensions = [0]
  %init = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %v : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<5x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// torch.roll along a width (Swin-T's shifted windows): two slices across
// rows, not views, read only by a concatenation, are computed in its
// dispatch (the concatenation reads their source in place, GatherOps.cpp),
// not copied out by dispatches of their own.

// CHECK-LABEL: func.func @roll(
// CHECK-SAME:    %[[X:.+]]: tensor<1x8x8x4xf32>)
// CHECK-NEXT:  %[[R:.+]] = call @roll_dispatch_0(%[[X]]) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:  return %[[R]]
// CHECK:       func.func private @roll_dispatch_0(
// CHECK:         tensor.extract_slice {{.*}}[0, 0, 5, 0] [1, 8, 3, 4] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice {{.*}}[0, 0, 0, 0] [1, 8, 5, 4] [1, 1, 1, 1]
// CHECK:         tensor.concat dim(2)
func.func @roll(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %a = tensor.extract_slice %x[0, 0, 5, 0] [1, 8, 3, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x3x4xf32>
  %b = tensor.extract_slice %x[0, 0, 0, 0] [1, 8, 5, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x5x4xf32>
  %r = tensor.concat dim(2) %a, %b : (tensor<1x8x3x4xf32>, tensor<1x8x5x4xf32>) -> tensor<1x8x8x4xf32>
  return %r : tensor<1x8x8x4xf32>
}
