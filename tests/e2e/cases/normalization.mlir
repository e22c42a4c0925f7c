// Normalizations and a scaled softmax as frontends write them: reductions
// along the innermost dimension whose results the elementwise ops after them
// read broadcast. On GPUs each is one row program (one dispatch, one
// kernel); the CPU runs them as separate dispatches.

// LayerNorm over the last axis of 6x37x96, with a weight and a bias.
func.func @layernorm_f32(%x: tensor<6x37x96xf32>, %g: tensor<1x1x96xf32>, %b: tensor<1x1x96xf32>) -> tensor<6x37x96xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.010416667> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<6x37x96xf32>) -> tensor<6x37x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<6x37x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<6x37x1xf32>
  %d = tosa.sub %x, %mean : (tensor<6x37x96xf32>, tensor<6x37x1xf32>) -> tensor<6x37x96xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<6x37x96xf32>, tensor<6x37x96xf32>, tensor<1xi8>) -> tensor<6x37x96xf32>
  %v = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<6x37x96xf32>) -> tensor<6x37x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<6x37x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<6x37x1xf32>
  %ve = tosa.add %var, %eps : (tensor<6x37x1xf32>, tensor<1x1x1xf32>) -> tensor<6x37x1xf32>
  %r = tosa.rsqrt %ve : (tensor<6x37x1xf32>) -> tensor<6x37x1xf32>
  %n = tosa.mul %d, %r, %shift : (tensor<6x37x96xf32>, tensor<6x37x1xf32>, tensor<1xi8>) -> tensor<6x37x96xf32>
  %w = tosa.mul %n, %g, %shift : (tensor<6x37x96xf32>, tensor<1x1x96xf32>, tensor<1xi8>) -> tensor<6x37x96xf32>
  %0 = tosa.add %w, %b : (tensor<6x37x96xf32>, tensor<1x1x96xf32>) -> tensor<6x37x96xf32>
  return %0 : tensor<6x37x96xf32>
}

// f16 in and out, computed in f32 (as the ONNX importer writes an f16
// LayerNormalization): 4x50 rows of 384.
func.func @layernorm_f16(%x: tensor<4x50x384xf16>, %g: tensor<1x1x384xf16>) -> tensor<4x50x384xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.0026041667> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %xf = tosa.cast %x : (tensor<4x50x384xf16>) -> tensor<4x50x384xf32>
  %s = tosa.reduce_sum %xf {axis = 2 : i32} : (tensor<4x50x384xf32>) -> tensor<4x50x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<4x50x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x50x1xf32>
  %d = tosa.sub %xf, %mean : (tensor<4x50x384xf32>, tensor<4x50x1xf32>) -> tensor<4x50x384xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<4x50x384xf32>, tensor<4x50x384xf32>, tensor<1xi8>) -> tensor<4x50x384xf32>
  %v = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<4x50x384xf32>) -> tensor<4x50x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<4x50x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x50x1xf32>
  %ve = tosa.add %var, %eps : (tensor<4x50x1xf32>, tensor<1x1x1xf32>) -> tensor<4x50x1xf32>
  %r = tosa.rsqrt %ve : (tensor<4x50x1xf32>) -> tensor<4x50x1xf32>
  %n = tosa.mul %d, %r, %shift : (tensor<4x50x384xf32>, tensor<4x50x1xf32>, tensor<1xi8>) -> tensor<4x50x384xf32>
  %gf = tosa.cast %g : (tensor<1x1x384xf16>) -> tensor<1x1x384xf32>
  %w = tosa.mul %n, %gf, %shift : (tensor<4x50x384xf32>, tensor<1x1x384xf32>, tensor<1xi8>) -> tensor<4x50x384xf32>
  %0 = tosa.cast %w : (tensor<4x50x384xf32>) -> tensor<4x50x384xf16>
  return %0 : tensor<4x50x384xf16>
}

