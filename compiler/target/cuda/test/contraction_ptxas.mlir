// REQUIRES: ptxas
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --cuda-use-ptxas -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// ptxas accepts the tensor-core kernel's PTX for sm_90a: the module holds a
// cubin before the PTX.

// CHECK: format 'cuda-cubin', target 'sm_90a'
// CHECK: format 'cuda-ptx', target 'sm_90a'

func.func @f16(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>) -> tensor<128x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x256xf16>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %m : tensor<128x256xf32>
}
