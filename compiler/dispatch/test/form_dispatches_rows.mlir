// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-rows" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-form-dispatches %s | FileCheck %s --check-prefix=DEFAULT

// With fuse-rows, a LayerNorm as the ONNX importer writes it (f16 in, f32
// math, the reductions over a unit-expanded view) is one dispatch: the
// widening, both sums, the centering and the normalization. Without it
// every reduction and every op reading one is a dispatch of its own.

// CHECK-LABEL: func.func @layernorm(
// CHECK:         call @layernorm_dispatch_0(%arg0, %arg1)
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @layernorm_dispatch_0(
// CHECK-COUNT-2: tensor.expand_shape
// CHECK-NOT:     func.func
// CHECK:         arith.truncf
// DEFAULT-LABEL: func.func @layernorm(
// DEFAULT-COUNT-5: call @layernorm_dispatch_
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @layernorm(%x: tensor<1x197x384xf16>, %g: tensor<384xf16>) -> tensor<1x197x384xf16> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 384.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e32 = tensor.empty() : tensor<1x197x384xf32>
  %xf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x197x384xf16>) outs(%e32 : tensor<1x197x384xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  } -> tensor<1x197x384xf32>
  %er = tensor.empty() : tensor<1x197x1xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<1x197x1xf32>) -> tensor<1x197x1xf32>
  %xv = tensor.expand_shape %xf [[0], [1, 2], [3]] output_shape [1, 197, 1, 384] : tensor<1x197x384xf32> into tensor<1x197x1x384xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%xv : tensor<1x197x1x384xf32>) outs(%fr : tensor<1x197x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x197x1xf32>
  %d = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xf, %sum : tensor<1x197x384xf32>, tensor<1x197x1xf32>) outs(%e32 : tensor<1x197x384xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x197x384xf32>
  %dv = tensor.expand_shape %d [[0], [1, 2], [3]] output_shape [1, 197, 1, 384] : tensor<1x197x384xf32> into tensor<1x197x1x384xf32>
  %sq = linalg.generic {indexing_maps = [#id4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%dv : tensor<1x197x1x384xf32>) outs(%fr : tensor<1x197x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1x197x1xf32>
  %e16 = tensor.empty() : tensor<1x197x384xf16>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d, %sq, %g : tensor<1x197x384xf32>, tensor<1x197x1xf32>, tensor<384xf16>) outs(%e16 : tensor<1x197x384xf16>) {
  ^bb0(%in: f32, %v: f32, %w: f16, %out: f16):
    %0 = arith.divf %v, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    %4 = arith.extf %w : f16 to f32
    %5 = arith.mulf %3, %4 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<1x197x384xf16>
  return %y : tensor<1x197x384xf16>
}

// -----

// The row sum is also a result: it must be stored, so it is a dispatch of
// its own and the program (the division) reads it back.

// CHECK-LABEL: func.func @normalize_and_sum(
// CHECK:         %[[S:.*]] = call @normalize_and_sum_dispatch_0(%arg0)
// CHECK:         %[[Y:.*]] = call @normalize_and_sum_dispatch_1(%arg0, %[[S]])
// CHECK:         return %[[Y]], %[[S]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @normalize_and_sum(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x100xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<8x100xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x100xf32>, tensor<8xf32>) outs(%e : tensor<8x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  } -> tensor<8x100xf32>
  return %y, %sum : tensor<8x100xf32>, tensor<8xf32>
}

// -----

// Attention scores rounded to f16 are the matmul's consumer: the rounding
// stays in the matmul's dispatch and the softmax (max, sum of exp, divide)
// reads it as one dispatch.

// CHECK-LABEL: func.func @scores_softmax(
// CHECK:         %[[P:.*]] = call @scores_softmax_dispatch_0(%arg0, %arg1)
// CHECK:         call @scores_softmax_dispatch_1(%[[P]])
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @scores_softmax_dispatch_0(
// CHECK:         linalg.matmul
// CHECK:         arith.truncf
// CHECK-LABEL: func.func private @scores_softmax_dispatch_1(
// CHECK:         arith.maxnumf
// CHECK:         math.exp
// CHECK:         arith.divf
#sid = affine_map<(d0, d1) -> (d0, d1)>
#srow = affine_map<(d0, d1) -> (d0)>
func.func @scores_softmax(%q: tensor<64x32xf16>, %k: tensor<32x64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %e32 = tensor.empty() : tensor<64x64xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %k : tensor<64x32xf16>, tensor<32x64xf16>) outs(%f32 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e16 = tensor.empty() : tensor<64x64xf16>
  %h = linalg.generic {indexing_maps = [#sid, #sid], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<64x64xf32>) outs(%e16 : tensor<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<64x64xf16>
  %er = tensor.empty() : tensor<64xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<64xf16>) -> tensor<64xf16>
  %m = linalg.generic {indexing_maps = [#sid, #srow], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<64x64xf16>) outs(%fm : tensor<64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.maxnumf %in, %out : f16
    linalg.yield %0 : f16
  } -> tensor<64xf16>
  %fs = linalg.fill ins(%zh : f16) outs(%er : tensor<64xf16>) -> tensor<64xf16>
  %sum = linalg.generic {indexing_maps = [#sid, #srow, #srow], iterator_types = ["parallel", "reduction"]} ins(%h, %m : tensor<64x64xf16>, tensor<64xf16>) outs(%fs : tensor<64xf16>) {
  ^bb0(%in: f16, %mx: f16, %out: f16):
    %0 = arith.subf %in, %mx : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %out : f16
    linalg.yield %2 : f16
  } -> tensor<64xf16>
  %y = linalg.generic {indexing_maps = [#sid, #srow, #srow, #sid], iterator_types = ["parallel", "parallel"]} ins(%h, %m, %sum : tensor<64x64xf16>, tensor<64xf16>, tensor<64xf16>) outs(%e16 : tensor<64x64xf16>) {
  ^bb0(%in: f16, %mx: f16, %sm: f16, %out: f16):
    %0 = arith.subf %in, %mx : f16
    %1 = math.exp %0 : f16
    %2 = arith.divf %1, %sm : f16
    linalg.yield %2 : f16
  } -> tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// -----

// A sum over the outer axis is read along the sink's innermost loop: not a
// row program, so nothing changes.

// CHECK-LABEL: func.func @column_normalize(
// CHECK:         %[[S:.*]] = call @column_normalize_dispatch_0(%arg0)
// CHECK:         call @column_normalize_dispatch_1(%arg0, %[[S]])
#cid = affine_map<(d0, d1) -> (d0, d1)>
#ccol = affine_map<(d0, d1) -> (d1)>
func.func @column_normalize(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<100xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<100xf32>) -> tensor<100xf32>
  %sum = linalg.generic {indexing_maps = [#cid, #ccol], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<8x100xf32>) outs(%fr : tensor<100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<100xf32>
  %e = tensor.empty() : tensor<8x100xf32>
  %y = linalg.generic {indexing_maps = [#cid, #ccol, #cid], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x100xf32>, tensor<100xf32>) outs(%e : tensor<8x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  } -> tensor<8x100xf32>
  return %y : tensor<8x100xf32>
}

// -----

// A LayerNorm read twice, in f32 and rounded to f16 (--precision=f16 before
// a matmul): the rounding joins the row program's dispatch as a second
// result.

// CHECK-LABEL: func.func @layernorm_and_rounded(
// CHECK:         %[[R:.+]]:2 = call @layernorm_and_rounded_dispatch_0(
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
// DEFAULT-LABEL: func.func @layernorm_and_rounded(
// DEFAULT-COUNT-5: call @layernorm_and_rounded_dispatch_
#ln2map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ln2map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#ln2map2 = affine_map<(d0, d1) -> (d0, d1)>
#ln2map3 = affine_map<(d0, d1) -> (d0, 0)>
  func.func @layernorm_and_rounded(%arg0: tensor<8x200xf32>) -> (tensor<8x200xf32>, tensor<8x200xf16>) {
    %cst = arith.constant 9.99999974E-6 : f32
    %cst_0 = arith.constant 5.000000e-03 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8xf32>
    %expanded = tensor.expand_shape %0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %1 = linalg.fill ins(%cst_1 : f32) outs(%expanded : tensor<8x1xf32>) -> tensor<8x1xf32>
    %expanded_2 = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [8, 1, 200] : tensor<8x200xf32> into tensor<8x1x200xf32>
    %2 = linalg.generic {indexing_maps = [#ln2map, #ln2map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%expanded_2 : tensor<8x1x200xf32>) outs(%1 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.addf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<8x1xf32>
    %3 = tensor.empty() : tensor<8x200xf32>
    %4 = linalg.generic {indexing_maps = [#ln2map2, #ln2map3, #ln2map2], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2 : tensor<8x200xf32>, tensor<8x1xf32>) outs(%3 : tensor<8x200xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %9 = arith.mulf %in_4, %cst_0 : f32
      %10 = arith.subf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<8x200xf32>
    %expanded_3 = tensor.expand_shape %4 [[0, 1], [2]] output_shape [8, 1, 200] : tensor<8x200xf32> into tensor<8x1x200xf32>
    %5 = linalg.generic {indexing_maps = [#ln2map, #ln2map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%expanded_3 : tensor<8x1x200xf32>) outs(%1 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.mulf %in, %in : f32
      %10 = arith.addf %9, %out : f32
      linalg.yield %10 : f32
    } -> tensor<8x1xf32>
    %6 = linalg.generic {indexing_maps = [#ln2map2, #ln2map3, #ln2map2], iterator_types = ["parallel", "parallel"]} ins(%4, %5 : tensor<8x200xf32>, tensor<8x1xf32>) outs(%3 : tensor<8x200xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %9 = arith.mulf %in_4, %cst_0 : f32
      %10 = arith.addf %9, %cst : f32
      %11 = math.rsqrt %10 : f32
      %12 = arith.mulf %in, %11 : f32
      linalg.yield %12 : f32
    } -> tensor<8x200xf32>
    %7 = tensor.empty() : tensor<8x200xf16>
    %8 = linalg.generic {indexing_maps = [#ln2map2, #ln2map2], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x200xf32>) outs(%7 : tensor<8x200xf16>) {
    ^bb0(%in: f32, %out: f16):
      %9 = arith.truncf %in : f32 to f16
      linalg.yield %9 : f16
    } -> tensor<8x200xf16>
    return %6, %8 : tensor<8x200xf32>, tensor<8x200xf16>
  }

// -----

// A split-K GEMM's partial sums (4 of them) added to the residual stream,
// then normalized, as a pre-LN transformer's MLP ends and its next block
// starts: the sum is an inline reduction of the row program (each element
// adds its 4 partials to its bias) and the residual add, which the next
// block reads again, is stored beside the LayerNorm. One dispatch, two
// results.

// CHECK-LABEL: func.func @split_sum_layernorm(
// CHECK:         %[[R:.+]]:2 = call @split_sum_layernorm_dispatch_0(
// CHECK-NOT:     call
// CHECK:         return %[[R]]#{{[01]}}, %[[R]]#{{[01]}}
// DEFAULT-LABEL: func.func @split_sum_layernorm(
// DEFAULT-COUNT-5: call @split_sum_layernorm_dispatch_
#p3 = affine_map<(s, i, j) -> (s, i, j)>
#o3 = affine_map<(s, i, j) -> (i, j)>
#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#row2 = affine_map<(i, j) -> (i)>
#red2 = affine_map<(i, j) -> (i)>
func.func @split_sum_layernorm(%p: tensor<4x8x64xf32>, %r: tensor<8x64xf32>, %bias: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %init = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<8x64xf32>
  %sum = linalg.generic {indexing_maps = [#p3, #o3], iterator_types = ["reduction", "parallel", "parallel"]} ins(%p : tensor<4x8x64xf32>) outs(%init : tensor<8x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %r : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x64xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%d, %sq : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.divf %v, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x64xf32>
  return %y, %x : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// The residual stream read again before the LayerNorm ends (where the
// dispatch's call would go) is not stored beside it: it is a dispatch of
// its own, as the LayerNorm is.

// CHECK-LABEL: func.func @stream_read_before_sink(
// CHECK-COUNT-3: call @stream_read_before_sink_dispatch_
// CHECK-NOT:     call
#id2b = affine_map<(i, j) -> (i, j)>
#red2b = affine_map<(i, j) -> (i)>
func.func @stream_read_before_sink(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %x = linalg.add ins(%a, %b : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id2b, #red2b], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maxnumf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %z = linalg.exp ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#id2b, affine_map<(i, j) -> (i)>, #id2b], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  return %y, %z : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// An embedding (a gather of table rows at clamped ids, plus positions) that
// a LayerNorm reads and a later op reads again: the gather joins the row
// program, its table read whole from outside, its result stored beside.

// CHECK-LABEL: func.func @embedding_layernorm(
// CHECK:         %[[R:.+]]:2 = call @embedding_layernorm_dispatch_0(
// CHECK:         call @embedding_layernorm_dispatch_1(%[[R]]#0)
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @embedding_layernorm_dispatch_0(
// CHECK:         tensor.extract
// DEFAULT-LABEL: func.func @embedding_layernorm(
// DEFAULT-COUNT-4: call @embedding_layernorm_dispatch_
#id2e = affine_map<(i, j) -> (i, j)>
#rowe = affine_map<(i, j) -> (i)>
func.func @embedding_layernorm(%ids: tensor<8xi32>, %table: tensor<50x64xf32>, %pos: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c49 = arith.constant 49 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %x = linalg.generic {indexing_maps = [#rowe, #id2e, #id2e], iterator_types = ["parallel", "parallel"]} ins(%ids, %pos : tensor<8xi32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%id: i32, %p: f32, %o: f32):
    %j = linalg.index 1 : index
    %k0 = arith.index_cast %id : i32 to index
    %k1 = arith.maxsi %k0, %c0 : index
    %k = arith.minsi %k1, %c49 : index
    %v = tensor.extract %table[%k, %j] : tensor<50x64xf32>
    %r = arith.addf %v, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#id2e, #rowe], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id2e, #rowe, #id2e], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x64xf32>
  %z = linalg.exp ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y, %z : tensor<8x64xf32>, tensor<8x64xf32>
}