// The mean is a result too: it is stored, so it stays out of the program,
// which reads it back.
func.func @layernorm_with_mean(%x: tensor<9x40xf32>) -> (tensor<9x40xf32>, tensor<9x1xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.025> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<9x40xf32>) -> tensor<9x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<9x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<9x1xf32>
  %d = tosa.sub %x, %mean : (tensor<9x40xf32>, tensor<9x1xf32>) -> tensor<9x40xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<9x40xf32>, tensor<9x40xf32>, tensor<1xi8>) -> tensor<9x40xf32>
  %v = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<9x40xf32>) -> tensor<9x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<9x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<9x1xf32>
  %ve = tosa.add %var, %eps : (tensor<9x1xf32>, tensor<1x1xf32>) -> tensor<9x1xf32>
  %r = tosa.rsqrt %ve : (tensor<9x1xf32>) -> tensor<9x1xf32>
  %0 = tosa.mul %d, %r, %shift : (tensor<9x40xf32>, tensor<9x1xf32>, tensor<1xi8>) -> tensor<9x40xf32>
  return %0, %mean : tensor<9x40xf32>, tensor<9x1xf32>
}

// RMSNorm over rows of 3000: longer than a workgroup's threads times 4, not
// a multiple of them.
func.func @rmsnorm_long(%x: tensor<3x3000xf32>, %g: tensor<1x3000xf32>) -> tensor<3x3000xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<3.3333333e-4> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-6> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %sq = tosa.mul %x, %x, %shift : (tensor<3x3000xf32>, tensor<3x3000xf32>, tensor<1xi8>) -> tensor<3x3000xf32>
  %s = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<3x3000xf32>) -> tensor<3x1xf32>
  %ms = tosa.mul %s, %inv, %shift : (tensor<3x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<3x1xf32>
  %me = tosa.add %ms, %eps : (tensor<3x1xf32>, tensor<1x1xf32>) -> tensor<3x1xf32>
  %r = tosa.rsqrt %me : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = tosa.mul %x, %r, %shift : (tensor<3x3000xf32>, tensor<3x1xf32>, tensor<1xi8>) -> tensor<3x3000xf32>
  %0 = tosa.mul %n, %g, %shift : (tensor<3x3000xf32>, tensor<1x3000xf32>, tensor<1xi8>) -> tensor<3x3000xf32>
  return %0 : tensor<3x3000xf32>
}

// Attention scores' softmax in f16 with the scale applied first, over rows
// of 19 (many rows per workgroup, the last workgroup partly idle).
func.func @softmax_scaled_f16(%x: tensor<2x3x19x19xf16>) -> tensor<2x3x19x19xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
  %y = tosa.mul %x, %scale, %shift : (tensor<2x3x19x19xf16>, tensor<1x1x1x1xf16>, tensor<1xi8>) -> tensor<2x3x19x19xf16>
  %m = tosa.reduce_max %y {axis = 3 : i32} : (tensor<2x3x19x19xf16>) -> tensor<2x3x19x1xf16>
  %d = tosa.sub %y, %m : (tensor<2x3x19x19xf16>, tensor<2x3x19x1xf16>) -> tensor<2x3x19x19xf16>
  %e = tosa.exp %d : (tensor<2x3x19x19xf16>) -> tensor<2x3x19x19xf16>
  %s = tosa.reduce_sum %e {axis = 3 : i32} : (tensor<2x3x19x19xf16>) -> tensor<2x3x19x1xf16>
  %r = tosa.reciprocal %s : (tensor<2x3x19x1xf16>) -> tensor<2x3x19x1xf16>
  %0 = tosa.mul %e, %r, %shift : (tensor<2x3x19x19xf16>, tensor<2x3x19x1xf16>, tensor<1xi8>) -> tensor<2x3x19x19xf16>
  return %0 : tensor<2x3x19x19xf16>
}

