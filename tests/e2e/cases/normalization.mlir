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
