// Functions over dynamic dimensions (issue 19, item 1): one module runs
// each at several shapes (cases.py's dynamicCase), 1 and primes among them.
// The CPU compiles them; GPU targets refuse them so far.

#id1 = affine_map<(i) -> (i)>
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>

// Two inputs whose lengths must be equal.
func.func @add_1d(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A row vector broadcast over the rows: its length is the matrix's columns.
func.func @bias_relu_2d(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    %t = arith.maximumf %s, %zero : f32
    %u = arith.mulf %t, %v : f32
    linalg.yield %u : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Elementwise on a dynamic and a static dimension, with a constant operand.
func.func @scale_columns(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %k = arith.constant dense<[0.5, -1.0, 2.0, 3.0]> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%m) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %k : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.mulf %v, %w : f32
    %t = arith.subf %s, %v : f32
    linalg.yield %t : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// A reduction along the dynamic innermost dimension.
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A reduction along the dynamic outer dimension.
func.func @column_max(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %lowest = arith.constant -3.0e38 : f32
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.maximumf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A matmul whose three dimensions are all dynamic.
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Softmax along the dynamic innermost dimension.
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A dense layer over a dynamic batch: constant weights and bias, the
// batch's rows ? (a model exported with a dynamic batch axis).
func.func @dense_batch(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  %w = arith.constant dense<[[0.5, -0.25, 1.0, 0.0, 0.75, -1.0, 0.125, 2.0], [-0.5, 0.25, -1.0, 1.5, 0.0, 1.0, -0.125, 0.5], [1.0, 1.0, -1.0, -1.0, 0.5, 0.5, -0.5, -0.5], [0.0, 0.5, 0.0, -0.5, 0.25, 0.0, -0.25, 0.0], [0.75, -0.75, 0.25, -0.25, 1.25, -1.25, 0.5, -0.5], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], [-0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1], [1.5, 0.0, -1.5, 0.0, 1.5, 0.0, -1.5, 0.0], [0.0, 1.5, 0.0, -1.5, 0.0, 1.5, 0.0, -1.5], [0.3, -0.3, 0.3, -0.3, 0.3, -0.3, 0.3, -0.3], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2], [-0.2, 0.4, -0.6, 0.8, -1.0, 1.2, -1.4, 1.6], [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75], [1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125, 0.5, -1.0], [-1.0, 0.5, -0.25, 0.125, -0.0625, 0.03125, -0.5, 1.0], [0.6, 0.6, -0.6, -0.6, 0.6, 0.6, -0.6, -0.6]]> : tensor<16x8xf32>
  %bias = arith.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e2 = tensor.empty(%m) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %bias : tensor<?x8xf32>, tensor<8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// Rows divided by their sums plus a bias: two dispatches, the sums in an
// arena slice sized per call.
func.func @normalize_rows(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %er = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %b : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %s: f32, %w: f32, %o: f32):
    %d = arith.divf %v, %s : f32
    %a = arith.addf %d, %w : f32
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A convolution over a dynamic batch (a CNN's batch, as the ONNX importer
// writes it): the pad keeps the batch, the accumulator is sized by it, max
// pooling keeps it, and the result leaves through a flattening collapse on
// the host, a view of the output buffer.
func.func @conv_pool_batch(%x: tensor<?x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x9x9xf32> to tensor<?x3x10x10xf32>
  %n = tensor.dim %p, %c0 : tensor<?x3x10x10xf32>
  %e = tensor.empty(%n) : tensor<?x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x4x4x4xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%conv, %window : tensor<?x4x8x8xf32>, tensor<2x2xf32>) outs(%f2 : tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32>
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<?x4x4x4xf32> into tensor<?x64xf32>
  return %flat : tensor<?x64xf32>
}

// Every other column of x beside y's columns, rows dynamic: a strided
// slice and a concat whose operands must have as many rows (checked per
// call), then a softmax along the row.
func.func @slice_concat_softmax(%x: tensor<?x6xf32>, %y: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %s = tensor.extract_slice %x[0, 1] [%n, 3] [1, 2] : tensor<?x6xf32> to tensor<?x3xf32>
  %c = tensor.concat dim(1) %s, %y : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
  %e = tensor.empty(%n) : tensor<?x5xf32>
  %r = linalg.softmax dimension(1) ins(%c : tensor<?x5xf32>) outs(%e : tensor<?x5xf32>) -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

// A key/value cache grown by the new positions (a decoder's step, issue
// 19): a concat along the dynamic dimension, its operands' starts computed
// per call, a static operand between two dynamic ones, then scaled so the
// result is a computed value, not a copy.
func.func @grow_cache(%past: tensor<2x?x8xf32>, %sep: tensor<2x1x8xf32>, %new: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %c = tensor.concat dim(1) %past, %sep, %new : (tensor<2x?x8xf32>, tensor<2x1x8xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
  %n = tensor.dim %c, %c1 : tensor<2x?x8xf32>
  %e = tensor.empty(%n) : tensor<2x?x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<2x?x8xf32>) outs(%e : tensor<2x?x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}

// Reductions whose outputs are static and whose reduced extent is dynamic
// (a decoder step's softmax over its cache): the GPU's reduction kernel
// reads the extent per call. Along rows, along columns, and a softmax.
func.func @row_sum_static_rows(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x?xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @column_max_static_columns(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<?x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @softmax_static_rows(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<3x?xf32>
  %e = tensor.empty(%n) : tensor<3x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<3x?xf32>) outs(%e : tensor<3x?xf32>) -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// A contraction whose outputs are static and whose reduced extent is
// dynamic (a decoder step's attention weights times the cached values):
// the reduction kernel splits the dynamic loop on GPUs.
func.func @matmul_dynamic_k(%p: tensor<4x?xf32>, %v: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%p, %v : tensor<4x?xf32>, tensor<?x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// GEMMs over dynamic rows (issue 19: a batch, a prompt's tokens): the
// pipelined GEMM kernels read M per call, their grid and row bounds from
// it. A dense layer with a bias and relu, and a channels-last convolution
// over a dynamic batch with a bias (an implicit GEMM over N x OH x OW
// rows).
func.func @dense_rows_wide(%x: tensor<?x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x96xf32>) outs(%f : tensor<?x96xf32>) -> tensor<?x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<?x96xf32>, tensor<96xf32>) outs(%e : tensor<?x96xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

func.func @conv_batch_wide(%x: tensor<?x8x8x16xf32>, %w: tensor<3x3x16x32xf32>, %b: tensor<32xf32>) -> tensor<?x6x6x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8x8x16xf32>
  %e = tensor.empty(%n) : tensor<?x6x6x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6x6x32xf32>) -> tensor<?x6x6x32xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x8x8x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<?x6x6x32xf32>) -> tensor<?x6x6x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %b : tensor<?x6x6x32xf32>, tensor<32xf32>) outs(%e : tensor<?x6x6x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x6x6x32xf32>
  return %r : tensor<?x6x6x32xf32>
}

// A 3x3 convolution over a dynamic batch with its zero padding and a
// relu (a ResNet block's): on GPUs the pad joins the convolution's
// dispatch, and each call runs the kernel compiled for its batch's bucket
// (at most 1, 4 or 16 images, or the dispatch's own).
func.func @conv_pad_batch(%x: tensor<?x8x8x16xf32>, %w: tensor<3x3x16x64xf32>) -> tensor<?x8x8x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x8x8x16xf32> to tensor<?x10x10x16xf32>
  %n = tensor.dim %p, %c0 : tensor<?x10x10x16xf32>
  %e = tensor.empty(%n) : tensor<?x8x8x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x64xf32>) -> tensor<?x8x8x64xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x10x10x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<?x8x8x64xf32>) -> tensor<?x8x8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<?x8x8x64xf32>) outs(%e : tensor<?x8x8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x8x8x64xf32>
  return %r : tensor<?x8x8x64xf32>
}

// A depthwise 3x3 convolution over a dynamic batch with its zero padding
// and a clamp (MobileNetV2's): on GPUs the window kernel over the batch,
// the pad read in place.
func.func @depthwise_pad_batch(%x: tensor<?x9x9x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<?x9x9x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x9x9x32xf32> to tensor<?x11x11x32xf32>
  %n = tensor.dim %x, %c0 : tensor<?x9x9x32xf32>
  %e = tensor.empty(%n) : tensor<?x9x9x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x9x9x32xf32>) -> tensor<?x9x9x32xf32>
  %conv = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x11x11x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<?x9x9x32xf32>) -> tensor<?x9x9x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<?x9x9x32xf32>) outs(%e : tensor<?x9x9x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lo = arith.maximumf %a, %zero : f32
    %y = arith.minimumf %lo, %six : f32
    linalg.yield %y : f32
  } -> tensor<?x9x9x32xf32>
  return %r : tensor<?x9x9x32xf32>
}

