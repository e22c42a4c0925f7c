// RUN: kiln-opt --split-input-file --kiln-hoist-dispatch-scalars %s | FileCheck %s

// Two clamps with different bounds: one function whose bounds are
// arguments after the tensor, and two calls passing their own constants.

// CHECK-LABEL: func.func @two_clamps(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-DAG:     %[[LO0:.+]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG:     %[[HI0:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[R0:.+]] = call @clamp0(%[[A]], %[[LO0]], %[[HI0]]) : (tensor<8xf32>, f32, f32) -> tensor<8xf32>
// CHECK-DAG:     %[[LO1:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[HI1:.+]] = arith.constant 6.000000e+00 : f32
// CHECK:         %[[R1:.+]] = call @clamp0(%[[B]], %[[LO1]], %[[HI1]]) : (tensor<8xf32>, f32, f32) -> tensor<8xf32>
// CHECK:         return %[[R0]], %[[R1]]
// CHECK:       func.func private @clamp0(%[[X:[^:]+]]: tensor<8xf32>, %[[LO:[^:]+]]: f32, %[[HI:[^:]+]]: f32) -> tensor<8xf32> attributes {kiln.dispatch}
// CHECK-NOT:     arith.constant
// CHECK:         arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK:         arith.minimumf %{{.+}}, %[[HI]] : f32
// CHECK-NOT:   func.func private @clamp1
#id = affine_map<(d0) -> (d0)>
func.func @two_clamps(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = call @clamp0(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = call @clamp1(%b) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
func.func private @clamp0(%x: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @clamp1(%x: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Three members: only the constants that differ somewhere become arguments
// (the i64 offset and the f64 scale; the shared i32 7 stays in the body,
// where it folds), in the order the body uses them. The lone dispatch
// equivalent to no other keeps its constants, and so do dispatches that
// differ in an index constant (index constants are never hoisted).

// CHECK-LABEL: func.func @three(
// CHECK:         %[[S0:.+]] = arith.constant 2.500000e-01 : f64
// CHECK:         %[[O0:.+]] = arith.constant 5 : i64
// CHECK:         call @scale0(%{{.+}}, %[[S0]], %[[O0]]) : (tensor<4xi64>, f64, i64) -> tensor<4xi64>
// CHECK:         %[[S1:.+]] = arith.constant -3.000000e+00 : f64
// CHECK:         %[[O1:.+]] = arith.constant 5 : i64
// CHECK:         call @scale0(%{{.+}}, %[[S1]], %[[O1]])
// CHECK:         %[[S2:.+]] = arith.constant 2.500000e-01 : f64
// CHECK:         %[[O2:.+]] = arith.constant -4294967296 : i64
// CHECK:         call @scale0(%{{.+}}, %[[S2]], %[[O2]])
// CHECK:         call @lone(%{{[^,]+}}) : (tensor<4xi64>) -> tensor<4xi64>
// CHECK:         call @slice0(%{{[^,]+}}) : (tensor<8xf32>) -> tensor<4xf32>
// CHECK:         call @slice1(%{{[^,]+}}) : (tensor<8xf32>) -> tensor<4xf32>
// CHECK:       func.func private @scale0(%{{[^:]+}}: tensor<4xi64>, %[[S:[^:]+]]: f64, %[[O:[^:]+]]: i64)
// CHECK:         %[[SEVEN:.+]] = arith.constant 7 : i32
// CHECK-NOT:     arith.constant
// CHECK:         arith.mulf %{{.+}}, %[[S]] : f64
// CHECK:         arith.addi %{{.+}}, %[[O]] : i64
// CHECK:         arith.shli %{{.+}}, %{{.+}} : i64
// CHECK-NOT:   func.func private @scale1
// CHECK-NOT:   func.func private @scale2
// CHECK:       func.func private @lone(%{{[^:]+}}: tensor<4xi64>) -> tensor<4xi64>
// CHECK:         arith.constant 9.000000e+00 : f64
// CHECK:       func.func private @slice0(%{{[^:]+}}: tensor<8xf32>) -> tensor<4xf32>
// CHECK:       func.func private @slice1(%{{[^:]+}}: tensor<8xf32>) -> tensor<4xf32>
#id = affine_map<(d0) -> (d0)>
func.func @three(%a: tensor<4xi64>, %b: tensor<4xi64>, %c: tensor<4xi64>, %d: tensor<8xf32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>) {
  %0 = call @scale0(%a) : (tensor<4xi64>) -> tensor<4xi64>
  %1 = call @scale1(%b) : (tensor<4xi64>) -> tensor<4xi64>
  %2 = call @scale2(%c) : (tensor<4xi64>) -> tensor<4xi64>
  %3 = call @lone(%c) : (tensor<4xi64>) -> tensor<4xi64>
  %4 = call @slice0(%d) : (tensor<8xf32>) -> tensor<4xf32>
  %5 = call @slice1(%d) : (tensor<8xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>
}
func.func private @scale0(%x: tensor<4xi64>) -> tensor<4xi64> attributes {kiln.dispatch} {
  %seven = arith.constant 7 : i32
  %s = arith.constant 0.25 : f64
  %o = arith.constant 5 : i64
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%p: i64, %q: i64):
    %f = arith.sitofp %p : i64 to f64
    %m = arith.mulf %f, %s : f64
    %i = arith.fptosi %m : f64 to i64
    %j = arith.addi %i, %o : i64
    %k = arith.extsi %seven : i32 to i64
    %l = arith.shli %j, %k : i64
    linalg.yield %l : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func private @scale1(%x: tensor<4xi64>) -> tensor<4xi64> attributes {kiln.dispatch} {
  %seven = arith.constant 7 : i32
  %s = arith.constant -3.0 : f64
  %o = arith.constant 5 : i64
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%p: i64, %q: i64):
    %f = arith.sitofp %p : i64 to f64
    %m = arith.mulf %f, %s : f64
    %i = arith.fptosi %m : f64 to i64
    %j = arith.addi %i, %o : i64
    %k = arith.extsi %seven : i32 to i64
    %l = arith.shli %j, %k : i64
    linalg.yield %l : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func private @scale2(%x: tensor<4xi64>) -> tensor<4xi64> attributes {kiln.dispatch} {
  %seven = arith.constant 7 : i32
  %s = arith.constant 0.25 : f64
  %o = arith.constant -4294967296 : i64
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%p: i64, %q: i64):
    %f = arith.sitofp %p : i64 to f64
    %m = arith.mulf %f, %s : f64
    %i = arith.fptosi %m : f64 to i64
    %j = arith.addi %i, %o : i64
    %k = arith.extsi %seven : i32 to i64
    %l = arith.shli %j, %k : i64
    linalg.yield %l : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func private @lone(%x: tensor<4xi64>) -> tensor<4xi64> attributes {kiln.dispatch} {
  %s = arith.constant 9.0 : f64
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%p: i64, %q: i64):
    %f = arith.sitofp %p : i64 to f64
    %m = arith.mulf %f, %s : f64
    %i = arith.fptosi %m : f64 to i64
    linalg.yield %i : i64
  } -> tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func private @slice0(%x: tensor<8xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %i = arith.constant 0 : index
  %r = tensor.extract_slice %x[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @slice1(%x: tensor<8xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %i = arith.constant 4 : index
  %r = tensor.extract_slice %x[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Dispatches that are simply identical merge with no arguments.

// CHECK-LABEL: func.func @same(
// CHECK:         call @neg0(%{{[^,]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:         call @neg0(%{{[^,]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:       func.func private @neg0(%{{[^:]+}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:   func.func private @neg1
func.func @same(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = call @neg0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @neg1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @neg0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.negf ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @neg1(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.negf ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
