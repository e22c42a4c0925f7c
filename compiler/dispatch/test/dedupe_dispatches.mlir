// RUN: kiln-opt --split-input-file --kiln-dedupe-dispatches %s | FileCheck %s

// Two dispatches with the same body (value names and locations aside) are
// one: both calls call the first and the second is erased. The third
// differs in a constant's value, the fourth in an attribute (the exp's
// fastmath flags), the fifth in a type: each keeps its own function.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @repeated(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<8xf16>)
// CHECK:         %[[R0:.+]] = call @d0(%[[A]], %[[B]])
// CHECK:         %[[R1:.+]] = call @d0(%[[R0]], %[[A]])
// CHECK:         %[[R2:.+]] = call @d2(%[[R1]], %[[B]])
// CHECK:         %[[R3:.+]] = call @d3(%[[R2]], %[[B]])
// CHECK:         %[[R4:.+]] = call @d4(%[[C]], %[[C]])
// CHECK:         %[[R5:.+]] = call @d0(%[[R2]], %[[R3]])
// CHECK:         return %[[R5]], %[[R4]]
// CHECK:       func.func private @d0(
// CHECK-NOT:   func.func private @d1(
// CHECK:       func.func private @d2(
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK:       func.func private @d3(
// CHECK:         math.exp %{{.+}} fastmath<fast>
// CHECK:       func.func private @d4(
// CHECK-NOT:   func.func
func.func @repeated(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf16>) {
  %0 = call @d0(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = call @d1(%0, %a) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = call @d2(%1, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = call @d3(%2, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = call @d4(%c, %c) : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %5 = call @d1(%2, %3) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %5, %4 : tensor<8xf32>, tensor<8xf16>
}
func.func private @d0(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %c = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %c : f32
    %s = math.exp %m : f32
    %t = arith.addf %s, %q : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @d1(%u: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %three = arith.constant 3.0 : f32 loc("elsewhere")
  %empty = tensor.empty() : tensor<8xf32>
  %res = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%u, %v : tensor<8xf32>, tensor<8xf32>) outs(%empty : tensor<8xf32>) {
  ^bb0(%i: f32, %j: f32, %k: f32):
    %0 = arith.mulf %i, %three : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %j : f32
    linalg.yield %2 : f32
  } -> tensor<8xf32>
  return %res : tensor<8xf32>
}
func.func private @d2(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %c : f32
    %s = math.exp %m : f32
    %t = arith.addf %s, %q : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @d3(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %c = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %c : f32
    %s = math.exp %m fastmath<fast> : f32
    %t = arith.addf %s, %q : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @d4(%x: tensor<8xf16>, %y: tensor<8xf16>) -> tensor<8xf16> attributes {kiln.dispatch} {
  %c = arith.constant 3.0 : f16
  %e = tensor.empty() : tensor<8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%p: f16, %q: f16, %o: f16):
    %m = arith.mulf %p, %c : f16
    %s = math.exp %m : f16
    %t = arith.addf %s, %q : f16
    linalg.yield %t : f16
  } -> tensor<8xf16>
  return %r : tensor<8xf16>
}

// -----

// Operands in another order are another program: (x - y) is not (y - x).
// Functions that are not dispatches are never merged.

// CHECK-LABEL: func.func @operand_order(
// CHECK:         call @sub_xy
// CHECK:         call @sub_yx
// CHECK:         call @helper_a
// CHECK:         call @helper_b
// CHECK:       func.func private @sub_xy(
// CHECK:       func.func private @sub_yx(
// CHECK:       func.func private @helper_a(
// CHECK:       func.func private @helper_b(
func.func @operand_order(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = call @sub_xy(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = call @sub_yx(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = call @helper_a(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = call @helper_b(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @sub_xy(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.sub ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @sub_yx(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.sub ins(%y, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @helper_a(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.sub ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @helper_b(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.sub ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Repeated blocks as kiln-form-dispatches outlines them: a matmul + bias +
// relu layer applied three times with different weights (bindings) gives
// one dispatch called three times.

// CHECK-LABEL: func.func @layers(
// CHECK-COUNT-3: call @layers_dispatch_0(
// CHECK-NOT:     call
// CHECK:         return
// CHECK:         func.func private @layers_dispatch_0(
// CHECK-NOT:     func.func private
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layers(%x: tensor<4x16xf32>, %w0: tensor<16x16xf32>, %b0: tensor<16xf32>, %w1: tensor<16x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x16xf32>, %b2: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = call @layers_dispatch_0(%x, %w0, %b0) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %1 = call @layers_dispatch_1(%0, %w1, %b1) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = call @layers_dispatch_2(%1, %w2, %b2) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
func.func private @layers_dispatch_0(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
func.func private @layers_dispatch_1(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
func.func private @layers_dispatch_2(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
