// RUN: kiln-opt --split-input-file --kiln-lower-input-ops %s | FileCheck %s

// asinh(x) = sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), with log1p
// from log (u = 1 + x; log(u) * x / (u - 1)), and log(|x|) + ln 2 beyond
// 2^11 (f32), where x^2 + 1 rounds to x^2.
// CHECK-LABEL: func.func @asinh_f32(
// CHECK-SAME:    %[[X:.+]]: f32)
// CHECK-NOT:     math.asinh
// CHECK-DAG:     %[[LARGE:.+]] = arith.constant 2.048000e+03 : f32
// CHECK-DAG:     %[[LN2:.+]] = arith.constant 0.693147182 : f32
// CHECK:         %[[A:.+]] = math.absf %[[X]] : f32
// CHECK:         %[[A2:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK:         math.sqrt
// CHECK:         arith.select
// CHECK:         %[[NEAR:.+]] = arith.select
// CHECK:         %[[LOGA:.+]] = math.log %[[A]] : f32
// CHECK:         %[[FAR:.+]] = arith.addf %[[LOGA]], %[[LN2]] : f32
// CHECK:         %[[ISFAR:.+]] = arith.cmpf ogt, %[[A]], %[[LARGE]] : f32
// CHECK:         %[[R:.+]] = arith.select %[[ISFAR]], %[[FAR]], %[[NEAR]] : f32
// CHECK:         %[[RES:.+]] = math.copysign %[[R]], %[[X]] : f32
// CHECK:         return %[[RES]]
func.func @asinh_f32(%x: f32) -> f32 {
  %0 = math.asinh %x : f32
  return %0 : f32
}

// -----

// f16 computes in f32, on tensors as on scalars; below 1 acosh is NaN.
// CHECK-LABEL: func.func @acosh_f16(
// CHECK-SAME:    %[[X:.+]]: tensor<4xf16>)
// CHECK-NOT:     math.acosh
// CHECK-DAG:     %[[NAN:.+]] = arith.constant dense<0x7FC00000> : tensor<4xf32>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:         %[[W:.+]] = arith.extf %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         arith.subf %[[W]], %[[ONE]] : tensor<4xf32>
// CHECK:         math.sqrt
// CHECK:         arith.select
// CHECK:         arith.select
// CHECK:         %[[R:.+]] = arith.select
// CHECK:         %[[BELOW:.+]] = arith.cmpf olt, %[[W]], %[[ONE]] : tensor<4xf32>
// CHECK:         %[[S:.+]] = arith.select %[[BELOW]], %[[NAN]], %[[R]]
// CHECK:         %[[RES:.+]] = arith.truncf %[[S]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         return %[[RES]]
func.func @acosh_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = math.acosh %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// atanh(x) = sign(x) * log1p(2|x| / (1 - |x|)) / 2.
// CHECK-LABEL: func.func @atanh_f64(
// CHECK-SAME:    %[[X:.+]]: f64)
// CHECK-NOT:     math.atanh
// CHECK:         %[[A:.+]] = math.absf %[[X]] : f64
// CHECK:         %[[D:.+]] = arith.subf %{{.+}}, %[[A]] : f64
// CHECK:         %[[N:.+]] = arith.mulf %[[A]], %{{.+}} : f64
// CHECK:         arith.divf %[[N]], %[[D]] : f64
// CHECK:         math.log
// CHECK:         arith.select
// CHECK:         %[[L:.+]] = arith.select
// CHECK:         %[[H:.+]] = arith.mulf %[[L]], %{{.+}} : f64
// CHECK:         math.copysign %[[H]], %[[X]] : f64
func.func @atanh_f64(%x: f64) -> f64 {
  %0 = math.atanh %x : f64
  return %0 : f64
}

// -----

