// RUN: kiln-compile %s --target-device=cuda --cuda-target=h100 -o %t.h100.kiln
// RUN: kiln-compile %s --target-device=cuda --cuda-target=hopper -o %t.hopper.kiln
// RUN: cmp %t.h100.kiln %t.hopper.kiln
// RUN: kiln-dump-module %t.h100.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda,cpu -o %t.multi.kiln
// RUN: kiln-dump-module %t.multi.kiln | FileCheck %s --check-prefix=MULTI
// RUN: not kiln-compile %s --target-device=cuda --cuda-target=h1000 -o %t.bad.kiln 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Product and code names select the arch-specific chip; PTX is always
// embedded (a cubin before it when ptxas is found), with the launch shape.

// CHECK:      format 'cuda-{{cubin|ptx}}', target 'sm_90a'
// CHECK:        entry point 0 'add_dispatch_0': workgroup size 256x1x1, workgroup count 4x1x1, 3 bindings
// CHECK:      format 'cuda-ptx', target 'sm_90a'

// MULTI:      format 'cuda-ptx', target 'sm_60'
// MULTI:      format 'cpu-elf-x86_64', target 'x86-64-v3'

// UNKNOWN: error: unknown --cuda-target 'h1000'; known: sm_60, {{.*}}, hopper, h100, h200, blackwell, b200

func.func @add(%lhs: tensor<4x1000xf32>, %rhs: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %0 = tosa.add %lhs, %rhs : (tensor<4x1000xf32>, tensor<4x1000xf32>) -> tensor<4x1000xf32>
  return %0 : tensor<4x1000xf32>
}
