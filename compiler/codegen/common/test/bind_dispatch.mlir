// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-bind-dispatch %s | FileCheck %s

// (tensor inputs) -> (tensor results) becomes (input memrefs, output memrefs)
// -> (): inputs are read through `to_tensor restrict`, results are stored
// with `materialize_in_destination`.

// CHECK-LABEL: func.func private @add(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<4x8xf32>, %[[OUT:[^:]+]]: memref<4x8xf32>)
// CHECK-SAME:    attributes {kiln.dispatch} {
// CHECK-NEXT:  %[[TA:.+]] = bufferization.to_tensor %[[A]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:  %[[TB:.+]] = bufferization.to_tensor %[[B]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK:       %[[R:.+]] = linalg.add ins(%[[TA]], %[[TB]] : {{.*}})
// CHECK-NEXT:  bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]] : (tensor<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:  return{{$}}
func.func private @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// Functions not marked `kiln.dispatch` are left alone.
// CHECK-LABEL: func.func private @not_a_dispatch(
// CHECK-SAME:    %{{.+}}: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NOT:   bufferization
func.func private @not_a_dispatch(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}

// -----

// i1 is bound as one byte per element: an i1 input is truncated after the
// load, an i1 result is zero-extended before the store. Results are bound
// in order after the inputs.

// CHECK-LABEL: func.func private @bools(
// CHECK-SAME:    %[[X:[^:]+]]: memref<8xf32>, %[[M:[^:]+]]: memref<8xi8>, %[[OM:[^:]+]]: memref<8xi8>, %[[OX:[^:]+]]: memref<8xf32>)
// CHECK-SAME:    attributes {kiln.dispatch} {
// CHECK-DAG:   %[[TX:.+]] = bufferization.to_tensor %[[X]] restrict : memref<8xf32> to tensor<8xf32>
// CHECK-DAG:   %[[TM8:.+]] = bufferization.to_tensor %[[M]] restrict : memref<8xi8> to tensor<8xi8>
// CHECK:       %[[TM:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[TM8]] : tensor<8xi8>) outs(%{{.+}} : tensor<8xi1>)
// CHECK-NEXT:  ^bb0(%[[IN8:.+]]: i8, %{{.+}}: i1):
// CHECK-NEXT:    %[[T:.+]] = arith.trunci %[[IN8]] : i8 to i1
// CHECK-NEXT:    linalg.yield %[[T]] : i1
// CHECK:       %[[R:.+]]:2 = linalg.generic
// CHECK-SAME:    ins(%[[TX]], %[[TM]] : tensor<8xf32>, tensor<8xi1>)
// CHECK:       %[[R8:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[R]]#0 : tensor<8xi1>) outs(%{{.+}} : tensor<8xi8>)
// CHECK-NEXT:  ^bb0(%[[IN1:.+]]: i1, %{{.+}}: i8):
// CHECK-NEXT:    %[[Z:.+]] = arith.extui %[[IN1]] : i1 to i8
// CHECK-NEXT:    linalg.yield %[[Z]] : i8
// CHECK:       bufferization.materialize_in_destination %[[R8]] in restrict writable %[[OM]] : (tensor<8xi8>, memref<8xi8>) -> ()
// CHECK-NEXT:  bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[OX]] : (tensor<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:  return{{$}}
func.func private @bools(%a: tensor<8xf32>, %m: tensor<8xi1>) -> (tensor<8xi1>, tensor<8xf32>) attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<8xi1>
  %e2 = tensor.empty() : tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %m : tensor<8xf32>, tensor<8xi1>) outs(%e, %e2 : tensor<8xi1>, tensor<8xf32>) {
  ^bb0(%x: f32, %mm: i1, %o: i1, %o2: f32):
    %c = arith.cmpf ogt, %x, %z : f32
    %r = arith.andi %c, %mm : i1
    %s = arith.select %mm, %x, %z : f32
    linalg.yield %r, %s : i1, f32
  } -> (tensor<8xi1>, tensor<8xf32>)
  return %0#0, %0#1 : tensor<8xi1>, tensor<8xf32>
}

// -----

// An i1 input read element by element (a gather in a body) takes its byte
// and truncates it at the read: no converted copy of the whole tensor,
// which a GPU kernel would need as a temporary.

