// RUN: kiln-compile %s --target-device=cuda,hip,cpu --cuda-target=sm_80 --hip-target=gfx942 -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda --target-device=rocm --target-device=cpu --target-device=hip --cuda-target=sm_80 --hip-target=mi300x -o %t.repeated.kiln
// RUN: cmp %t.kiln %t.repeated.kiln
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input="4xf32=[1 2 3 4]" --input="4xf32=[10 20 30 40]" | FileCheck %s --check-prefix=EXEC
// RUN: kiln-compile %s --target-device=cuda,amdgpu --cuda-target=h100 --hip-target=gfx1100 -o %t.gpus.kiln
// RUN: kiln-dump-module %t.gpus.kiln | FileCheck %s --check-prefix=GPUS

// CUDA, AMD and CPU code in one module: each backend's variants follow the
// previous ones' (PTX, with a cubin before it where ptxas is installed;
// then the code object; then the shared object), and a device runs the
// first it accepts: the CPU variant on local-sync. --target-device given
// several times is the same as the comma list, and a device named twice
// (hip and its alias rocm) is compiled once.

// CHECK:      executable 0 'dispatches'
// CHECK:        format 'cuda-{{cubin|ptx}}', target 'sm_80'
// CHECK:        format 'amdgpu-hsaco', target 'gfx942'
// CHECK-NEXT:     entry point 0 'add_dispatch_0': workgroup size {{[0-9]+}}x1x1
// CHECK-NEXT:   variant {{[0-9]}}: format 'cpu-elf-x86_64', target 'x86-64-v3'

// EXEC:       EXEC @add
// EXEC-NEXT:  4xf32=11 22 33 44

// GPUS:       format 'cuda-{{cubin|ptx}}', target 'sm_90a'
// GPUS:       format 'amdgpu-hsaco', target 'gfx1100'
// GPUS-NOT:   cpu-elf

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
