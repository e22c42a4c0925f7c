// Matrix multiplication: tosa.matmul and linalg.matmul, with bias and relu
// epilogues, a large square case and odd sizes that no tile divides.

func.func @tosa_matmul_37x61x29(%a: tensor<1x37x61xf32>, %b: tensor<1x61x29xf32>) -> tensor<1x37x29xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x37x61xf32>, tensor<1x61x29xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x37x29xf32>
  return %0 : tensor<1x37x29xf32>
}

// relu(a @ b + bias) with the bias broadcast over rows.
func.func @tosa_matmul_bias_relu(%a: tensor<1x64x128xf32>, %b: tensor<1x128x96xf32>, %bias: tensor<1x1x96xf32>) -> tensor<1x64x96xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x96xf32>
  %1 = tosa.add %0, %bias : (tensor<1x64x96xf32>, tensor<1x1x96xf32>) -> tensor<1x64x96xf32>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x96xf32>) -> tensor<1x64x96xf32>
  return %2 : tensor<1x64x96xf32>
}

func.func @linalg_matmul_512(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

func.func @linalg_matmul_37x61x29(%a: tensor<37x61xf32>, %b: tensor<61x29xf32>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x61xf32>, tensor<61x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}

// Accumulates into a caller-provided matrix instead of zeros: C + A @ B.
func.func @linalg_matmul_accumulate(%a: tensor<13x7xf32>, %b: tensor<7x19xf32>, %c: tensor<13x19xf32>) -> tensor<13x19xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<13x7xf32>, tensor<7x19xf32>) outs(%c : tensor<13x19xf32>) -> tensor<13x19xf32>
  return %0 : tensor<13x19xf32>
}

#bias_map = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// relu(a @ b + bias) with the epilogue as a linalg.generic.
func.func @linalg_matmul_bias_relu(%a: tensor<100x72xf32>, %b: tensor<72x130xf32>, %bias: tensor<130xf32>) -> tensor<100x130xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x130xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<100x130xf32>) -> tensor<100x130xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<100x72xf32>, tensor<72x130xf32>) outs(%c : tensor<100x130xf32>) -> tensor<100x130xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #bias_map, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<100x130xf32>, tensor<130xf32>) outs(%e : tensor<100x130xf32>) {
  ^bb0(%x: f32, %bv: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %x, %bv : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<100x130xf32>
  return %0 : tensor<100x130xf32>
}

// A @ B^T through linalg.matmul's indexing_maps.
func.func @linalg_matmul_transpose_b(%a: tensor<24x40xf32>, %b: tensor<56x40xf32>) -> tensor<24x56xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x56xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<24x56xf32>) -> tensor<24x56xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<24x40xf32>, tensor<56x40xf32>) outs(%c : tensor<24x56xf32>) -> tensor<24x56xf32>
  return %0 : tensor<24x56xf32>
}

// f16 operands, f32 accumulation and result.
func.func @linalg_matmul_f16_acc_f32(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// f16 in and out; K is small so f16 accumulation stays within tolerance.
func.func @linalg_matmul_f16(%a: tensor<16x8xf16>, %b: tensor<8x24xf16>) -> tensor<16x24xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x24xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<16x24xf16>) -> tensor<16x24xf16>
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf16>, tensor<8x24xf16>) outs(%c : tensor<16x24xf16>) -> tensor<16x24xf16>
  return %0 : tensor<16x24xf16>
}

func.func @linalg_matmul_i32(%a: tensor<17x23xi32>, %b: tensor<23x11xi32>) -> tensor<17x11xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<17x11xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<17x11xi32>) -> tensor<17x11xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<17x23xi32>, tensor<23x11xi32>) outs(%c : tensor<17x11xi32>) -> tensor<17x11xi32>
  return %0 : tensor<17x11xi32>
}

func.func @linalg_matvec(%a: tensor<128x257xf32>, %x: tensor<257xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %0 = linalg.matvec ins(%a, %x : tensor<128x257xf32>, tensor<257xf32>) outs(%c : tensor<128xf32>) -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// Two dependent matmuls: (a @ b) @ c.
func.func @linalg_matmul_chain(%a: tensor<33x20xf32>, %b: tensor<20x45xf32>, %c: tensor<45x9xf32>) -> tensor<33x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<33x45xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<33x45xf32>) -> tensor<33x45xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<33x20xf32>, tensor<20x45xf32>) outs(%f0 : tensor<33x45xf32>) -> tensor<33x45xf32>
  %e1 = tensor.empty() : tensor<33x9xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<33x9xf32>) -> tensor<33x9xf32>
  %0 = linalg.matmul ins(%ab, %c : tensor<33x45xf32>, tensor<45x9xf32>) outs(%f1 : tensor<33x9xf32>) -> tensor<33x9xf32>
  return %0 : tensor<33x9xf32>
}

// f16 x f16 -> f32 with tiles that divide the problem: on cuda (sm_80 and
// later) the tensor-core kernel, with three K steps through its two
// shared-memory stages and a bias + relu epilogue.
func.func @linalg_matmul_f16_tensor_cores(%a: tensor<256x96xf16>, %b: tensor<96x384xf16>, %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x96xf16>, tensor<96x384xf16>) outs(%c : tensor<256x384xf32>) -> tensor<256x384xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<256x384xf32>, tensor<384xf32>) outs(%e : tensor<256x384xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x384xf32>
  return %1 : tensor<256x384xf32>
}