// A slice at offsets computed from the call's extents (a decoder's causal
// bias rows past .. past + new, columns 0 .. total, as Hugging Face's GPT-2
// slices its buffer): a gather reading at the index plus the offset on
// GPUs.
func.func @bias_rows(%bias: tensor<64x64xf32>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %new = tensor.dim %x, %c0 : tensor<?x?xf32>
  %total = tensor.dim %x, %c1 : tensor<?x?xf32>
  %past = arith.subi %total, %new : index
  %rows = tensor.extract_slice %bias[%past, 0] [%new, %total] [1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
  %e = tensor.empty(%new, %total) : tensor<?x?xf32>
  %r = linalg.add ins(%rows, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Issue 19 item 4: the host reads a value the function computes (how many
// elements are positive), so the function runs as two phases
// (kiln-split-phases): the first counts the positive elements and gives
// each its place among them, the second, sized by the count it reads,
// places them. The count is returned too, from the first phase.
func.func @compress_positive(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<i64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %z64 = arith.constant 0 : i64
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ce = tensor.empty() : tensor<i64>
  %cz = linalg.fill ins(%z64 : i64) outs(%ce : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {indexing_maps = [#id1, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%cz : tensor<i64>) {
  ^bb0(%v: f32, %acc: i64):
    %p = arith.cmpf ogt, %v, %zero : f32
    %one = arith.extui %p : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %pe = tensor.empty(%n) : tensor<?xi64>
  %pz = linalg.fill ins(%z64 : i64) outs(%pe : tensor<?xi64>) -> tensor<?xi64>
  %prefix = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?xf32>) outs(%pz : tensor<?xi64>) {
  ^bb0(%v: f32, %acc: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %before = arith.cmpi ult, %j, %i : index
    %p = arith.cmpf ogt, %v, %zero : f32
    %both = arith.andi %before, %p : i1
    %one = arith.extui %both : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  %read = tensor.extract %count[] : tensor<i64>
  %m = arith.index_cast %read : i64 to index
  %oe = tensor.empty(%m) : tensor<?xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<?xf32>) -> tensor<?xf32>
  %picked = linalg.generic {indexing_maps = [affine_map<(k, j) -> (j)>, affine_map<(k, j) -> (j)>, affine_map<(k, j) -> (k)>], iterator_types = ["parallel", "reduction"]} ins(%x, %prefix : tensor<?xf32>, tensor<?xi64>) outs(%oz : tensor<?xf32>) {
  ^bb0(%v: f32, %at: i64, %acc: f32):
    %k = linalg.index 0 : index
    %k64 = arith.index_cast %k : index to i64
    %p = arith.cmpf ogt, %v, %zero : f32
    %here = arith.cmpi eq, %at, %k64 : i64
    %both = arith.andi %p, %here : i1
    %r = arith.select %both, %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %picked, %count : tensor<?xf32>, tensor<i64>
}

// A tosa.while_loop whose condition reads what the loop computes (the sum
// of |acc| below a limit given per call): the runtime repeats its body, a
// loop phase (kiln-tosa-outline-control-flow). acc = 2 acc + x per step;
// the steps taken are returned too.
func.func @while_doubling(%x: tensor<8xf32>, %limit: tensor<1xf32>) -> (tensor<8xf32>, tensor<i32>) {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>) {
    %a = tosa.abs %acc : (tensor<8xf32>) -> tensor<8xf32>
    %s = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<8xf32>) -> tensor<1xf32>
    %c = tosa.greater %limit, %s : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
    %c0 = tensor.collapse_shape %c [] : tensor<1xi1> into tensor<i1>
    tosa.yield %c0 : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<8xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %d = tosa.add %acc, %acc : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %s = tosa.add %d, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<8xf32>
  }
  return %0#1, %0#0 : tensor<8xf32>, tensor<i32>
}
