// Data movement: transpose, reshape, concat, slice, pad, tile.

func.func @tosa_transpose_201(%x: tensor<4x5x6xf32>) -> tensor<6x4x5xf32> {
  %0 = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<4x5x6xf32>) -> tensor<6x4x5xf32>
  return %0 : tensor<6x4x5xf32>
}

func.func @tosa_transpose_nhwc_to_nchw(%x: tensor<2x8x9x3xf32>) -> tensor<2x3x8x9xf32> {
  %0 = tosa.transpose %x {perms = array<i32: 0, 3, 1, 2>} : (tensor<2x8x9x3xf32>) -> tensor<2x3x8x9xf32>
  return %0 : tensor<2x3x8x9xf32>
}

func.func @tosa_transpose_i32(%x: tensor<37x61xi32>) -> tensor<61x37xi32> {
  %0 = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<37x61xi32>) -> tensor<61x37xi32>
  return %0 : tensor<61x37xi32>
}

func.func @linalg_transpose(%x: tensor<3x64x20xf32>) -> tensor<20x3x64xf32> {
  %e = tensor.empty() : tensor<20x3x64xf32>
  %0 = linalg.transpose ins(%x : tensor<3x64x20xf32>) outs(%e : tensor<20x3x64xf32>) permutation = [2, 0, 1]
  return %0 : tensor<20x3x64xf32>
}

