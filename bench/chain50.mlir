// 50 small dependent dispatches (bench/README.md): x = reverse(x) + 1, 50
// times over 1024 floats, so the result is x + 50. A reverse reads its
// input through tensor.extract, which neither elementwise fusion nor
// dispatch formation fuses across, so each reverse roots a dispatch and the
// add that follows it joins that dispatch: 50 dispatches, each one
// workgroup of 256 threads. What is timed is the host's cost of a call.
func.func @chain50(%x0: tensor<1024xf32>) -> tensor<1024xf32> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1024xf32>}> : () -> tensor<1024xf32>
  %r0 = tosa.reverse %x0 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x1 = tosa.add %r0, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r1 = tosa.reverse %x1 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x2 = tosa.add %r1, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r2 = tosa.reverse %x2 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x3 = tosa.add %r2, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r3 = tosa.reverse %x3 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x4 = tosa.add %r3, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r4 = tosa.reverse %x4 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x5 = tosa.add %r4, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r5 = tosa.reverse %x5 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x6 = tosa.add %r5, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r6 = tosa.reverse %x6 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x7 = tosa.add %r6, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r7 = tosa.reverse %x7 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x8 = tosa.add %r7, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r8 = tosa.reverse %x8 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x9 = tosa.add %r8, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r9 = tosa.reverse %x9 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x10 = tosa.add %r9, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r10 = tosa.reverse %x10 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x11 = tosa.add %r10, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r11 = tosa.reverse %x11 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x12 = tosa.add %r11, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r12 = tosa.reverse %x12 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x13 = tosa.add %r12, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r13 = tosa.reverse %x13 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x14 = tosa.add %r13, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r14 = tosa.reverse %x14 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x15 = tosa.add %r14, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r15 = tosa.reverse %x15 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x16 = tosa.add %r15, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r16 = tosa.reverse %x16 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x17 = tosa.add %r16, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r17 = tosa.reverse %x17 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x18 = tosa.add %r17, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r18 = tosa.reverse %x18 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x19 = tosa.add %r18, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r19 = tosa.reverse %x19 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x20 = tosa.add %r19, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r20 = tosa.reverse %x20 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x21 = tosa.add %r20, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r21 = tosa.reverse %x21 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x22 = tosa.add %r21, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r22 = tosa.reverse %x22 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x23 = tosa.add %r22, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r23 = tosa.reverse %x23 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x24 = tosa.add %r23, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r24 = tosa.reverse %x24 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x25 = tosa.add %r24, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r25 = tosa.reverse %x25 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x26 = tosa.add %r25, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r26 = tosa.reverse %x26 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x27 = tosa.add %r26, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r27 = tosa.reverse %x27 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x28 = tosa.add %r27, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r28 = tosa.reverse %x28 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x29 = tosa.add %r28, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r29 = tosa.reverse %x29 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x30 = tosa.add %r29, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r30 = tosa.reverse %x30 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x31 = tosa.add %r30, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r31 = tosa.reverse %x31 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x32 = tosa.add %r31, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r32 = tosa.reverse %x32 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x33 = tosa.add %r32, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r33 = tosa.reverse %x33 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x34 = tosa.add %r33, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r34 = tosa.reverse %x34 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x35 = tosa.add %r34, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r35 = tosa.reverse %x35 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x36 = tosa.add %r35, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r36 = tosa.reverse %x36 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x37 = tosa.add %r36, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r37 = tosa.reverse %x37 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x38 = tosa.add %r37, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r38 = tosa.reverse %x38 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x39 = tosa.add %r38, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r39 = tosa.reverse %x39 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x40 = tosa.add %r39, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r40 = tosa.reverse %x40 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x41 = tosa.add %r40, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r41 = tosa.reverse %x41 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x42 = tosa.add %r41, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r42 = tosa.reverse %x42 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x43 = tosa.add %r42, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r43 = tosa.reverse %x43 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x44 = tosa.add %r43, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r44 = tosa.reverse %x44 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x45 = tosa.add %r44, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r45 = tosa.reverse %x45 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x46 = tosa.add %r45, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r46 = tosa.reverse %x46 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x47 = tosa.add %r46, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r47 = tosa.reverse %x47 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x48 = tosa.add %r47, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r48 = tosa.reverse %x48 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x49 = tosa.add %r48, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %r49 = tosa.reverse %x49 {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %x50 = tosa.add %r49, %one : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %x50 : tensor<1024xf32>
}
