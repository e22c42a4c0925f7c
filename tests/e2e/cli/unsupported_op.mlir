// Parses, but tosa.custom is an opaque operator no compiler can lower:
// kiln-compile must reject it with a diagnostic that names it (line 5).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %0 = tosa.custom %b {domain_name = "kiln_test", operator_name = "frobnicate", implementation_attrs = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
