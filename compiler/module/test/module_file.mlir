// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// The output is replaced by renaming a new file over it, never rewritten in
// place: a runtime maps module files, and a second name for the old file
// (here a hard link) keeps the old bytes.
// RUN: rm -f %t.link && ln %t.kiln %t.link && cp %t.kiln %t.before
// RUN: kiln-compile %s --target-device=cpu --cpu-target=x86-64-v2 -o %t.kiln
// RUN: cmp %t.link %t.before
// RUN: not cmp %t.kiln %t.before

// Constants follow the flatbuffer in their own page-aligned segment, which
// ends where the 16-byte checksum footer starts.
// CHECK: module 'module': version 1.2, [[#SIZE:]] bytes
// CHECK: constants: 64 bytes in a segment at offset [[#SIZE-80]] (4096-byte aligned)

func.func @scale(%x: tensor<16xf32>) -> tensor<16xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.mul ins(%x, %c : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
