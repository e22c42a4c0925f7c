// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="i64=3" --input="2xf32=[1 -2]" | FileCheck %s --check-prefix=RAN
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="i64=0" --input="2xf32=[1 -2]" | FileCheck %s --check-prefix=NONE

// A loop the runtime repeats (module format 1.11, the ONNX importer's form
// of a Loop whose trip count is given per call): the body doubles v and
// adds x, carrying v and scanning it; its condition is the loop's, passed
// through (PhaseLoop.outputs), and its scan output is the carried value
// again. Three steps from v = x: 3x, 7x, 15x; none: x and no rows.
// CHECK: module 'module': version 1.11,
// CHECK: function 'step' (i64, i1, 2xf32, 2xf32) -> (2xf32)
// CHECK-NEXT:  phase of 'repeat'
// CHECK: function 'repeat' (i64, 2xf32) -> (2xf32, ?x2xf32)
// CHECK-NEXT:  phase 0: 'repeat_phase0' ()
// CHECK-NEXT:  phase 1: loop of 'step' carrying 1 (input 0, phase 0 output 0, input 1, input 1)
// CHECK-NEXT:  output 0 = phase 1 output 0
// CHECK-NEXT:  output 1 = phase 1 output 1
// RAN: 2xf32=15 -30
// RAN-NEXT: 3x2xf32={{\[}}3 -6][7 -14][15 -30]
// NONE: 2xf32=1 -2
// NONE-NEXT: 0x2xf32={{$}}
func.func @repeat(%n: tensor<i64>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %true = arith.constant dense<true> : tensor<i1>
  %last:2 = func.call @repeat_run(%n, %true, %x, %x) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  return %last#0, %last#1 : tensor<2xf32>, tensor<?x2xf32>
}
func.func @step(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> attributes {kiln.phase_of = "repeat"} {
  %e = tensor.empty() : tensor<2xf32>
  %d = linalg.add ins(%v, %v : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %w = linalg.add ins(%d, %x : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  return %w : tensor<2xf32>
}
func.func private @repeat_run(tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) attributes {kiln.loop_body = @step, kiln.loop_carried = 1 : i64, kiln.loop_outputs = array<i64: -2, 0, 0>}
