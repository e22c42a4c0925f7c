// A phased function (module format 1.10): the first phase counts the
// positive elements of x, the second reads the count on the host and
// returns that many elements of x; the count is returned too.
func.func @phases(%x: tensor<16xf32>) -> (tensor<?xf32>, tensor<i64>) {
  %zero = arith.constant 0.0 : f32
  %z64 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%z64 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<16xf32>) outs(%z : tensor<i64>) {
  ^bb0(%v: f32, %acc: i64):
    %p = arith.cmpf ogt, %v, %zero : f32
    %one = arith.extui %p : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %read = tensor.extract %count[] : tensor<i64>
  %n = arith.index_cast %read : i64 to index
  %part = tensor.extract_slice %x[0] [%n] [1] : tensor<16xf32> to tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.exp ins(%part : tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  return %r, %count : tensor<?xf32>, tensor<i64>
}