// Row programs of other shapes and types: one row (a 0-d sum read by every
// element), i64 sums (64-bit shuffles), i1 `or` (partials moved as i32),
// rows of one element.
func.func @row_rank1(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<1000xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.addf %in, %o : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<1000xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %s : tensor<1000xf32>, tensor<f32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%in: f32, %t: f32, %o: f32):
    %0 = arith.divf %in, %t : f32
    linalg.yield %0 : f32
  } -> tensor<1000xf32>
  return %y : tensor<1000xf32>
}
func.func @row_sum_i64(%x: tensor<7x5xi64>) -> tensor<7x5xi64> {
  %zero = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<7xi64>
  %f = linalg.fill ins(%zero : i64) outs(%e0 : tensor<7xi64>) -> tensor<7xi64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<7x5xi64>) outs(%f : tensor<7xi64>) {
  ^bb0(%in: i64, %o: i64):
    %0 = arith.addi %in, %o : i64
    linalg.yield %0 : i64
  } -> tensor<7xi64>
  %e = tensor.empty() : tensor<7x5xi64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<7x5xi64>, tensor<7xi64>) outs(%e : tensor<7x5xi64>) {
  ^bb0(%in: i64, %t: i64, %o: i64):
    %0 = arith.subi %in, %t : i64
    linalg.yield %0 : i64
  } -> tensor<7x5xi64>
  return %y : tensor<7x5xi64>
}
func.func @row_any_i1(%x: tensor<6x40xi1>) -> tensor<6x40xi1> {
  %f0 = arith.constant false
  %e0 = tensor.empty() : tensor<6xi1>
  %f = linalg.fill ins(%f0 : i1) outs(%e0 : tensor<6xi1>) -> tensor<6xi1>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x40xi1>) outs(%f : tensor<6xi1>) {
  ^bb0(%in: i1, %o: i1):
    %0 = arith.ori %in, %o : i1
    linalg.yield %0 : i1
  } -> tensor<6xi1>
  %e = tensor.empty() : tensor<6x40xi1>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<6x40xi1>, tensor<6xi1>) outs(%e : tensor<6x40xi1>) {
  ^bb0(%in: i1, %t: i1, %o: i1):
    %0 = arith.xori %in, %t : i1
    linalg.yield %0 : i1
  } -> tensor<6x40xi1>
  return %y : tensor<6x40xi1>
}
func.func @row_of_one(%x: tensor<9x1xf32>) -> tensor<9x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<9xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<9xf32>) -> tensor<9xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<9x1xf32>) outs(%f : tensor<9xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %o : f32
    linalg.yield %0 : f32
  } -> tensor<9xf32>
  %e = tensor.empty() : tensor<9x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<9x1xf32>, tensor<9xf32>) outs(%e : tensor<9x1xf32>) {
  ^bb0(%in: f32, %t: f32, %o: f32):
    %0 = arith.addf %in, %t : f32
    linalg.yield %0 : f32
  } -> tensor<9x1xf32>
  return %y : tensor<9x1xf32>
}

// A LayerNorm read twice, in f32 (a residual add) and rounded to f16 (a
// matmul's operand under --precision=f16): on GPUs one row kernel stores
// both results.
func.func @layernorm_and_rounded(%x: tensor<8x200xf32>) -> (tensor<8x200xf32>, tensor<8x200xf16>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.005> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<8x200xf32>) -> tensor<8x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<8x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<8x1xf32>
  %d = tosa.sub %x, %mean : (tensor<8x200xf32>, tensor<8x1xf32>) -> tensor<8x200xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<8x200xf32>, tensor<8x200xf32>, tensor<1xi8>) -> tensor<8x200xf32>
  %v = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<8x200xf32>) -> tensor<8x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<8x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<8x1xf32>
  %ve = tosa.add %var, %eps : (tensor<8x1xf32>, tensor<1x1xf32>) -> tensor<8x1xf32>
  %r = tosa.rsqrt %ve : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %n = tosa.mul %d, %r, %shift : (tensor<8x200xf32>, tensor<8x1xf32>, tensor<1xi8>) -> tensor<8x200xf32>
  %h = tosa.cast %n : (tensor<8x200xf32>) -> tensor<8x200xf16>
  return %n, %h : tensor<8x200xf32>, tensor<8x200xf16>
}

