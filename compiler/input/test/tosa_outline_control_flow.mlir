// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-tosa-outline-control-flow %s | FileCheck %s

// A limit given per call: the body, then the condition on what it gives,
// become @per_call_while0 on (iteration, condition, i, acc, limit); the
// condition on the first values is computed where the loop was, and the
// loop is the call of a loop without a trip count carrying two values.
// CHECK-LABEL: func.func @per_call(
// CHECK-SAME:    %[[X:.*]]: tensor<2xf32>, %[[LIMIT:.*]]: tensor<i32>)
// CHECK:         %[[ZERO:.*]] = "tosa.const"
// CHECK:         %[[C0:.*]] = tosa.greater %[[LIMIT]], %[[ZERO]]
// CHECK:         %[[MAX:.*]] = arith.constant dense<9223372036854775807> : tensor<i64>
// CHECK:         %[[R:.*]]:2 = call @per_call_while0_run(%[[MAX]], %[[C0]], %[[ZERO]], %[[X]], %[[LIMIT]])
// CHECK:         return %[[R]]#1
// CHECK-LABEL: func.func @per_call_while0(
// CHECK-SAME:    %{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %[[I:.*]]: tensor<i32>, %[[ACC:.*]]: tensor<2xf32>, %[[L:.*]]: tensor<i32>) -> (tensor<i1>, tensor<i32>, tensor<2xf32>) attributes {kiln.phase_of = "per_call"}
// CHECK:         %[[N:.*]] = tosa.add %[[I]]
// CHECK:         %[[S:.*]] = tosa.add %[[ACC]], %[[ACC]]
// CHECK:         %[[C:.*]] = tosa.greater %[[L]], %[[N]]
// CHECK:         return %[[C]], %[[N]], %[[S]]
// CHECK:       func.func private @per_call_while0_run(tensor<i64>, tensor<i1>, tensor<i32>, tensor<2xf32>, tensor<i32>) -> (tensor<i32>, tensor<2xf32>) attributes {kiln.loop_body = @per_call_while0, kiln.loop_carried = 2 : i64}
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

// A body that passes a value through: returned once, kiln.loop_outputs
// says where it is (the body's input 3, the carried x).
// CHECK-LABEL: func.func @passes(
// CHECK:       func.func private @passes_while0_run
// CHECK-SAME:    kiln.loop_outputs = array<i64: 0, 1, -4>
func.func @passes(%x: tensor<2xf32>, %limit: tensor<i32>) -> tensor<i32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %keep = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %keep: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %n, %keep : tensor<i32>, tensor<2xf32>
  }
  return %0#0 : tensor<i32>
}

// -----

// A loop inside another op's region is refused at the op.
func.func @nested(%x: tensor<2xf32>, %limit: tensor<i32>, %p: tensor<i1>) -> tensor<2xf32> {
  %r = tosa.cond_if %p (%a = %x) : tensor<i1> (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a0: tensor<2xf32>):
    %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
    // expected-error @+1 {{which takes a loop at the top of a function only}}
    %0:2 = tosa.while_loop (%i = %zero, %acc = %a0) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
      %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      tosa.yield %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
      %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
      tosa.yield %n, %acc : tensor<i32>, tensor<2xf32>
    }
    tosa.yield %0#1 : tensor<2xf32>
  } else {
  ^bb0(%a1: tensor<2xf32>):
    tosa.yield %a1 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// Compiled and run on local-sync, one module at several limits: acc
// doubled 3 times, none (limit 0 and a negative one).
// RUN: kiln-compile %S/Inputs/while_per_call.mlir --target-device=cpu -o %t.kiln
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="2xf32=[1 -2]" --input="i32=3" | FileCheck %s --check-prefix=THREE
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="2xf32=[1 -2]" --input="i32=0" | FileCheck %s --check-prefix=NONE
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="2xf32=[1 -2]" --input="i32=-5" | FileCheck %s --check-prefix=NONE
// THREE: i32=3
// THREE-NEXT: 2xf32=8 -16
// NONE: i32=0
// NONE-NEXT: 2xf32=1 -2

// -----

// An if of a result of dynamic shape (branches of 2 and 3 elements): each
// branch a function on what it reads, the if two loops of at most one
// step, the else branch's first (on the negated condition, carrying a
// placeholder), then the then branch's carrying the first's value.
// CHECK-LABEL: func.func @dynamic_result(
// CHECK-SAME:    %[[C:.*]]: tensor<i1>, %[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK:         %[[FILL:.*]] = linalg.fill
// CHECK:         %[[HOLD:.*]] = tensor.cast %[[FILL]] : tensor<1xf32> to tensor<?xf32>
// CHECK:         %[[ONCE:.*]] = arith.constant dense<1> : tensor<i64>
// CHECK:         %[[NOT:.*]] = arith.xori %[[C]],
// CHECK:         %[[E:.*]] = call @dynamic_result_if0_else_run(%[[ONCE]], %[[NOT]], %[[HOLD]], %[[B]])
// CHECK:         %[[T:.*]] = call @dynamic_result_if0_then_run(%[[ONCE]], %[[C]], %[[E]], %[[A]])
// CHECK:         return %[[T]]
// CHECK-LABEL: func.func @dynamic_result_if0_then(
// CHECK-SAME:    tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<?xf32>, %{{.*}}: tensor<2xf32>) -> tensor<?xf32>
// CHECK-SAME:    kiln.phase_of = "dynamic_result"
func.func @dynamic_result(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<?xf32> {
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<?xf32> {
    %x = tensor.cast %a : tensor<2xf32> to tensor<?xf32>
    tosa.yield %x : tensor<?xf32>
  } else {
    %y = tensor.cast %b : tensor<3xf32> to tensor<?xf32>
    tosa.yield %y : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

// Compiled and run, one module: the branch taken decides the extent.
// RUN: kiln-compile %S/Inputs/cond_if_dynamic.mlir --target-device=cpu -o %t.if.kiln
// RUN: kiln-run-module --device=local-sync --module=%t.if.kiln --input="i1=1" --input="2xf32=[1 5]" --input="3xf32=[2 3 4]" | FileCheck %s --check-prefix=THEN
// RUN: kiln-run-module --device=local-sync --module=%t.if.kiln --input="i1=0" --input="2xf32=[1 5]" --input="3xf32=[2 3 4]" | FileCheck %s --check-prefix=ELSE
// THEN: 2xf32=2 10
// ELSE: 3xf32=4 6 8
