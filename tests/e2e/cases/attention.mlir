// Attention as frontends write it: scores Q . K^T, a softmax of an
// elementwise program of them along the keys, times V. On CUDA (sm_80 and
// later) each is one dispatch and one kernel streaming over the keys
// (kiln-gpu-attention-kernels); the CPU runs the contractions and the
// softmax as separate dispatches.

// A ViT's: 6 heads of 197 tokens and 64 dims, the scores rounded to f16 and
// scaled in f16, the softmax in f32 (keys and queries not multiples of the
// kernel's tiles).
func.func @attention_vit_f16(%q: tensor<6x197x64xf16>, %k: tensor<6x197x64xf16>, %v: tensor<6x197x64xf16>) -> tensor<6x197x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<6x197x64xf16>) -> tensor<6x64x197xf16>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<6x197x64xf16>, tensor<6x64x197xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<6x197x197xf32>
  %s = tosa.cast %s32 : (tensor<6x197x197xf32>) -> tensor<6x197x197xf16>
  %y16 = tosa.mul %s, %scale, %shift : (tensor<6x197x197xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<6x197x197xf16>
  %y = tosa.cast %y16 : (tensor<6x197x197xf16>) -> tensor<6x197x197xf32>
  %m = tosa.reduce_max %y {axis = 2 : i32} : (tensor<6x197x197xf32>) -> tensor<6x197x1xf32>
  %d = tosa.sub %y, %m : (tensor<6x197x197xf32>, tensor<6x197x1xf32>) -> tensor<6x197x197xf32>
  %e = tosa.exp %d : (tensor<6x197x197xf32>) -> tensor<6x197x197xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<6x197x197xf32>) -> tensor<6x197x1xf32>
  %p = tosa.reciprocal %sum : (tensor<6x197x1xf32>) -> tensor<6x197x1xf32>
  %pn = tosa.mul %e, %p, %shift : (tensor<6x197x197xf32>, tensor<6x197x1xf32>, tensor<1xi8>) -> tensor<6x197x197xf32>
  %p16 = tosa.cast %pn : (tensor<6x197x197xf32>) -> tensor<6x197x197xf16>
  %o32 = tosa.matmul %p16, %v, %zp, %zp : (tensor<6x197x197xf16>, tensor<6x197x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<6x197x64xf32>
  %o = tosa.cast %o32 : (tensor<6x197x64xf32>) -> tensor<6x197x64xf16>
  return %o : tensor<6x197x64xf16>
}

// A decoder's: an additive mask read from a binding (a GPT's constant
// causal mask, here any values) over 4 heads of 128 tokens, the softmax in
// f16 as an f16 model writes it.
func.func @attention_mask_f16(%q: tensor<4x128x64xf16>, %k: tensor<4x128x64xf16>, %v: tensor<4x128x64xf16>, %mask: tensor<1x128x128xf16>) -> tensor<4x128x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x128x64xf16>) -> tensor<4x64x128xf16>
  %s32 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x128x64xf16>, tensor<4x64x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x128x128xf32>
  %s = tosa.cast %s32 : (tensor<4x128x128xf32>) -> tensor<4x128x128xf16>
  %y0 = tosa.mul %s, %scale, %shift : (tensor<4x128x128xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<4x128x128xf16>
  %y = tosa.add %y0, %mask : (tensor<4x128x128xf16>, tensor<1x128x128xf16>) -> tensor<4x128x128xf16>
  %m = tosa.reduce_max %y {axis = 2 : i32} : (tensor<4x128x128xf16>) -> tensor<4x128x1xf16>
  %d = tosa.sub %y, %m : (tensor<4x128x128xf16>, tensor<4x128x1xf16>) -> tensor<4x128x128xf16>
  %e = tosa.exp %d : (tensor<4x128x128xf16>) -> tensor<4x128x128xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x128x128xf16>) -> tensor<4x128x1xf16>
  %p = tosa.reciprocal %sum : (tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
  %pn = tosa.mul %e, %p, %shift : (tensor<4x128x128xf16>, tensor<4x128x1xf16>, tensor<1xi8>) -> tensor<4x128x128xf16>
  %o32 = tosa.matmul %pn, %v, %zp, %zp : (tensor<4x128x128xf16>, tensor<4x128x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x128x64xf32>
  %o = tosa.cast %o32 : (tensor<4x128x64xf32>) -> tensor<4x128x64xf16>
  return %o : tensor<4x128x64xf16>
}

// A mask computed from the indices: row i sees keys 66 - 7i and later, so
// the first rows' first blocks of keys are all -inf. The softmax in f32 and its
// result rounded to f16 for P . V, whose f32 result is returned as it is;
// two batch dims, 5 queries of 32 dims, 70 keys, 40 value dims.
func.func @attention_hidden_f32_softmax(%q: tensor<2x3x5x32xf16>, %k: tensor<2x3x70x32xf16>, %v: tensor<2x3x70x40xf16>) -> tensor<2x3x5x40xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.17677669 : f32
  %c7 = arith.constant 7 : index
  %c66 = arith.constant 66 : index
  %es = tensor.empty() : tensor<2x3x5x70xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x3x5x70xf32>) -> tensor<2x3x5x70xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x3x5x32xf16>, tensor<2x3x70x32xf16>) outs(%fs : tensor<2x3x5x70xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x3x5x70xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x3x5x70xf32>) outs(%es : tensor<2x3x5x70xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %i7 = arith.muli %i, %c7 : index
    %t = arith.addi %j, %i7 : index
    %hidden = arith.cmpi ult, %t, %c66 : index
    %0 = arith.mulf %in, %scale : f32
    %1 = arith.select %hidden, %ninf, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x3x5x70xf32>
  %er = tensor.empty() : tensor<2x3x5xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%y : tensor<2x3x5x70xf32>) outs(%fm : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %o : f32
    linalg.yield %0 : f32
  } -> tensor<2x3x5xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%y, %m : tensor<2x3x5x70xf32>, tensor<2x3x5xf32>) outs(%fz : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %0 = arith.subf %in, %mx : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %o : f32
    linalg.yield %2 : f32
  } -> tensor<2x3x5xf32>
  %ep = tensor.empty() : tensor<2x3x5x70xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %m, %l : tensor<2x3x5x70xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) outs(%ep : tensor<2x3x5x70xf16>) {
  ^bb0(%in: f32, %mx: f32, %sum: f32, %o: f16):
    %0 = arith.subf %in, %mx : f32
    %1 = math.exp %0 : f32
    %2 = arith.divf %1, %sum : f32
    %3 = arith.truncf %2 : f32 to f16
    linalg.yield %3 : f16
  } -> tensor<2x3x5x70xf16>
  %eo = tensor.empty() : tensor<2x3x5x40xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x3x5x40xf32>) -> tensor<2x3x5x40xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, n, j) -> (b, h, i, j)>, affine_map<(b, h, i, n, j) -> (b, h, j, n)>, affine_map<(b, h, i, n, j) -> (b, h, i, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x3x5x70xf16>, tensor<2x3x70x40xf16>) outs(%fo : tensor<2x3x5x40xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x3x5x40xf32>
  return %o : tensor<2x3x5x40xf32>
}