// CHECK-LABEL: func.func private @bool_gather(
// CHECK-SAME:    %[[I:[^:]+]]: memref<4xi64>, %[[M:[^:]+]]: memref<64x128xi8>, %[[OUT:[^:]+]]: memref<4xi8>)
// CHECK:       %[[TM8:.+]] = bufferization.to_tensor %[[M]] restrict : memref<64x128xi8> to tensor<64x128xi8>
// CHECK-NOT:   tensor<64x128xi1>
// CHECK:       linalg.generic
// CHECK:         %[[B:.+]] = tensor.extract %[[TM8]][%{{.+}}, %{{.+}}] : tensor<64x128xi8>
// CHECK-NEXT:    %[[T:.+]] = arith.trunci %[[B]] : i8 to i1
// CHECK-NEXT:    linalg.yield %[[T]] : i1
func.func private @bool_gather(%at: tensor<4xi64>, %m: tensor<64x128xi1>) -> tensor<4xi1> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xi1>
  %c3 = arith.constant 3 : index
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%at : tensor<4xi64>) outs(%e : tensor<4xi1>) {
  ^bb0(%i: i64, %o: i1):
    %j = arith.index_cast %i : i64 to index
    %v = tensor.extract %m[%c3, %j] : tensor<64x128xi1>
    linalg.yield %v : i1
  } -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// An input returned unchanged is still copied into its output binding.

// CHECK-LABEL: func.func private @passthrough(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<2x3xi32>, %[[OUT:[^:]+]]: memref<2x3xi32>)
// CHECK-NEXT:  %[[T:.+]] = bufferization.to_tensor %[[IN]] restrict
// CHECK-NEXT:  bufferization.materialize_in_destination %[[T]] in restrict writable %[[OUT]]
func.func private @passthrough(%a: tensor<2x3xi32>) -> tensor<2x3xi32> attributes {kiln.dispatch} {
  return %a : tensor<2x3xi32>
}

// -----

// Scalars after the tensors (push constants, kiln-hoist-dispatch-scalars)
// stay scalar arguments after the bindings.

// CHECK-LABEL: func.func private @scalar_operands(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4xf32>, %[[OUT:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: f32, %[[N:[^:]+]]: i64)
// CHECK:         linalg.fill ins(%[[S]] : f32)
// CHECK:         arith.sitofp %[[N]] : i64 to f32
func.func private @scalar_operands(%a: tensor<4xf32>, %s: f32, %n: i64) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %c = arith.sitofp %n : i64 to f32
    %p = arith.mulf %x, %c : f32
    %q = arith.addf %p, %y : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{dispatch operands must be tensors, then push constant scalars; got 'tensor<4xf32>'}}
func.func private @scalar_first(%s: f32, %a: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{dispatch operands must be tensors, then push constant scalars; got 'memref<4xf32>'}}
func.func private @memref_operand(%a: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  return %a : tensor<4xf32>
}

// -----

// A tensor without elements is bound as a 1-D empty buffer that is never
// read or written: an input becomes an empty tensor, an output is not
// stored.

// CHECK-LABEL: func.func private @zero_size(
// CHECK-SAME:    %[[A:[^:]+]]: memref<0xf32>, %[[B:[^:]+]]: memref<0xf32>, %[[OUT:[^:]+]]: memref<3x2xf32>, %[[EMPTY_OUT:[^:]+]]: memref<0xf32>)
// CHECK-NOT:   bufferization.to_tensor
// CHECK-DAG:   %[[TA:.+]] = tensor.empty() : tensor<3x0xf32>
// CHECK-DAG:   %[[TB:.+]] = tensor.empty() : tensor<0x2xf32>
// CHECK:       %[[R:.+]] = linalg.matmul ins(%[[TA]], %[[TB]] : {{.*}})
// CHECK:       bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-NOT:   materialize_in_destination
// CHECK:       return
func.func private @zero_size(%a: tensor<3x0xf32>, %b: tensor<0x2xf32>) -> (tensor<3x2xf32>, tensor<0x2xf32>) attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x0xf32>, tensor<0x2xf32>) outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0, %b : tensor<3x2xf32>, tensor<0x2xf32>
}
