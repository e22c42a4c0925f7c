// RUN: kiln-opt --split-input-file --pass-pipeline='builtin.module(func.func(kiln-gpu-unroll-reductions))' %s | FileCheck %s

// `unroll_reductions = 8` (kiln-gpu-tile, a thread per output over a
// dynamic extent): a 64-step innermost loop is unrolled by 8 (8 steps of
// 8 loads), a 3-step one fully, a loop of unknown trip count not at all.

// CHECK-LABEL: func.func @unrolled(
// CHECK:         scf.for %{{.+}} = %c0 to %c64 step %c8
// CHECK-COUNT-8:   memref.load %arg0
// CHECK:           scf.yield
// CHECK-NOT:     scf.for %{{.+}} = %c0 to %c3
// CHECK-COUNT-3: memref.load %arg1
// CHECK:         scf.for %{{.+}} = %c0 to %arg2 step %c1
// CHECK-COUNT-1:   memref.load %arg0
// CHECK:           scf.yield
func.func @unrolled(%a: memref<64xf32>, %b: memref<3xf32>, %n: index) -> (f32, f32, f32) attributes {kiln.lowering_config = {kernel = "tiled", unroll_reductions = 8 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  %t = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %b[%i] : memref<3xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  %u = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  return %s, %t, %u : f32, f32, f32
}

// -----

// Without the entry nothing changes.

// CHECK-LABEL: func.func @kept(
// CHECK:         scf.for %{{.+}} = %c0 to %c64 step %c1
// CHECK-COUNT-1:   memref.load
// CHECK:           scf.yield
func.func @kept(%a: memref<64xf32>) -> f32 attributes {kiln.lowering_config = {kernel = "tiled"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  return %s : f32
}
