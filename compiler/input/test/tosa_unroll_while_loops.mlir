// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-tosa-unroll-while-loops %s | FileCheck %s

// A counter from 0 against a limit of 3, stepped by 1: the body three
// times over the carried values (the counter's adds fold away later).
// CHECK-LABEL: func.func @counted(
// CHECK-SAME:    %[[X:.*]]: tensor<2xf32>)
// CHECK-NOT:     tosa.while_loop
// CHECK:         %[[A1:.*]] = tosa.add %[[X]], %[[X]]
// CHECK:         %[[A2:.*]] = tosa.add %[[A1]], %[[A1]]
// CHECK:         %[[A3:.*]] = tosa.add %[[A2]], %[[A2]]
// CHECK:         return %{{.*}}, %[[A3]]
func.func @counted(%x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %limit = "tosa.const"() <{values = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<i32>, tensor<2xf32>
}

// -----

// A condition false from the start: the loop's results are its inputs.
// CHECK-LABEL: func.func @never(
// CHECK-SAME:    %[[X:.*]]: tensor<2xf32>)
// CHECK-NOT:     tosa.while_loop
// CHECK-NOT:     tosa.add
// CHECK:         return %[[X]]
func.func @never(%x: tensor<2xf32>) -> tensor<2xf32> {
  %five = "tosa.const"() <{values = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %five, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %limit = "tosa.const"() <{values = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#1 : tensor<2xf32>
}

// -----

// A limit given per call: the trip count is data, the loop left for
// kiln-tosa-outline-control-flow (the runtime repeats it).
// CHECK-LABEL: func.func @per_call(
// CHECK:         tosa.while_loop
// CHECK-NOT:     tosa.add
// CHECK:         } do {
func.func @per_call(%x: tensor<2xf32>, %limit: tensor<i32>) -> tensor<2xf32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#1 : tensor<2xf32>
}

// -----

// A counter that never reaches its limit within the bound of steps
// written out (10^6 steps of 1): nothing written, the loop left for the
// runtime to repeat.
// CHECK-LABEL: func.func @too_long(
// CHECK:         tosa.while_loop
func.func @too_long(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %limit = "tosa.const"() <{values = dense<1000000> : tensor<i32>}> : () -> tensor<i32>
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#1 : tensor<2xf32>
}

// -----

// Compiled and run: i = 3, acc = ((x * 2 + x) * 2 + x) * 2 + x = 15 x.
// RUN: kiln-compile %S/Inputs/while_loop.mlir --target-device=cpu -o %t.kiln
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="2xf32=[1 -2]" | FileCheck %s --check-prefix=RAN
// RAN: i32=3
// RAN: 2xf32=15 -30
