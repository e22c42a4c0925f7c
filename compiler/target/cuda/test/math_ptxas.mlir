// REQUIRES: ptxas
// RUN: env -u CUDA_HOME kiln-compile %s --target-device=cuda --cuda-target=sm_90a --cuda-use-ptxas -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// exp, tanh and log (polynomials of fma and floor), floor, sqrt and
// copysign assemble with CUDA_HOME unset, as lit runs this: the compiler
// finds libdevice next to ptxas (ptxas failed on '__nv_fmaf' before).

// CHECK: format 'cuda-cubin', target 'sm_90a'

func.func @math(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = math.exp %x : tensor<1024xf32>
  %1 = math.tanh %0 : tensor<1024xf32>
  %2 = math.absf %1 : tensor<1024xf32>
  %3 = math.log %2 : tensor<1024xf32>
  %4 = math.floor %3 : tensor<1024xf32>
  %5 = math.sqrt %2 : tensor<1024xf32>
  %6 = math.copysign %5, %4 : tensor<1024xf32>
  %7 = math.fma %6, %4, %x : tensor<1024xf32>
  return %7 : tensor<1024xf32>
}
