// RUN: rm -rf %t && mkdir -p %t/gfx942 %t/gfx950 %t/gfx1201 %t/nolib
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx942 --dump-executable-binaries-to=%t/gfx942 -o %t/gfx942.kiln
// RUN: llvm-readelf --syms --dyn-syms %t/gfx942/hip_gfx942.amdgpu-hsaco | FileCheck %s --check-prefix=SYMS
// RUN: llvm-objdump -d --mcpu=gfx942 %t/gfx942/hip_gfx942.amdgpu-hsaco | FileCheck %s --check-prefix=ASM
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx950 --dump-executable-binaries-to=%t/gfx950 -o %t/gfx950.kiln
// RUN: llvm-readelf --syms --dyn-syms %t/gfx950/hip_gfx950.amdgpu-hsaco | FileCheck %s --check-prefix=SYMS
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx1201 --dump-executable-binaries-to=%t/gfx1201 -o %t/gfx1201.kiln
// RUN: llvm-readelf --syms --dyn-syms %t/gfx1201/hip_gfx1201.amdgpu-hsaco | FileCheck %s --check-prefix=SYMS
// RUN: not kiln-compile %s --target-device=hip --hip-target=gfx942 --hip-bc-dir=%t/nolib -o %t/x.kiln 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: kiln-compile %S/code_object.mlir --target-device=hip --hip-target=gfx942 --hip-bc-dir=%t/nolib -o %t/nolib.kiln

// ROCm's device libraries are linked only where kernels call them, and only
// what they call: fmod (arith.remf) is ocml's __ocml_fmod_f32/_f64 (the
// names DeviceLibraryCalls.h passes for AMD where CUDA passes libdevice's),
// the polynomial for exp rounds with __ocml_floor_f32, and erf is ocml's
// __ocml_erf_f32 (upstream's ROCDL lowering calls it; it is shorter than
// MLIR's rational approximation). Everything but
// the kernels is internalized and inlined, so the code object defines and
// exports the kernels and their descriptors and nothing of ocml, and has no
// undefined symbol (lld links it with --no-undefined). The control
// variables ocml reads (__oclc_ISA_version, __oclc_daz_opt, ...) are
// defined by Kiln for the chip, also for gfx950 and gfx1201, for which
// ROCm 5.2's bitcode has no oclc_isa_version file. Code calling no library
// (code_object.mlir) needs no bitcode directory at all; code that does, and
// finds none, is an error naming the file and the flag.

// SYMS:     Symbol table '.dynsym'
// SYMS-NOT: UND {{[_a-z]}}
// SYMS-NOT: __ocml
// SYMS-NOT: __oclc
// SYMS-DAG: remf_f32_dispatch_0{{$}}
// SYMS-DAG: remf_f32_dispatch_0.kd
// SYMS-DAG: remf_f64_dispatch_0.kd
// SYMS-DAG: exp_dispatch_0.kd
// SYMS-DAG: erf_dispatch_0.kd

// ASM:     <remf_f32_dispatch_0>:
// ASM-NOT: s_swappc
// ASM:     s_endpgm
// ASM:     <exp_dispatch_0>:
// ASM-NOT: s_swappc
// ASM:     v_floor_f32
// ASM:     s_endpgm
// ASM:     <erf_dispatch_0>:
// ASM-NOT: s_swappc
// ASM:     v_exp_f32
// ASM:     s_endpgm

// MISSING: error: the kernels call __ocml_* functions, but {{.*}}nolib/ocml.bc cannot be read: No such file or directory (point --hip-bc-dir at ROCm's device bitcode, amdgcn/bitcode)

func.func @remf_f32(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.remf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
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

func.func @exp(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = math.exp %a : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

func.func @erf(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = math.erf %a : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}