// IEEE f32 as 3xTF32 wgmma on sm_90a with a tail in every dimension: 3000
// rows (the last 128-row tile 56; 72 workgroups or more, half an H100's
// processors), 260 columns (a 128 x 64 tile's last 4), K 264 (the last
// 32-step 8), and a bias and relu epilogue.
func.func @linalg_matmul_f32_tf32_tails(%a: tensor<3000x264xf32>, %b: tensor<264x260xf32>, %bias: tensor<260xf32>) -> tensor<3000x260xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3000x260xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3000x260xf32>) -> tensor<3000x260xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<3000x264xf32>, tensor<264x260xf32>) outs(%c : tensor<3000x260xf32>) -> tensor<3000x260xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #bias_map, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<3000x260xf32>, tensor<260xf32>) outs(%e : tensor<3000x260xf32>) {
  ^bb0(%x: f32, %bv: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %x, %bv : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<3000x260xf32>
  return %0 : tensor<3000x260xf32>
}

// IEEE f32 over more than two waves of 128 x 128 tiles on an H100 (33 x 9
// = 297 workgroups): the CUDA cores' 8 x 8 outputs a thread, unsliced, two
// workgroups a processor (K of 64 is too short for 3xTF32 wgmma); 4100
// rows leave the last tile 4 rows.
func.func @linalg_matmul_f32_many_waves(%a: tensor<4100x64xf32>, %b: tensor<64x1152xf32>) -> tensor<4100x1152xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4100x1152xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4100x1152xf32>) -> tensor<4100x1152xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4100x64xf32>, tensor<64x1152xf32>) outs(%c : tensor<4100x1152xf32>) -> tensor<4100x1152xf32>
  return %0 : tensor<4100x1152xf32>
}

// IEEE f32 over 544 workgroups of 128 x 64 on an H100 (four a processor
// or more, K of 8 steps): 8 x 4 outputs a thread, 3 stages; 1000 rows
// (too few for 3xTF32 wgmma) leave the last tile 104.
func.func @linalg_matmul_f32_wide_tiles(%a: tensor<1000x128xf32>, %b: tensor<128x4352xf32>) -> tensor<1000x4352xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x4352xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x4352xf32>) -> tensor<1000x4352xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1000x128xf32>, tensor<128x4352xf32>) outs(%c : tensor<1000x4352xf32>) -> tensor<1000x4352xf32>
  return %0 : tensor<1000x4352xf32>
}

// Large enough for 128 x 128 tensor-core tiles (16 x 8 = 128 workgroups).
func.func @linalg_matmul_f16_tensor_cores_large(%a: tensor<2048x64xf16>, %b: tensor<64x1024xf16>) -> tensor<2048x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2048x64xf16>, tensor<64x1024xf16>) outs(%c : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  return %0 : tensor<2048x1024xf32>
}

// Tiles that do not divide the problem: M = 100, N = 72 (past one 64-wide
// tile), K = 40 (past one 32-deep step). On cuda the tensor-core kernel
// zero-fills the tiles' parts past M, N and K and stores none of them; the
// accumulator is a bias broadcast, added in its epilogue.
func.func @linalg_matmul_f16_tensor_cores_tails(%a: tensor<100x40xf16>, %b: tensor<40x72xf16>, %bias: tensor<72xf32>) -> tensor<100x72xf32> {
  %e = tensor.empty() : tensor<100x72xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<72xf32>) outs(%e : tensor<100x72xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<100x72xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<100x40xf16>, tensor<40x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

// M = 6272, N = 256: 128 x 128 tiles would give 98 workgroups, fewer than
// an H100 has multiprocessors, so the tensor-core kernel takes 128 x 64
// tiles with 3 shared-memory stages (two K steps: the third stage copies
// nothing).
func.func @linalg_matmul_f16_tensor_cores_tall(%a: tensor<6272x64xf16>, %b: tensor<64x256xf16>) -> tensor<6272x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6272x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<6272x256xf32>) -> tensor<6272x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<6272x64xf16>, tensor<64x256xf16>) outs(%c : tensor<6272x256xf32>) -> tensor<6272x256xf32>
  return %0 : tensor<6272x256xf32>
}

// x + zeros @ w, with the zero operand and the zero accumulator one fill (as
// CSE leaves them): an RNN step from a zero initial state. Upstream's
// contract+add canonicalization once read x for both and returned
// x + rowsum(x) @ w.
func.func @zero_operand_matmul_add(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %m = linalg.matmul ins(%z, %w : tensor<3x4xf32>, tensor<4x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// Two rows over a long reduction, accumulating into C: on cuda
// kiln-split-reduction computes 16 partial products of 128 steps each and
// adds them to C in order.
func.func @matmul_split_reduction(%a: tensor<2x2048xf32>, %b: tensor<2048x48xf32>, %c: tensor<2x48xf32>) -> tensor<2x48xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x2048xf32>, tensor<2048x48xf32>) outs(%c : tensor<2x48xf32>) -> tensor<2x48xf32>
  return %0 : tensor<2x48xf32>
}

// bf16 operands accumulating in f32 (what --precision=bf16 makes of an f32
// matmul): f32 arguments rounded to bf16 first; on sm_90a the product runs
// on wgmma's bf16 form.
func.func @matmul_bf16_acc_f32(%a32: tensor<128x96xf32>, %b32: tensor<96x64xf32>) -> tensor<128x64xf32> {
  %ea = tensor.empty() : tensor<128x96xbf16>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a32 : tensor<128x96xf32>) outs(%ea : tensor<128x96xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x96xbf16>
  %eb = tensor.empty() : tensor<96x64xbf16>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%b32 : tensor<96x64xf32>) outs(%eb : tensor<96x64xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<96x64xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<128x96xbf16>, tensor<96x64xbf16>) outs(%c : tensor<128x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
