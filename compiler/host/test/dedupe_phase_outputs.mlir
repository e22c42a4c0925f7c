// RUN: kiln-opt --split-input-file --kiln-dedupe-phase-outputs %s | FileCheck %s

// Phase 0 returns one value twice (CSE made two zero tensors one): it
// returns it once, and the second phase and the function's outputs that
// read the second copy read the first; the result after it moves down.
// CHECK: module attributes {kiln.phase_chains = [{function_type = (tensor<4xf32>) -> (tensor<3xi64>, tensor<?xf32>), name = "f", outputs = array<i64: 0, 0, 1, 0>, phases = [{function = "f_phase0", inputs = array<i64: -1, 0>}, {function = "f_phase1", inputs = array<i64: 0, 0, 0, 0, 0, 1>}]}]}
// CHECK-LABEL: func.func @f_phase0
// CHECK-SAME: -> (tensor<3xi64>, tensor<i64>)
// CHECK: return %[[Z:.*]], %[[N:.*]] : tensor<3xi64>, tensor<i64>
module attributes {kiln.phase_chains = [{function_type = (tensor<4xf32>) -> (tensor<3xi64>, tensor<?xf32>), name = "f", outputs = array<i64: 0, 1, 1, 0>, phases = [{function = "f_phase0", inputs = array<i64: -1, 0>}, {function = "f_phase1", inputs = array<i64: 0, 0, 0, 1, 0, 2>}]}]} {
  func.func @f_phase0(%x: tensor<4xf32>) -> (tensor<3xi64>, tensor<3xi64>, tensor<i64>) attributes {kiln.phase_of = "f"} {
    %c0 = arith.constant 0 : i64
    %e = tensor.empty() : tensor<3xi64>
    %z = linalg.fill ins(%c0 : i64) outs(%e : tensor<3xi64>) -> tensor<3xi64>
    %e1 = tensor.empty() : tensor<i64>
    %n = linalg.fill ins(%c0 : i64) outs(%e1 : tensor<i64>) -> tensor<i64>
    return %z, %z, %n : tensor<3xi64>, tensor<3xi64>, tensor<i64>
  }
  func.func @f_phase1(%a: tensor<3xi64>, %b: tensor<3xi64>, %c: tensor<i64>) -> tensor<?xf32> attributes {kiln.phase_of = "f"} {
    %read = tensor.extract %c[] : tensor<i64>
    %n = arith.index_cast %read : i64 to index
    %out = tensor.empty(%n) : tensor<?xf32>
    return %out : tensor<?xf32>
  }
}

// -----

// A loop phase's body returning one value twice returns it once; its
// loop_outputs, identity before, now name that result for both.
// CHECK: phases = [{function = "body", inputs = array<i64: -1, 0, -1, 1, -1, 2, -1, 2>, loop_carried = 2 : i64, loop_outputs = array<i64: 0, 1, 1>}]
// CHECK-LABEL: func.func @body
// CHECK-SAME: -> (tensor<i1>, tensor<4xf32>)
// CHECK: return %{{.*}}, %[[Y:.*]] : tensor<i1>, tensor<4xf32>
module attributes {kiln.phase_chains = [{function_type = (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>, name = "g", outputs = array<i64: 0, 0>, phases = [{function = "body", inputs = array<i64: -1, 0, -1, 1, -1, 2, -1, 2>, loop_carried = 2 : i64}]}]} {
  func.func @body(%i: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<i1>, tensor<4xf32>, tensor<4xf32>) attributes {kiln.phase_of = "g"} {
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %c, %z, %z : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
}
