// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-split-phases %s | FileCheck %s

// The host reads an element the function computes (how many elements are
// positive): the kernel counting them runs in phase 0, whose output phase 1
// takes as its input and reads on the host; the count is returned too, and
// the scalar constant is computed again in the phase using it.
// CHECK: module attributes {kiln.phase_chains = [{function_type = (tensor<8xf32>) -> (tensor<?xf32>, tensor<i64>), name = "count", outputs = array<i64: 1, 0, 0, 0>, phases = [{function = "count_phase0", inputs = array<i64: -1, 0>}, {function = "count_phase1", inputs = array<i64: 0, 0>}]}]}
// CHECK-LABEL: func.func @count_phase0
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>) -> tensor<i64> attributes {kiln.phase_of = "count"}
// CHECK: %[[COUNT:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<8xf32>)
// CHECK-NOT: tensor.extract
// CHECK: return %[[COUNT]] : tensor<i64>
// CHECK-LABEL: func.func @count_phase1
// CHECK-SAME: (%[[C:.*]]: tensor<i64>) -> tensor<?xf32> attributes {kiln.phase_of = "count"}
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[READ:.*]] = tensor.extract %[[C]][] : tensor<i64>
// CHECK: %[[N:.*]] = arith.index_cast %[[READ]] : i64 to index
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[FILLED:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[EMPTY]] : tensor<?xf32>)
// CHECK: return %[[FILLED]] : tensor<?xf32>
// CHECK-NOT: func.func @count(
func.func @count(%x: tensor<8xf32>) -> (tensor<?xf32>, tensor<i64>) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%c0 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<i64>) {
  ^bb0(%a: f32, %acc: i64):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %zero : f32
    %one = arith.extui %p : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %read = tensor.extract %count[] : tensor<i64>
  %n = arith.index_cast %read : i64 to index
  %out = tensor.empty(%n) : tensor<?xf32>
  %c1 = arith.constant 1.0 : f32
  %filled = linalg.fill ins(%c1 : f32) outs(%out : tensor<?xf32>) -> tensor<?xf32>
  return %filled, %count : tensor<?xf32>, tensor<i64>
}

// -----

// Reads of function arguments are the host plan's input elements: nothing
// to split.
// CHECK-NOT: kiln.phase_chains
// CHECK-LABEL: func.func @given
// CHECK-NOT: kiln.phase_of
func.func @given(%k: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %read = tensor.extract %k[%c0] : tensor<1xi64>
  %n = arith.index_cast %read : i64 to index
  %out = tensor.empty(%n) : tensor<?xf32>
  %c1 = arith.constant 1.0 : f32
  %filled = linalg.fill ins(%c1 : f32) outs(%out : tensor<?xf32>) -> tensor<?xf32>
  return %filled : tensor<?xf32>
}

// -----

// Two reads in a row: a count computed from what the first read sized
// makes a third phase, which reads phase 1's count; destinations
// (tensor.empty) are made again where they are used, not passed.
// CHECK: phases = [{function = "twice_phase0", inputs = array<i64: -1, 0>}, {function = "twice_phase1", inputs = array<i64: 0, 0>}, {function = "twice_phase2", inputs = array<i64: 1, 0>}]
// CHECK-LABEL: func.func @twice_phase0
// CHECK-SAME: -> tensor<4xi64>
// CHECK-LABEL: func.func @twice_phase1
// CHECK-SAME: (%{{.*}}: tensor<4xi64>) -> tensor<1xi64>
// CHECK: tensor.extract
// CHECK: tensor.empty() : tensor<1xi64>
// CHECK-LABEL: func.func @twice_phase2
// CHECK-SAME: (%{{.*}}: tensor<1xi64>) -> tensor<?xf32>
func.func @twice(%x: tensor<4xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xi64>
  %first = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%a: i64, %b: i64):
    %twice = arith.addi %a, %a : i64
    linalg.yield %twice : i64
  } -> tensor<4xi64>
  %r1 = tensor.extract %first[%c0] : tensor<4xi64>
  %n1 = arith.index_cast %r1 : i64 to index
  %e2 = tensor.empty(%n1) : tensor<?xi64>
  %c7 = arith.constant 7 : i64
  %f2 = linalg.fill ins(%c7 : i64) outs(%e2 : tensor<?xi64>) -> tensor<?xi64>
  %e3 = tensor.empty() : tensor<1xi64>
  %second = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%f2 : tensor<?xi64>) outs(%e3 : tensor<1xi64>) {
  ^bb0(%a: i64, %b: i64):
    %s = arith.addi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<1xi64>
  %r2 = tensor.extract %second[%c0] : tensor<1xi64>
  %n2 = arith.index_cast %r2 : i64 to index
  %out = tensor.empty(%n2) : tensor<?xf32>
  %c1 = arith.constant 1.0 : f32
  %filled = linalg.fill ins(%c1 : f32) outs(%out : tensor<?xf32>) -> tensor<?xf32>
  return %filled : tensor<?xf32>
}

