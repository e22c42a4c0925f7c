// REQUIRES: ptxas
// RUN: env -u CUDA_HOME kiln-compile %s --target-device=cuda --cuda-target=sm_90a --cuda-use-ptxas -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s --check-prefix=DUMP
// RUN: strings %t.kiln | FileCheck %s

// arith.remf (ONNX Mod with fmod=1) becomes a call of libdevice's fmod
// (DeviceLibraryCalls.h): upstream's pipeline would have made it llvm.frem,
// which NVVM refuses ("failed to legalize operation 'llvm.frem'"). The
// vectorized f32 loop calls it once per element, f16 goes through f32, f64
// calls __nv_fmod. Linked from the libdevice next to ptxas (CUDA_HOME unset,
// as lit runs this) and inlined: nothing is left extern and ptxas
// assembles it.

// DUMP: format 'cuda-cubin', target 'sm_90a'
// CHECK-NOT:   .extern
// CHECK-LABEL: .entry remf_f32_dispatch_0
// CHECK:       ld.global.v4.b32
// CHECK-LABEL: .entry remf_f16_dispatch_0
// CHECK:       cvt.f32.f16
// CHECK:       cvt.rn.f16.f32
// CHECK-LABEL: .entry remf_f64_dispatch_0
// CHECK:       ld.global.b64

func.func @remf_f32(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.remf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @remf_f16(%x: tensor<5xf16>, %y: tensor<5xf16>) -> tensor<5xf16> {
  %e = tensor.empty() : tensor<5xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<5xf16>, tensor<5xf16>) outs(%e : tensor<5xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %m = arith.remf %a, %b : f16
    linalg.yield %m : f16
  } -> tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @remf_f64(%x: tensor<5xf64>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %e = tensor.empty() : tensor<5xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<5xf64>, tensor<5xf64>) outs(%e : tensor<5xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.remf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<5xf64>
  return %r : tensor<5xf64>
}
