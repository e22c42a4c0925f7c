// Compiler crash (SIGSEGV in kiln-form-dispatches): an elementwise op whose
// two operands are both produced by ops of the function (two named
// elementwise ops here; two tosa.reduce_sum in @two_reductions) dies in
// outlineGroup. The frame varies between runs of the same input
// (mlir::Block::findAncestorOpInBlock, mlir::Block::getParentOp,
// kiln::isClonableProducer, outlineGroup itself), which suggests a use of
// an erased op. The most common failure of the generator: 45 of the first
// 500 programs of --seed 2, 16 of the first 200 of --seed 1.
//
//   build/bin/kiln-compile tests/difftest/regressions/form_dispatches_two_producers_crash.mlir --target-device=cpu -o /tmp/r.kiln
//
// want: a module (exp(a) * -b; max of the two column sums).  got: exit 139.
func.func @two_elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.exp ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %n = linalg.negf ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.mul ins(%t, %n : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

func.func @two_reductions(%a: tensor<3x4xf32>, %b: tensor<7x4xf32>) -> tensor<1x4xf32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %1 = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<7x4xf32>) -> tensor<1x4xf32>
  %2 = tosa.maximum %0, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %2 : tensor<1x4xf32>
}
