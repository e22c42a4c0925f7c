// A function whose shape program reads input values (module format 1.8):
// a float scale as a double (real nodes: floor(8 * s)) and a bool counted
// as 0 or 1, summed into the extent of a slice of x.
func.func @values(%x: tensor<16xf32>, %s: tensor<1xf32>, %c: tensor<2xi1>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %eight = arith.constant 8.0 : f64
  %e = tensor.extract %s[%c0] : tensor<1xf32>
  %w = arith.extf %e : f32 to f64
  %p = arith.mulf %eight, %w : f64
  %f = math.floor %p : f64
  %i = arith.fptosi %f : f64 to i64
  %n0 = arith.index_cast %i : i64 to index
  %b = tensor.extract %c[%c1] : tensor<2xi1>
  %bi = arith.index_castui %b : i1 to index
  %n = arith.addi %n0, %bi : index
  %part = tensor.extract_slice %x[0] [%n] [1] : tensor<16xf32> to tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.exp ins(%part : tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
