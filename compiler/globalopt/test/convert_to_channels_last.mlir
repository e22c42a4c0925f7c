// RUN: kiln-opt --split-input-file --kiln-convert-to-channels-last --canonicalize %s | FileCheck %s

// A chain: conv (bias accumulator), ReLU, pad, conv, global sum. The
// convolutions run NHWC/HWCF with their constant filters transposed at
// compile time, the bias is broadcast in the new layout, ReLU and the pad
// run channels-last, and the only transposes left are the input's and the
// one the final reduction reads through its map.

// CHECK-DAG: #[[TO_NHWC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[SUM_IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x6x6xf32>
// CHECK-DAG:   %[[W2:.+]] = arith.constant dense<5.000000e-01> : tensor<3x3x2x16xf32>
// CHECK-DAG:   %[[W1:.+]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 1.500000e+00], [2.000000e+00, 2.500000e+00]{{.*}}]]]]> : tensor<1x1x8x2xf32>
// CHECK:       %[[XT:.+]] = linalg.generic {indexing_maps = [#[[TO_NHWC]], #[[ID]]]
// CHECK-SAME:    ins(%[[X]] : tensor<1x8x6x6xf32>)
// CHECK:       %[[B:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]]]
// CHECK-SAME:    outs(%{{.+}} : tensor<1x6x6x2xf32>)
// CHECK:       %[[C1:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    ins(%[[XT]], %[[W1]] : tensor<1x6x6x8xf32>, tensor<1x1x8x2xf32>) outs(%[[B]] : tensor<1x6x6x2xf32>)
// CHECK:       %[[RELU:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]]
// CHECK-SAME:    ins(%[[C1]] : tensor<1x6x6x2xf32>)
// CHECK:         arith.maximumf
// CHECK:       %[[P:.+]] = tensor.pad %[[RELU]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:       %[[F:.+]] = linalg.fill {{.*}} -> tensor<1x6x6x16xf32>
// CHECK:       %[[C2:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    ins(%[[P]], %[[W2]] : tensor<1x8x8x2xf32>, tensor<3x3x2x16xf32>) outs(%[[F]] : tensor<1x6x6x16xf32>)
// CHECK:       %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[SUM_IN]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[C2]] : tensor<1x6x6x16xf32>)
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       return %[[SUM]]
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red_out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @chain(%x: tensor<1x8x6x6xf32>) -> tensor<1x16xf32> {
  %w1 = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]], [[[1.5]], [[2.5]], [[3.5]], [[4.5]], [[5.5]], [[6.5]], [[7.5]], [[8.5]]]]> : tensor<2x8x1x1xf32>
  %w2 = arith.constant dense<0.5> : tensor<16x2x3x3xf32>
  %b = arith.constant dense<[0.25, -0.25]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<2xf32>) outs(%e : tensor<1x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x8x6x6xf32>, tensor<2x8x1x1xf32>) outs(%init : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x6x6xf32>) outs(%e : tensor<1x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x6x6xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %e2 = tensor.empty() : tensor<1x16x6x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x2x8x8xf32>, tensor<16x2x3x3xf32>) outs(%f2 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %e3 = tensor.empty() : tensor<1x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %sum = linalg.generic {indexing_maps = [#red_in, #red_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%c2 : tensor<1x16x6x6xf32>) outs(%f3 : tensor<1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<1x16xf32>
  return %sum : tensor<1x16xf32>
}

// -----

// Weights as dense_resource blobs (the ONNX importer's form) are
// transposed at compile time too; a depthwise convolution and a max
// pooling between the convolutions go channels-last with them, and the
// result goes back to NCHW once, at the end.

// CHECK-LABEL: func.func @blobs(
// CHECK-DAG:   arith.constant dense_resource<dw_t> : tensor<3x3x4xf32>
// CHECK-DAG:   arith.constant dense_resource<pw_t> : tensor<1x1x4x4xf32>
// CHECK:       linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:       linalg.pooling_nhwc_max
// CHECK:       linalg.conv_2d_nhwc_hwcf
// CHECK:       %[[OUT:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}]
// CHECK-SAME:    ins(%{{.+}} : tensor<1x2x2x4xf32>) outs(%{{.+}} : tensor<1x4x2x2xf32>)
// CHECK-NOT:   nchw
// CHECK:       return %[[OUT]]
func.func @blobs(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x2x2xf32> {
  %dw = arith.constant dense_resource<dw> : tensor<4x3x3xf32>
  %pw = arith.constant dense_resource<pw> : tensor<4x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : tensor<1x4x6x6xf32>, tensor<4x3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %pe = tensor.empty() : tensor<1x4x2x2xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%d, %win : tensor<1x4x4x4xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%m, %pw : tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) outs(%cf : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %c : tensor<1x4x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      dw: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C42",
      pw: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041"
    }
  }
#-}

// -----

// One convolution alone, its filter an argument, keeps its layout: two
// transposes would cost more than its layout saves.

// CHECK-LABEL: func.func @single(
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-NOT:   linalg.generic
func.func @single(%x: tensor<1x8x6x6xf32>, %w: tensor<4x8x1x1xf32>, %acc: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x6x6xf32>, tensor<4x8x1x1xf32>) outs(%acc : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

// One convolution alone whose filter is a constant (a ViT's patch
// embedding): the filter changes layout at compile time, so the
// convolution runs channels-last between two transposes of its
// activations.

// CHECK-LABEL: func.func @single_constant(
// CHECK:       %[[W:.+]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 1.500000e+00, -1.000000e+00, 5.000000e-01], {{.*}}> : tensor<2x2x3x4xf32>
// CHECK:       %[[X:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x3x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x3xf32>)
// CHECK:       %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[W]] : tensor<1x8x8x3xf32>, tensor<2x2x3x4xf32>)
// CHECK:       %[[Y:.+]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x4xf32>)
// CHECK:       return %[[Y]]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @single_constant(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]], [[[1.5, 2.5], [3.5, 4.5]], [[5.5, 6.5], [7.5, 8.5]], [[9.5, 10.5], [11.5, 12.5]]], [[[-1.0, -2.0], [-3.0, -4.0]], [[-5.0, -6.0], [-7.0, -8.0]], [[-9.0, -10.0], [-11.0, -12.0]]], [[[0.5, 0.25], [0.125, 1.0]], [[2.0, 4.0], [8.0, 16.0]], [[0.0, 1.0], [0.0, 1.0]]]]> : tensor<4x3x2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) outs(%acc : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// A ViT's patch embedding: the channels-last convolution's result,
// flattened and transposed into tokens (x.flatten(2).transpose(1, 2)). The
// transpose of the collapse moves whole groups, so it becomes a collapse
// of a transpose, which cancels the layout edge's: the tokens are the
// convolution's channels-last result, collapsed, with no transpose left
// after the convolution.

// CHECK-LABEL: func.func @patch_tokens(
// CHECK:       %[[C:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK:       %[[T:.+]] = tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2], [3]] : tensor<1x4x4x4xf32> into tensor<1x16x4xf32>
// CHECK:       return %[[T]]
func.func @patch_tokens(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x4xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) outs(%acc : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %f = tensor.collapse_shape %c [[0], [1], [2, 3]] : tensor<1x4x4x4xf32> into tensor<1x4x16xf32>
  %te = tensor.empty() : tensor<1x16x4xf32>
  %t = linalg.transpose ins(%f : tensor<1x4x16xf32>) outs(%te : tensor<1x16x4xf32>) permutation = [0, 2, 1]
  return %t : tensor<1x16x4xf32>
}

// -----

// A dynamic batch (issue 19) stays the first dimension in both layouts:
// the chain goes channels-last as a static one does, each transposed or
// relaid tensor sized from its source's batch, and the two convolutions
// meet with no transpose between them (the ReLU and the pad computed
// channels-last, the pad keeping the batch).

// CHECK-LABEL: func.func @dynamic_batch(
// CHECK:         %[[F1:.+]] = linalg.fill {{.*}} -> tensor<?x6x6x2xf32>
// CHECK:         %[[C1:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[F1]] : tensor<?x6x6x2xf32>)
// CHECK:         %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<?x6x6x2xf32>)
// CHECK:         %[[PAD:.+]] = tensor.pad %[[RELU]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[F2:.+]] = linalg.fill {{.*}} -> tensor<?x6x6x4xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[PAD]], %{{.+}} : tensor<?x8x8x2xf32>, tensor<3x3x2x4xf32>) outs(%[[F2]] : tensor<?x6x6x4xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
#dyn_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dynamic_batch(%x: tensor<?x8x6x6xf32>) -> tensor<?x4x6x6xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.25> : tensor<2x8x1x1xf32>
  %w2 = arith.constant dense<0.5> : tensor<4x2x3x3xf32>
  %n = tensor.dim %x, %c0 : tensor<?x8x6x6xf32>
  %e = tensor.empty(%n) : tensor<?x2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2x6x6xf32>) -> tensor<?x2x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<?x8x6x6xf32>, tensor<2x8x1x1xf32>) outs(%f : tensor<?x2x6x6xf32>) -> tensor<?x2x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#dyn_id, #dyn_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<?x2x6x6xf32>) outs(%e : tensor<?x2x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x2x6x6xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x2x6x6xf32> to tensor<?x2x8x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x4x6x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<?x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%f2 : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  return %c2 : tensor<?x4x6x6xf32>
}

