// REQUIRES: ptxas
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --cuda-use-ptxas -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// ptxas accepts the reduction kernels' PTX (shuffles of f32, of f16 and i1
// widened to 32 bits, of i64 in two halves; shared partials; barriers) and
// the vectorized elementwise kernels' (f32 and f16): the module holds a
// cubin before the PTX.

// CHECK: format 'cuda-cubin', target 'sm_90a'
// CHECK: format 'cuda-ptx', target 'sm_90a'

// Softmax's first two steps without the exp (whose polynomial needs
// libdevice's fma when lowered for NVVM, found only through CUDA_HOME): a
// row max, and the max subtracted from each row as 4-float vectors.
func.func @minus_row_max(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<64x4096xf32>) -> tensor<64x1xf32>
  %0 = tosa.sub %x, %m : (tensor<64x4096xf32>, tensor<64x1xf32>) -> tensor<64x4096xf32>
  return %0 : tensor<64x4096xf32>
}

func.func @sum_f16(%x: tensor<16x300xf16>) -> tensor<16x1xf16> {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<16x300xf16>) -> tensor<16x1xf16>
  return %0 : tensor<16x1xf16>
}

func.func @all_rows(%x: tensor<8x200xi1>) -> tensor<8x1xi1> {
  %0 = tosa.reduce_all %x {axis = 1 : i32} : (tensor<8x200xi1>) -> tensor<8x1xi1>
  return %0 : tensor<8x1xi1>
}

func.func @sum_columns_i64(%x: tensor<100x24xi64>) -> tensor<24xi64> {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<24xi64>
  %c = linalg.fill ins(%zero : i64) outs(%e : tensor<24xi64>) -> tensor<24xi64>
  %0 = linalg.reduce ins(%x : tensor<100x24xi64>) outs(%c : tensor<24xi64>) dimensions = [0]
    (%in: i64, %acc: i64) {
      %s = arith.addi %in, %acc : i64
      linalg.yield %s : i64
    }
  return %0 : tensor<24xi64>
}

func.func @add_f16(%a: tensor<256x64xf16>, %b: tensor<1x64xf16>) -> tensor<256x64xf16> {
  %0 = tosa.add %a, %b : (tensor<256x64xf16>, tensor<1x64xf16>) -> tensor<256x64xf16>
  return %0 : tensor<256x64xf16>
}
