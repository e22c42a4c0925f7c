// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-tosa-cond-if-to-select %s | FileCheck %s

// Both branches inlined (their block arguments bound to the op's inputs),
// the result selected elementwise by the condition, read as 0-d data.
// CHECK-DAG:   #[[NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @both_branches(
// CHECK-SAME:    %[[C:.*]]: tensor<i1>, %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK-NOT:     tosa.cond_if
// CHECK:         %[[SUM:.*]] = tosa.add %[[A]], %[[B]]
// CHECK:         %[[DIFF:.*]] = tosa.sub %[[A]], %[[B]]
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[NONE]], #[[ID]], #[[ID]], #[[ID]]]{{.*}} ins(%[[C]], %[[SUM]], %[[DIFF]] : tensor<i1>, tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK:           arith.select
// CHECK:         return %[[R]]
func.func @both_branches(%c: tensor<i1>, %a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tosa.cond_if %c (%x = %a, %y = %b) : tensor<i1> (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>):
    %s = tosa.add %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tosa.yield %s : tensor<2x4xf32>
  } else {
  ^bb0(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>):
    %d = tosa.sub %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tosa.yield %d : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}

// -----

// Branches reading enclosing values, nested: the inner one is rewritten
// after the outer is inlined; a one-element condition of rank 1 is viewed
// as 0-d.
// CHECK-LABEL: func.func @nested(
// CHECK-NOT:     tosa.cond_if
// CHECK:         arith.select
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xi1> into tensor<i1>
// CHECK:         arith.select
func.func @nested(%c: tensor<1xi1>, %d: tensor<i1>, %a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tosa.cond_if %c : tensor<1xi1> -> tensor<3xf32> {
    %1 = tosa.cond_if %d : tensor<i1> -> tensor<3xf32> {
      %n = tosa.abs %a : (tensor<3xf32>) -> tensor<3xf32>
      tosa.yield %n : tensor<3xf32>
    } else {
      tosa.yield %a : tensor<3xf32>
    }
    tosa.yield %1 : tensor<3xf32>
  } else {
    %e = tosa.exp %a : (tensor<3xf32>) -> tensor<3xf32>
    tosa.yield %e : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}

// -----

// Results that may differ in extent between the branches cannot be
// selected.
func.func @dynamic_result(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{tosa.cond_if: Kiln runs both branches and selects each result, which needs results of static shape and branches without side effects}}
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<?xf32> {
    %x = tensor.cast %a : tensor<2xf32> to tensor<?xf32>
    tosa.yield %x : tensor<?xf32>
  } else {
    %y = tensor.cast %b : tensor<3xf32> to tensor<?xf32>
    tosa.yield %y : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

// -----

// Compiled and run: the condition picks per call.
// RUN: kiln-compile %S/Inputs/cond_if.mlir --target-device=cpu -o %t.kiln
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="i1=1" --input="2xf32=[1 5]" --input="2xf32=[2 3]" | FileCheck %s --check-prefix=TAKEN
// TAKEN: 2xf32=3 8
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="i1=0" --input="2xf32=[1 5]" --input="2xf32=[2 3]" | FileCheck %s --check-prefix=ELSE
// ELSE: 2xf32=-1 2