// -----

// A ShuffleNet block: two convolutions concatenated along the channels,
// the channels shuffled (reshape to [N, 2, C / 2, H, W], transpose the two
// channel dimensions, reshape back), the first half kept and the second
// half through a third convolution, then concatenated again. The layout
// edges sink through the concatenations (joined along the channels-last
// dimension), the reshapes (split and joined in the channels-last
// dimension) and the slices, so the whole block runs channels-last: the
// shuffle is one transpose of the two innermost dimensions, and the only
// transpose back to NCHW is the function's result.

// CHECK-LABEL: func.func @shuffle_block(
// CHECK:         %[[A:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[B:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[CAT:.+]] = tensor.concat dim(3) %[[A]], %[[B]] : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
// CHECK:         %[[SPLIT:.+]] = tensor.expand_shape %[[CAT]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 4, 2, 4]
// CHECK:         linalg.generic {indexing_maps = [#[[SWAP:.+]], #{{.+}}], {{.*}} ins(%[[SPLIT]] : tensor<1x4x4x2x4xf32>) outs(%{{.+}} : tensor<1x4x4x4x2xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[OUT:.+]] = tensor.concat dim(3)
// CHECK:         %[[NCHW:.+]] = linalg.generic {{.*}} ins(%[[OUT]] : tensor<1x4x4x8xf32>) outs(%{{.+}} : tensor<1x8x4x4xf32>)
// CHECK:         return %[[NCHW]]
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @shuffle_block(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %wa = arith.constant dense<0.25> : tensor<4x8x1x1xf32>
  %wb = arith.constant dense<0.5> : tensor<4x8x1x1xf32>
  %wc = arith.constant dense<0.75> : tensor<4x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x4x4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %wa : tensor<1x8x4x4xf32>, tensor<4x8x1x1xf32>) outs(%f0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%x, %wb : tensor<1x8x4x4xf32>, tensor<4x8x1x1xf32>) outs(%f0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = tensor.concat dim(1) %a, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e = tensor.expand_shape %c [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 4, 4] : tensor<1x8x4x4xf32> into tensor<1x2x4x4x4xf32>
  %te = tensor.empty() : tensor<1x4x2x4x4xf32>
  %t = linalg.transpose ins(%e : tensor<1x2x4x4x4xf32>) outs(%te : tensor<1x4x2x4x4xf32>) permutation = [0, 2, 1, 3, 4]
  %col = tensor.collapse_shape %t [[0], [1, 2], [3], [4]] : tensor<1x4x2x4x4xf32> into tensor<1x8x4x4xf32>
  %s1 = tensor.extract_slice %col[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x8x4x4xf32> to tensor<1x4x4x4xf32>
  %s2 = tensor.extract_slice %col[0, 4, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x8x4x4xf32> to tensor<1x4x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%s2, %wc : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%f0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %out = tensor.concat dim(1) %s1, %y : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %out : tensor<1x8x4x4xf32>
}

// -----

// A depthwise filter [C, 1, KH, KW] (a model's weights: a dense_resource
// blob, which canonicalization does not reshape) is collapsed to
// [C, KH, KW] before its layout changes: the transpose of that reshape of
// a constant is a constant too, so no dispatch transposes weights at run
// time.

// CHECK-LABEL: func.func @depthwise_filter(
// CHECK:         %[[W:.+]] = arith.constant dense_resource<depthwise_weights_t> : tensor<3x3x2xf32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.+}}, %[[W]] : tensor<1x6x6x2xf32>, tensor<3x3x2xf32>)
func.func @depthwise_filter(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %w4 = arith.constant dense_resource<depthwise_weights> : tensor<2x1x3x3xf32>
  %w = tensor.collapse_shape %w4 [[0, 1], [2], [3]] : tensor<2x1x3x3xf32> into tensor<2x3x3xf32>
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<1x2x6x6xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %p = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<1x2x6x6xf32>, tensor<2x2x1x1xf32>) outs(%f6 : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x6x6xf32>, tensor<2x3x3xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %d : tensor<1x2x4x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      depthwise_weights: "0x040000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041"
    }
  }
#-}

// -----

// A lone depthwise convolution whose filter is a reshape of a constant
// (the importer collapses [C, 1, KH, KW] and expands it to [C, KH, KW])
// counts as having a constant filter: it runs channels-last (on the GPU,
// the window kernel; left NCHW it took the generic tiled kernel).

// CHECK-LABEL: func.func @single_depthwise(
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc
// CHECK-NOT:     linalg.depthwise_conv_2d_nchw_chw
func.func @single_depthwise(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %w4 = arith.constant dense_resource<lone_depthwise_weights> : tensor<2x1x3x3xf32>
  %flat = tensor.collapse_shape %w4 [[0, 1, 2, 3]] : tensor<2x1x3x3xf32> into tensor<18xf32>
  %w = tensor.expand_shape %flat [[0, 1, 2]] output_shape [2, 3, 3] : tensor<18xf32> into tensor<2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x6x6xf32>, tensor<2x3x3xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %d : tensor<1x2x4x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      lone_depthwise_weights: "0x040000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041"
    }
  }
#-}

// -----

// Attention's transposes are not image layouts: a slice and a reshape of
// one ([0, 2, 1, 3], heads and tokens swapped) keep their places in a
// function that also has convolutions.

// CHECK-LABEL: func.func @heads_stay(
// CHECK:         %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<1x4x2x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// CHECK:         tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 2, 2, 8]
// CHECK:         tensor.collapse_shape %[[T]] {{\[\[}}0], [1], [2, 3]]
func.func @heads_stay(%q: tensor<1x4x16xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x2x32xf32>) {
  %h = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 4, 2, 8] : tensor<1x4x16xf32> into tensor<1x4x2x8xf32>
  %te = tensor.empty() : tensor<1x2x4x8xf32>
  %t = linalg.transpose ins(%h : tensor<1x4x2x8xf32>) outs(%te : tensor<1x2x4x8xf32>) permutation = [0, 2, 1, 3]
  %s = tensor.extract_slice %t[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : tensor<1x2x4x8xf32> to tensor<1x2x2x8xf32>
  %c = tensor.collapse_shape %t [[0], [1], [2, 3]] : tensor<1x2x4x8xf32> into tensor<1x2x32xf32>
  return %s, %c : tensor<1x2x2x8xf32>, tensor<1x2x32xf32>
}
