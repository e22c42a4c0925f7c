// A blob holding 8 bytes for a 16-byte tensor.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.constant dense_resource<w> : tensor<4xf32>
  %0 = tosa.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}