// Integer ops the CPU back end cannot lower on n-D vectors, as arith.
// CHECK-LABEL: func.func @integer_ops(
// CHECK-SAME:    %[[X:.+]]: i32
// CHECK-NOT:     math.absi
// CHECK-NOT:     math.ctlz
// CHECK-NOT:     math.cttz
// CHECK-NOT:     math.ipowi
// CHECK:         %[[NEG:.+]] = arith.subi %{{.+}}, %[[X]] : i32
// CHECK:         %[[ABS:.+]] = arith.maxsi %[[X]], %[[NEG]] : i32
// CHECK:         arith.cmpi ule, %[[X]]
// CHECK:         %[[INV:.+]] = arith.xori %[[X]], %{{.+}} : i32
// CHECK:         %[[DEC:.+]] = arith.subi %[[X]], %{{.+}} : i32
// CHECK:         %[[BELOW:.+]] = arith.andi %[[INV]], %[[DEC]] : i32
// CHECK:         %[[TZ:.+]] = math.ctpop %[[BELOW]] : i32
// CHECK:         arith.muli
// CHECK:         %[[ISNEG:.+]] = arith.cmpi slt
// CHECK:         %[[POW:.+]] = arith.select %[[ISNEG]]
// CHECK:         return %[[ABS]], %{{.+}}, %[[TZ]], %[[POW]]
func.func @integer_ops(%x: i32, %n: i8) -> (i32, i32, i32, i8) {
  %0 = math.absi %x : i32
  %1 = math.ctlz %x : i32
  %2 = math.cttz %x : i32
  %3 = math.ipowi %n, %n : i8
  return %0, %1, %2, %3 : i32, i32, i32, i8
}

// -----

// Classifications as comparisons of |x| (false for NaN); sincos as sin and
// cos.
// CHECK-LABEL: func.func @classify(
// CHECK-SAME:    %[[X:.+]]: bf16)
// CHECK-DAG:     %[[INF:.+]] = arith.constant 0x7F80 : bf16
// CHECK-DAG:     %[[MIN:.+]] = arith.constant 1.175490e-38 : bf16
// CHECK:         %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : bf16
// CHECK:         %[[A0:.+]] = math.absf %[[X]] : bf16
// CHECK:         %[[ISINF:.+]] = arith.cmpf oeq, %[[A0]], %[[INF]] : bf16
// CHECK:         %[[A1:.+]] = math.absf %[[X]] : bf16
// CHECK:         %[[FINITE:.+]] = arith.cmpf olt, %[[A1]], %[[INF]] : bf16
// CHECK:         %[[A2:.+]] = math.absf %[[X]] : bf16
// CHECK:         %[[GE:.+]] = arith.cmpf oge, %[[A2]], %[[MIN]] : bf16
// CHECK:         %[[LT:.+]] = arith.cmpf olt, %[[A2]], %[[INF]] : bf16
// CHECK:         %[[NORMAL:.+]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:         %[[SIN:.+]] = math.sin %[[X]] : bf16
// CHECK:         %[[COS:.+]] = math.cos %[[X]] : bf16
// CHECK:         return %[[NAN]], %[[ISINF]], %[[FINITE]], %[[NORMAL]], %[[SIN]], %[[COS]]
func.func @classify(%x: bf16) -> (i1, i1, i1, i1, bf16, bf16) {
  %0 = math.isnan %x : bf16
  %1 = math.isinf %x : bf16
  %2 = math.isfinite %x : bf16
  %3 = math.isnormal %x : bf16
  %s, %c = math.sincos %x : bf16
  return %0, %1, %2, %3, %s, %c : i1, i1, i1, i1, bf16, bf16
}

// -----