// f32 attention (a ViT's, and a decoder's with a binding mask): on CUDA the
// same kernel, its products on tf32 tensor cores as 3xTF32 (each operand a
// tf32 part plus a tf32 remainder), as accurate as f32; one tf32 product
// with --precision=tf32.
func.func @attention_vit_f32(%q: tensor<6x197x64xf32>, %k: tensor<6x197x64xf32>, %v: tensor<6x197x64xf32>) -> tensor<6x197x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<6x197x64xf32>) -> tensor<6x64x197xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<6x197x64xf32>, tensor<6x64x197xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x197x197xf32>
  %y = tosa.mul %s, %scale, %shift : (tensor<6x197x197xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<6x197x197xf32>
  %m = tosa.reduce_max %y {axis = 2 : i32} : (tensor<6x197x197xf32>) -> tensor<6x197x1xf32>
  %d = tosa.sub %y, %m : (tensor<6x197x197xf32>, tensor<6x197x1xf32>) -> tensor<6x197x197xf32>
  %e = tosa.exp %d : (tensor<6x197x197xf32>) -> tensor<6x197x197xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<6x197x197xf32>) -> tensor<6x197x1xf32>
  %p = tosa.reciprocal %sum : (tensor<6x197x1xf32>) -> tensor<6x197x1xf32>
  %pn = tosa.mul %e, %p, %shift : (tensor<6x197x197xf32>, tensor<6x197x1xf32>, tensor<1xi8>) -> tensor<6x197x197xf32>
  %o = tosa.matmul %pn, %v, %zp, %zp : (tensor<6x197x197xf32>, tensor<6x197x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x197x64xf32>
  return %o : tensor<6x197x64xf32>
}

func.func @attention_mask_f32(%q: tensor<4x128x64xf32>, %k: tensor<4x128x64xf32>, %v: tensor<4x128x64xf32>, %mask: tensor<1x128x128xf32>) -> tensor<4x128x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x128x64xf32>) -> tensor<4x64x128xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x128x64xf32>, tensor<4x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x128x128xf32>
  %y0 = tosa.mul %s, %scale, %shift : (tensor<4x128x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x128x128xf32>
  %y = tosa.add %y0, %mask : (tensor<4x128x128xf32>, tensor<1x128x128xf32>) -> tensor<4x128x128xf32>
  %m = tosa.reduce_max %y {axis = 2 : i32} : (tensor<4x128x128xf32>) -> tensor<4x128x1xf32>
  %d = tosa.sub %y, %m : (tensor<4x128x128xf32>, tensor<4x128x1xf32>) -> tensor<4x128x128xf32>
  %e = tosa.exp %d : (tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x128x128xf32>) -> tensor<4x128x1xf32>
  %p = tosa.reciprocal %sum : (tensor<4x128x1xf32>) -> tensor<4x128x1xf32>
  %pn = tosa.mul %e, %p, %shift : (tensor<4x128x128xf32>, tensor<4x128x1xf32>, tensor<1xi8>) -> tensor<4x128x128xf32>
  %o = tosa.matmul %pn, %v, %zp, %zp : (tensor<4x128x128xf32>, tensor<4x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x128x64xf32>
  return %o : tensor<4x128x64xf32>
}