// A reshape on its own: no arithmetic at all.
func.func @tosa_reshape_only(%x: tensor<4x6xf32>) -> tensor<3x8xf32> {
  %s = tosa.const_shape {values = dense<[3, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %s : (tensor<4x6xf32>, !tosa.shape<2>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// reshape between elementwise ops: 2x3x20 -> 6x20, add bias, -> 120.
func.func @tosa_reshape_chain(%x: tensor<2x3x20xf32>, %b: tensor<1x20xf32>) -> tensor<120xf32> {
  %s0 = tosa.const_shape {values = dense<[6, 20]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1 = tosa.const_shape {values = dense<120> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %x, %s0 : (tensor<2x3x20xf32>, !tosa.shape<2>) -> tensor<6x20xf32>
  %1 = tosa.add %0, %b : (tensor<6x20xf32>, tensor<1x20xf32>) -> tensor<6x20xf32>
  %2 = tosa.reshape %1, %s1 : (tensor<6x20xf32>, !tosa.shape<1>) -> tensor<120xf32>
  return %2 : tensor<120xf32>
}

func.func @tensor_expand_collapse(%x: tensor<12x10xf32>) -> (tensor<3x4x2x5xf32>, tensor<120xf32>) {
  %0 = tensor.expand_shape %x [[0, 1], [2, 3]] output_shape [3, 4, 2, 5] : tensor<12x10xf32> into tensor<3x4x2x5xf32>
  %1 = tensor.collapse_shape %x [[0, 1]] : tensor<12x10xf32> into tensor<120xf32>
  return %0, %1 : tensor<3x4x2x5xf32>, tensor<120xf32>
}

func.func @tosa_concat_axis1(%a: tensor<4x5xf32>, %b: tensor<4x3xf32>, %c: tensor<4x9xf32>) -> tensor<4x17xf32> {
  %0 = tosa.concat %a, %b, %c {axis = 1 : i32} : (tensor<4x5xf32>, tensor<4x3xf32>, tensor<4x9xf32>) -> tensor<4x17xf32>
  return %0 : tensor<4x17xf32>
}

func.func @tosa_concat_axis0_i32(%a: tensor<2x6xi32>, %b: tensor<5x6xi32>) -> tensor<7x6xi32> {
  %0 = tosa.concat %a, %b {axis = 0 : i32} : (tensor<2x6xi32>, tensor<5x6xi32>) -> tensor<7x6xi32>
  return %0 : tensor<7x6xi32>
}

func.func @tensor_concat_nhwc(%a: tensor<1x4x4x3xf32>, %b: tensor<1x4x4x5xf32>) -> tensor<1x4x4x8xf32> {
  %0 = tensor.concat dim(3) %a, %b : (tensor<1x4x4x3xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// Computed operands, larger than a workgroup's tile, and a consumer fused
// after the concat (the GPU writes it as a gather over its result).
func.func @tosa_concat_computed(%a: tensor<1x16x16x8xf32>, %b: tensor<1x16x16x24xf32>) -> tensor<1x16x16x32xf32> {
  %0 = tosa.abs %a : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  %1 = tosa.floor %b : (tensor<1x16x16x24xf32>) -> tensor<1x16x16x24xf32>
  %2 = tosa.concat %0, %1 {axis = 3 : i32} : (tensor<1x16x16x8xf32>, tensor<1x16x16x24xf32>) -> tensor<1x16x16x32xf32>
  %3 = tosa.abs %2 : (tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %3 : tensor<1x16x16x32xf32>
}

func.func @tosa_slice(%x: tensor<8x9xf32>) -> tensor<3x4xf32> {
  %start = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.slice %x, %start, %size : (tensor<8x9xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// Two overlapping slices of one input, combined.
func.func @tosa_slice_add(%x: tensor<6x10x4xf32>) -> tensor<6x5x4xf32> {
  %s0 = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s1 = tosa.const_shape {values = dense<[0, 3, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[6, 5, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.slice %x, %s0, %size : (tensor<6x10x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<6x5x4xf32>
  %1 = tosa.slice %x, %s1, %size : (tensor<6x10x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<6x5x4xf32>
  %2 = tosa.add %0, %1 : (tensor<6x5x4xf32>, tensor<6x5x4xf32>) -> tensor<6x5x4xf32>
  return %2 : tensor<6x5x4xf32>
}

// Strided slice: every other row, every third column.
func.func @tensor_extract_slice_strided(%x: tensor<10x12xf32>) -> tensor<4x3xf32> {
  %0 = tensor.extract_slice %x[1, 2] [4, 3] [2, 3] : tensor<10x12xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @tensor_insert_slice(%x: tensor<6x7xf32>, %y: tensor<2x3xf32>) -> tensor<6x7xf32> {
  %0 = tensor.insert_slice %y into %x[3, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}

// tosa.pad with a non-zero pad value; padding is [lo0, hi0, lo1, hi1, ...].
func.func @tosa_pad(%x: tensor<3x4xf32>) -> tensor<6x9xf32> {
  %pads = tosa.const_shape {values = dense<[1, 2, 3, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v = "tosa.const"() <{values = dense<-2.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.pad %x, %pads, %v : (tensor<3x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<6x9xf32>
  return %0 : tensor<6x9xf32>
}

func.func @tosa_tile(%x: tensor<2x3xi32>) -> tensor<4x9xi32> {
  %m = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %x, %m : (tensor<2x3xi32>, !tosa.shape<2>) -> tensor<4x9xi32>
  return %0 : tensor<4x9xi32>
}

// Returns an input unchanged, and the same value twice.
func.func @identity_twice(%x: tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>) {
  return %x, %x : tensor<5x5xf32>, tensor<5x5xf32>
}

// Slices and inserts large enough for many GPU workgroups (each element a
// gather on cuda): a strided rank-reducing slice, and a strided insert.
func.func @slice_large_strided(%x: tensor<4x300x520xf32>) -> tensor<150x173xf32> {
  %0 = tensor.extract_slice %x[2, 1, 3] [1, 150, 173] [1, 2, 3] : tensor<4x300x520xf32> to tensor<150x173xf32>
  return %0 : tensor<150x173xf32>
}

func.func @insert_large_strided(%x: tensor<300x520xf32>, %y: tensor<100x250xf32>) -> tensor<300x520xf32> {
  %0 = tensor.insert_slice %y into %x[2, 7] [100, 250] [3, 2] : tensor<100x250xf32> into tensor<300x520xf32>
  return %0 : tensor<300x520xf32>
}

// A sum returned and also read (transposed) by the next op of its
// dispatch: both results stored by the same kernel.
func.func @returned_and_consumed(%a: tensor<64x96xf32>, %b: tensor<64x96xf32>) -> (tensor<64x96xf32>, tensor<96x64xf32>) {
  %e = tensor.empty() : tensor<64x96xf32>
  %0 = linalg.add ins(%a, %b : tensor<64x96xf32>, tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %et = tensor.empty() : tensor<96x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x96xf32>) outs(%et : tensor<96x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<96x64xf32>
  return %0, %1 : tensor<64x96xf32>, tensor<96x64xf32>
}
