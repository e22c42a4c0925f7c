// RUN: rm -rf %t && mkdir -p %t/gfx942 %t/gfx1100
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx942 --dump-executable-binaries-to=%t/gfx942 -o %t/gfx942.kiln
// RUN: kiln-dump-module %t/gfx942.kiln | FileCheck %s --check-prefix=DUMP942
// RUN: llvm-readelf --notes %t/gfx942/hip_gfx942.amdgpu-hsaco | FileCheck %s --check-prefixes=NOTES,NOTES942
// RUN: llvm-objdump -d --mcpu=gfx942 %t/gfx942/hip_gfx942.amdgpu-hsaco | FileCheck %s --check-prefix=ASM942
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx1100 --dump-executable-binaries-to=%t/gfx1100 -o %t/gfx1100.kiln
// RUN: llvm-readelf --notes %t/gfx1100/hip_gfx1100.amdgpu-hsaco | FileCheck %s --check-prefixes=NOTES,NOTES1100
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/gfx1100/hip_gfx1100.amdgpu-hsaco | FileCheck %s --check-prefix=ASM1100
// RUN: kiln-compile %s --target-device=hip --hip-target=gfx942 -o %t/ir.kiln --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=CHOICE

// The code objects of four dispatch kinds for an MI300X (gfx942: CDNA3,
// wave64) and an RX 7900 XTX (gfx1100: RDNA3, wave32), read as the runtime
// will read them: one amdhsa.kernels entry per entry point with its
// descriptor symbol, the kernarg segment holding one 8-byte pointer per
// binding, the workgroup size the kernel was generated for, LDS for the
// contractions' shared tiles (the f16 one's 32 x 32 on gfx942, 32 x 64 in
// wave32) and the reduction's partials (one float per
// wavefront: 4 wavefronts of 64, 8 of 32), and register counts. The f32
// contraction runs on the SIMT kernel (no cp.async, mma.sync or wgmma on
// AMD), the f16 one on MFMA (gfx942) and WMMA (gfx1100).

// DUMP942: variant 0: format 'amdgpu-hsaco', target 'gfx942'
// DUMP942: entry point 0 'add_dispatch_0': workgroup size 256x1x1, workgroup count 1x1x1, 3 bindings

// NOTES:          amdhsa.kernels:
// NOTES:          .group_segment_fixed_size: 0
// NOTES-NEXT:     .kernarg_segment_align: 8
// NOTES-NEXT:     .kernarg_segment_size: 24
// NOTES-NEXT:     .max_flat_workgroup_size: 256
// NOTES-NEXT:     .name: add_dispatch_0
// NOTES:          .sgpr_count: {{[1-9][0-9]*}}
// NOTES:          .symbol: add_dispatch_0.kd
// NOTES:          .vgpr_count: {{[1-9][0-9]*}}
// NOTES-NEXT:     .vgpr_spill_count: 0
// NOTES942-NEXT:  .wavefront_size: 64
// NOTES1100-NEXT: .wavefront_size: 32
// NOTES:          .group_segment_fixed_size: 4352
// NOTES:          .kernarg_segment_size: 24
// NOTES:          .name: matmul_dispatch_0
// NOTES942:       .group_segment_fixed_size: 2304
// NOTES1100:      .group_segment_fixed_size: 3328
// NOTES:          .name: matmul_f16_dispatch_0
// NOTES942:       .group_segment_fixed_size: 16
// NOTES1100:      .group_segment_fixed_size: 32
// NOTES-NEXT:     .kernarg_segment_align: 8
// NOTES-NEXT:     .kernarg_segment_size: 16
// NOTES:          .name: row_sum_dispatch_0
// NOTES942:       .wavefront_size: 64
// NOTES1100:      .wavefront_size: 32
// NOTES942:       amdhsa.target: amdgcn-amd-amdhsa--gfx942
// NOTES1100:      amdhsa.target: amdgcn-amd-amdhsa--gfx1100
// Code object version 5.
// NOTES:          amdhsa.version:
// NOTES-NEXT:     - 1
// NOTES-NEXT:     - 2

// ASM942-LABEL:   <add_dispatch_0>:
// ASM942:         global_load_dwordx4
// ASM942:         v_pk_add_f32
// ASM942:         global_store_dwordx4
// ASM942-LABEL:   <matmul_dispatch_0>:
// ASM942:         ds_write
// ASM942:         s_barrier
// ASM942:         ds_read2_b64
// ASM942:         v_fmac_f32
// ASM942-NOT:     v_mfma
// ASM942-LABEL:   <matmul_f16_dispatch_0>:
// ASM942:         v_mfma_f32_16x16x16_f16
// ASM942-LABEL:   <row_sum_dispatch_0>:
// ASM942:         ds_swizzle_b32
// ASM942:         s_barrier

// ASM1100-LABEL:  <add_dispatch_0>:
// ASM1100:        global_load_b128
// ASM1100-LABEL:  <matmul_dispatch_0>:
// ASM1100:        ds_load_2addr_b64
// ASM1100:        v_dual_fmac_f32
// ASM1100-NOT:    v_wmma
// ASM1100-LABEL:  <matmul_f16_dispatch_0>:
// ASM1100:        v_wmma_f32_16x16x16_f16
// ASM1100-LABEL:  <row_sum_dispatch_0>:
// ASM1100:        ds_bpermute_b32

// CHOICE-DAG: gpu.func @add_dispatch_0{{.*}}kernel = "tiled"
// CHOICE-DAG: gpu.func @matmul_dispatch_0{{.*}}kernel = "simt_contraction"
// CHOICE-DAG: gpu.func @matmul_f16_dispatch_0{{.*}}instruction = "mfma.m16n16k16.f16.f32", kernel = "matrix_contraction"
// CHOICE-DAG: gpu.func @row_sum_dispatch_0{{.*}}kernel = "reduction"
// CHOICE-NOT: nvgpu.
// CHOICE-NOT: nvvm.

func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.add ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

func.func @matmul_f16(%a: tensor<128x256xf16>, %b: tensor<256x128xf16>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf16>, tensor<256x128xf16>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

func.func @row_sum(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%x : tensor<64x4096xf32>) outs(%c : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}