// A pre-LN transformer block's seam: a projection (K 1024 onto 128 x 256,
// which GPUs split along K into 4 partial products), its bias and the
// residual added, then normalized; the sum is returned too, as the next
// residual add reads it. On GPUs the partials' sum, the residual add and
// the LayerNorm are one row program whose kernel stores both results.
func.func @residual_layernorm_split(%a: tensor<1x128x1024xf32>, %w: tensor<1x1024x256xf32>, %bias: tensor<1x1x256xf32>, %r: tensor<1x128x256xf32>) -> (tensor<1x128x256xf32>, tensor<1x128x256xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.00390625> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %m = tosa.matmul %a, %w, %zp, %zp : (tensor<1x128x1024xf32>, tensor<1x1024x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %mb = tosa.add %m, %bias : (tensor<1x128x256xf32>, tensor<1x1x256xf32>) -> tensor<1x128x256xf32>
  %x = tosa.add %mb, %r : (tensor<1x128x256xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %s = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<1x128x256xf32>) -> tensor<1x128x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<1x128x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x128x1xf32>
  %d = tosa.sub %x, %mean : (tensor<1x128x256xf32>, tensor<1x128x1xf32>) -> tensor<1x128x256xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<1x128x256xf32>, tensor<1x128x256xf32>, tensor<1xi8>) -> tensor<1x128x256xf32>
  %v = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x128x256xf32>) -> tensor<1x128x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<1x128x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x128x1xf32>
  %ve = tosa.add %var, %eps : (tensor<1x128x1xf32>, tensor<1x1x1xf32>) -> tensor<1x128x1xf32>
  %rs = tosa.rsqrt %ve : (tensor<1x128x1xf32>) -> tensor<1x128x1xf32>
  %y = tosa.mul %d, %rs, %shift : (tensor<1x128x256xf32>, tensor<1x128x1xf32>, tensor<1xi8>) -> tensor<1x128x256xf32>
  return %y, %x : tensor<1x128x256xf32>, tensor<1x128x256xf32>
}

// An embedding (rows of a table at clamped token ids, plus positions), then
// normalized, the embedding returned too (the first residual add reads it):
// on GPUs the gather joins the LayerNorm's row program, stored beside it.
func.func @embedding_layernorm(%ids: tensor<24xi32>, %table: tensor<50x64xf32>, %pos: tensor<24x64xf32>) -> (tensor<24x64xf32>, tensor<24x64xf32>) {
  %c0 = arith.constant 0 : index
  %c49 = arith.constant 49 : index
  %e = tensor.empty() : tensor<24x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ids, %pos : tensor<24xi32>, tensor<24x64xf32>) outs(%e : tensor<24x64xf32>) {
  ^bb0(%id: i32, %p: f32, %o: f32):
    %j = linalg.index 1 : index
    %k0 = arith.index_cast %id : i32 to index
    %k1 = arith.maxsi %k0, %c0 : index
    %k = arith.minsi %k1, %c49 : index
    %v = tensor.extract %table[%k, %j] : tensor<50x64xf32>
    %r = arith.addf %v, %p : f32
    linalg.yield %r : f32
  } -> tensor<24x64xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.015625> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<24x64xf32>) -> tensor<24x1xf32>
  %mean = tosa.mul %s, %inv, %shift : (tensor<24x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<24x1xf32>
  %d = tosa.sub %x, %mean : (tensor<24x64xf32>, tensor<24x1xf32>) -> tensor<24x64xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<24x64xf32>, tensor<24x64xf32>, tensor<1xi8>) -> tensor<24x64xf32>
  %v = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<24x64xf32>) -> tensor<24x1xf32>
  %var = tosa.mul %v, %inv, %shift : (tensor<24x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<24x1xf32>
  %ve = tosa.add %var, %eps : (tensor<24x1xf32>, tensor<1x1xf32>) -> tensor<24x1xf32>
  %rs = tosa.rsqrt %ve : (tensor<24x1xf32>) -> tensor<24x1xf32>
  %y = tosa.mul %d, %rs, %shift : (tensor<24x64xf32>, tensor<24x1xf32>, tensor<1xi8>) -> tensor<24x64xf32>
  return %y, %x : tensor<24x64xf32>, tensor<24x64xf32>
}
