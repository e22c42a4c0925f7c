// RUN: kiln-opt --split-input-file --kiln-fuse-elementwise %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-fuse-elementwise='max-body-ops=4' %s | FileCheck %s --check-prefix=BOUND

// Three adds in a chain fuse into one generic when the bound allows it; with
// a bound of 4 body operations the first two fuse (2 + 2 ops) and the third
// stays apart (3 + 2 would pass it).

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         arith.addf
// CHECK:         arith.addf
// CHECK:         arith.addf
// BOUND-LABEL: func.func @chain(
// BOUND-COUNT-2: linalg.generic
// BOUND-NOT:     linalg.generic
func.func @chain(%x: tensor<8xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>,
                 %c: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%x, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%0, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%1, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// A contraction's operands take only producers that move or cast their
// element: the normalization (x - mean) * scale stays its own generic,
// while B's transpose fuses into the matmul, which then reads the weight
// itself through (m, n, k) -> (n, k). The bias add stays apart too
// (upstream fuses only all-parallel producers; dispatch formation gives it
// the matmul's dispatch).

#mk = affine_map<(m, k) -> (m, k)>
#row = affine_map<(m, k) -> (m)>
#kn_t = affine_map<(k, n) -> (n, k)>
#kn = affine_map<(k, n) -> (k, n)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// BOUND-LABEL: func.func @normalized_matmul(
// CHECK-LABEL: func.func @normalized_matmul(
// CHECK:         %[[NORM:.+]] = linalg.generic
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[NORM]], %arg2 :
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @normalized_matmul(%x: tensor<16x32xf32>, %mean: tensor<16xf32>,
                             %w: tensor<64x32xf32>, %bias: tensor<64xf32>)
    -> tensor<16x64xf32> {
  %cst = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %norm = linalg.generic {indexing_maps = [#mk, #row, #mk],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<16x32xf32>, tensor<16xf32>)
      outs(%e : tensor<16x32xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %s = arith.mulf %d, %cst : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %et = tensor.empty() : tensor<32x64xf32>
  %wt = linalg.generic {indexing_maps = [#kn_t, #kn],
                        iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x32xf32>) outs(%et : tensor<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<32x64xf32>
  %eo = tensor.empty() : tensor<16x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%norm, %wt : tensor<16x32xf32>, tensor<32x64xf32>)
      outs(%acc : tensor<16x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %out = linalg.generic {indexing_maps = [#mn, #col, #mn],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<16x64xf32>, tensor<64xf32>)
      outs(%eo : tensor<16x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %out : tensor<16x64xf32>
}

// -----

// Softmax after its max: exp(x - max) feeds the sum and the division. The
// sum gets a copy of its own, fused into its body; the original then has
// one use left and fuses into the division, so no generic stores the
// exponentials.

#xy = affine_map<(i, j) -> (i, j)>
#x = affine_map<(i, j) -> (i)>
// BOUND-LABEL: func.func @softmax_tail(
// CHECK-LABEL: func.func @softmax_tail(
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}}, %[[SUM]] :
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @softmax_tail(%x: tensor<4x32xf32>, %max: tensor<4xf32>)
    -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %exp = linalg.generic {indexing_maps = [#xy, #x, #xy],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x32xf32>, tensor<4xf32>)
      outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %er = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#xy, #x],
                         iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x32xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %out = linalg.generic {indexing_maps = [#xy, #x, #xy],
                         iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x32xf32>, tensor<4xf32>)
      outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x32xf32>
  return %out : tensor<4x32xf32>
}

// -----

// An f16 matmul accumulates in f32 and is rounded to f16 after. The
// rounding stays a generic of its own (dispatch formation makes it the
// matmul's epilogue) rather than fusing into the residual add, which would
// then read the f32 result: twice the bytes stored and loaded.

#a2 = affine_map<(m, n, k) -> (m, k)>
#b2 = affine_map<(m, n, k) -> (k, n)>
#c2 = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(m, n) -> (m, n)>
// BOUND-LABEL: func.func @rounded_matmul(
// CHECK-LABEL: func.func @rounded_matmul(
// CHECK:         %[[MM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[ROUNDED:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[MM]] : tensor<16x64xf32>)
// CHECK:           arith.truncf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[ROUNDED]], %{{.+}} : tensor<16x64xf16>, tensor<16x64xf16>)
// CHECK:           arith.addf
func.func @rounded_matmul(%a: tensor<16x32xf16>, %b: tensor<32x64xf16>,
                          %r: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<16x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e32 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.generic {indexing_maps = [#a2, #b2, #c2],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x32xf16>, tensor<32x64xf16>)
      outs(%acc : tensor<16x64xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %e16 = tensor.empty() : tensor<16x64xf16>
  %t = linalg.generic {indexing_maps = [#id2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x64xf32>) outs(%e16 : tensor<16x64xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<16x64xf16>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%t, %r : tensor<16x64xf16>, tensor<16x64xf16>)
      outs(%e16 : tensor<16x64xf16>) {
  ^bb0(%v: f16, %w: f16, %o: f16):
    %s = arith.addf %v, %w : f16
    linalg.yield %s : f16
  } -> tensor<16x64xf16>
  return %sum : tensor<16x64xf16>
}

// -----

// Attention's Kᵀ: a named transpose read only by the scores' contraction
// folds into the contraction's map, which reads K as it is (k innermost).

// CHECK-DAG:   #[[$KT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @scores_read_k(
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[$KT]], #{{.+}}]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<6x19x64xf16>, tensor<6x19x64xf16>)
// BOUND-LABEL: func.func @scores_read_k(
func.func @scores_read_k(%q: tensor<6x19x64xf16>, %k: tensor<6x19x64xf16>) -> tensor<6x19x19xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<6x64x19xf16>
  %kt = linalg.transpose ins(%k : tensor<6x19x64xf16>) outs(%et : tensor<6x64x19xf16>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<6x19x19xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x19x19xf32>) -> tensor<6x19x19xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<6x19x64xf16>, tensor<6x64x19xf16>) outs(%f : tensor<6x19x19xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<6x19x19xf32>
  return %s : tensor<6x19x19xf32>
}

// -----

// The same read by a named batch_matmul (tosa.matmul's lowering): both
// become generics and the transpose folds into the contraction's map.

// CHECK-DAG:   #[[$KT2:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @named_scores_read_k(
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[$KT2]], #{{.+}}]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<6x19x64xf16>, tensor<6x19x64xf16>)
// BOUND-LABEL: func.func @named_scores_read_k(
func.func @named_scores_read_k(%q: tensor<6x19x64xf16>, %k: tensor<6x19x64xf16>) -> tensor<6x19x19xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<6x64x19xf16>
  %kt = linalg.transpose ins(%k : tensor<6x19x64xf16>) outs(%et : tensor<6x64x19xf16>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<6x19x19xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x19x19xf32>) -> tensor<6x19x19xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<6x19x64xf16>, tensor<6x64x19xf16>) outs(%f : tensor<6x19x19xf32>) -> tensor<6x19x19xf32>
  return %s : tensor<6x19x19xf32>
}

// -----

// A transpose with another reader stays: it is stored once for both.

// CHECK-LABEL: func.func @shared_transpose(
// CHECK:         linalg.transpose
// BOUND-LABEL: func.func @shared_transpose(
func.func @shared_transpose(%q: tensor<6x19x64xf16>, %k: tensor<6x19x64xf16>) -> (tensor<6x19x19xf32>, tensor<6x64x19xf16>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<6x64x19xf16>
  %kt = linalg.transpose ins(%k : tensor<6x19x64xf16>) outs(%et : tensor<6x64x19xf16>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<6x19x19xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x19x19xf32>) -> tensor<6x19x19xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<6x19x64xf16>, tensor<6x64x19xf16>) outs(%f : tensor<6x19x19xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<6x19x19xf32>
  return %s, %kt : tensor<6x19x19xf32>, tensor<6x64x19xf16>
}
