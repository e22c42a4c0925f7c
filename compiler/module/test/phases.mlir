// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="8xf32=[1 -1 2 -2 0 3 -3 0]" | FileCheck %s --check-prefix=RAN

// A function whose output's extent is a value it computes (how many
// elements are positive) runs as phases (module format 1.10): phase 0
// counts, phase 1 reads the count on the host as its input element and
// returns that many elements of x doubled. The count is returned too,
// from phase 0.
// CHECK: module 'module': version 1.10,
// CHECK: function 'positives_phase0' (8xf32) -> (i64)
// CHECK-NEXT:  phase of 'positives'
// CHECK: function 'positives_phase1' (8xf32, i64) -> (?xf32)
// CHECK-NEXT:  phase of 'positives'
// CHECK:         n{{[0-9]+}} = element+ input1.value[0]
// CHECK: function 'positives' (8xf32) -> (?xf32, i64)
// CHECK-NEXT:  phase 0: 'positives_phase0' (input 0)
// CHECK-NEXT:  phase 1: 'positives_phase1' (input 0, phase 0 output 0)
// CHECK-NEXT:  output 0 = phase 1 output 0
// CHECK-NEXT:  output 1 = phase 0 output 0

// RAN: 3xf32=2 -2 4
// RAN: i64=3
func.func @positives(%x: tensor<8xf32>) -> (tensor<?xf32>, tensor<i64>) {
  %zero = arith.constant 0.0 : f32
  %z64 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%z64 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf32>) outs(%z : tensor<i64>) {
  ^bb0(%v: f32, %acc: i64):
    %p = arith.cmpf ogt, %v, %zero : f32
    %one = arith.extui %p : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %read = tensor.extract %count[] : tensor<i64>
  %n = arith.index_cast %read : i64 to index
  %part = tensor.extract_slice %x[0] [%n] [1] : tensor<8xf32> to tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%part, %part : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  return %r, %count : tensor<?xf32>, tensor<i64>
}