// x^n by squaring over n's 8 bits (in f32 for f16; bit 0 needs no shift),
// inverted for n < 0.
// CHECK-LABEL: func.func @fpowi(
// CHECK-SAME:    %[[X:.+]]: f16, %[[N:.+]]: i8)
// CHECK-NOT:     math.fpowi
// CHECK:         %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK:         %[[ISNEG:.+]] = arith.cmpi slt, %[[N]]
// CHECK-COUNT-7: arith.shrui
// CHECK:         %[[INV:.+]] = arith.divf
// CHECK:         %[[R:.+]] = arith.select %[[ISNEG]], %[[INV]]
// CHECK:         %[[RES:.+]] = arith.truncf %[[R]] : f32 to f16
// CHECK:         return %[[RES]]
func.func @fpowi(%x: f16, %n: i8) -> f16 {
  %0 = math.fpowi %x, %n : f16, i8
  return %0 : f16
}

// -----

// TOSA's rescale arithmetic with 64-bit intermediates.
// CHECK-LABEL: func.func @apply_scale(
// CHECK-SAME:    %[[V:.+]]: i32, %[[M:.+]]: i32, %[[S:.+]]: i8)
// CHECK-NOT:     tosa.apply_scale
// CHECK-DAG:     arith.extsi %[[V]] : i32 to i64
// CHECK-DAG:     arith.extsi %[[M]] : i32 to i64
// CHECK:         arith.muli %{{.+}}, %{{.+}} : i64
// CHECK:         %[[SHIFTED:.+]] = arith.shrsi %{{.+}}, %{{.+}} : i64
// CHECK:         %[[RES:.+]] = arith.trunci %[[SHIFTED]] : i64 to i32
// CHECK:         return %[[RES]]
func.func @apply_scale(%v: i32, %m: i32, %s: i8) -> i32 {
  %0 = tosa.apply_scale %v, %m, %s {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
  return %0 : i32
}

// -----

// pack: pad to whole tiles, split the tiled dimensions, transpose (outer
// dimensions permuted, tiles last).
// CHECK-LABEL: func.func @pack(
// CHECK-SAME:    %[[A:.+]]: tensor<7x9xf32>)
// CHECK-NOT:     linalg.pack
// CHECK:         %[[PADDED:.+]] = tensor.pad %[[A]] low[0, 0] high[1, 0]
// CHECK:         } : tensor<7x9xf32> to tensor<8x9xf32>
// CHECK:         %[[SPLIT:.+]] = tensor.expand_shape %[[PADDED]] {{\[\[}}0, 1], [2, 3]] output_shape [2, 4, 3, 3]
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[SPLIT]] : tensor<2x4x3x3xf32>) outs(%{{.+}} : tensor<3x2x4x3xf32>) permutation = [2, 0, 1, 3]
// CHECK:         return %[[T]]
func.func @pack(%a: tensor<7x9xf32>) -> tensor<3x2x4x3xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2x4x3xf32>
  %0 = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %e : tensor<7x9xf32> -> tensor<3x2x4x3xf32>
  return %0 : tensor<3x2x4x3xf32>
}

// -----

// unpack: transpose the tiles back next to their dimensions, merge them,
// drop the padding.
// CHECK-LABEL: func.func @unpack(
// CHECK-SAME:    %[[P:.+]]: tensor<2x2x4x3xf32>)
// CHECK-NOT:     linalg.unpack
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[P]] : tensor<2x2x4x3xf32>) outs(%{{.+}} : tensor<2x4x2x3xf32>) permutation = [0, 2, 1, 3]
// CHECK:         %[[M:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<2x4x2x3xf32> into tensor<8x6xf32>
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[M]][0, 0] [7, 6] [1, 1] : tensor<8x6xf32> to tensor<7x6xf32>
// CHECK:         %[[C:.+]] = linalg.copy ins(%[[S]] : tensor<7x6xf32>)
// CHECK:         return %[[C]]
func.func @unpack(%p: tensor<2x2x4x3xf32>) -> tensor<7x6xf32> {
  %e = tensor.empty() : tensor<7x6xf32>
  %0 = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %e : tensor<2x2x4x3xf32> -> tensor<7x6xf32>
  return %0 : tensor<7x6xf32>
}
