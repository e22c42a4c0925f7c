// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-plan-host %s | FileCheck %s

// A call's scalar operands are the step's push constants, as 32-bit words
// after the bindings (`push <hex words>`): an f32's bit pattern, an f16's
// zero-extended, an i1 as 0 or 1, an i64 as two words, the low one first.

// CHECK-LABEL: func.func @scalars(
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] output0[0:64] push 0x3fc00000 0x0000bc00 0x00000001 0x00000003 0x00000001 0xffffffff"
// CHECK-SAME:                  "dispatch @d output0[0:64] output1[0:64] push 0xbf800000 0x00003c00 0x00000000 0xfffffffe 0xffffffff 0x00000007"]
func.func private @d(tensor<16xf32>, f32, f16, i1, i64, i32) -> tensor<16xf32> attributes {kiln.dispatch}
func.func @scalars(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %s = arith.constant 1.5 : f32
  %h = arith.constant -1.0 : f16
  %t = arith.constant true
  %n = arith.constant 4294967299 : i64
  %m = arith.constant -1 : i32
  %0 = call @d(%x, %s, %h, %t, %n, %m) : (tensor<16xf32>, f32, f16, i1, i64, i32) -> tensor<16xf32>
  %s1 = arith.constant -1.0 : f32
  %h1 = arith.constant 1.0 : f16
  %f1 = arith.constant false
  %n1 = arith.constant -2 : i64
  %m1 = arith.constant 7 : i32
  %1 = call @d(%0, %s1, %h1, %f1, %n1, %m1) : (tensor<16xf32>, f32, f16, i1, i64, i32) -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}

// -----

// An index (an extent, issue 19) travels as an i64: two words.

// CHECK-LABEL: func.func @index_operand(
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] output0[0:64] push 0x00000003 0x00000000"]
func.func private @d(tensor<16xf32>, index) -> tensor<16xf32> attributes {kiln.dispatch}
func.func @index_operand(%x: tensor<16xf32>) -> tensor<16xf32> {
  %i = arith.constant 3 : index
  %0 = call @d(%x, %i) : (tensor<16xf32>, index) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