// -----

func.func @returns_input(%x: tensor<8xf32>) -> (tensor<?xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %count = linalg.fill ins(%c0 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %read = tensor.extract %count[] : tensor<i64>
  %n = arith.index_cast %read : i64 to index
  %out = tensor.empty(%n) : tensor<?xf32>
  %c1 = arith.constant 1.0 : f32
  %filled = linalg.fill ins(%c1 : f32) outs(%out : tensor<?xf32>) -> tensor<?xf32>
  // expected-error @+1 {{returns its input 0 unchanged, which a function split into phases (it reads values it computes on the host or runs a loop per call) does not do yet}}
  return %filled, %x : tensor<?xf32>, tensor<8xf32>
}

// -----

// A loop the runtime repeats (a call of a declaration naming its body):
// its own phase, between the ordinary phase computing what it takes (x + x,
// and the condition constant, computed again there) and the one using its
// results; the body becomes a phase of the function and the declaration
// goes. The phase records the values carried and where the body's values
// are (its condition passed through: input 1).
// CHECK: module attributes {kiln.phase_chains = [{function_type = (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>, name = "looped", outputs = array<i64: 2, 0>, phases = [{function = "looped_phase0", inputs = array<i64: -1, 1>}, {function = "body", inputs = array<i64: -1, 0, 0, 0, 0, 1>, loop_carried = 1 : i64, loop_outputs = array<i64: -2, 0>}, {function = "looped_phase2", inputs = array<i64: 1, 0>}]}]}
// CHECK-LABEL: func.func @looped_phase0
// CHECK-SAME: -> (tensor<i1>, tensor<4xf32>) attributes {kiln.phase_of = "looped"}
// CHECK-LABEL: func.func @looped_phase2
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK: func.func @body
// CHECK-SAME: attributes {kiln.phase_of = "looped"}
// CHECK-NOT: looped_run
func.func @looped(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %true = arith.constant dense<true> : tensor<i1>
  %e = tensor.empty() : tensor<4xf32>
  %twice = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %last = func.call @looped_run(%n, %true, %twice) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %y = linalg.mul ins(%last, %last : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @body(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.phase_of = "looped"} {
  %e = tensor.empty() : tensor<4xf32>
  %w = linalg.add ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %w : tensor<4xf32>
}
func.func private @looped_run(tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32> attributes {kiln.loop_body = @body, kiln.loop_carried = 1 : i64, kiln.loop_outputs = array<i64: -2, 0>}

// -----

// A loop body may run a loop of its own (it is split in turn), but not a
// loop of itself: its nesting would never end.
func.func @outer(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %true = arith.constant dense<true> : tensor<i1>
  %last = func.call @outer_run(%n, %true, %x) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %last : tensor<4xf32>
}
func.func @inner(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.phase_of = "outer"} {
  %true = arith.constant dense<true> : tensor<i1>
  // expected-error @+1 {{runs a loop whose body is the function itself, inner}}
  %w = func.call @outer_run(%i, %true, %v) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %w : tensor<4xf32>
}
func.func private @outer_run(tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32> attributes {kiln.loop_body = @inner, kiln.loop_carried = 1 : i64, kiln.loop_outputs = array<i64: -2, 0>}
