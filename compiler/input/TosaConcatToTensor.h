//===- TosaConcatToTensor.h - tosa.concat as tensor.concat ------*- C++ -*-===//
#ifndef KILN_COMPILER_INPUT_TOSACONCATTOTENSOR_H
#define KILN_COMPILER_INPUT_TOSACONCATTOTENSOR_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// Rewrites tosa.concat as tensor.concat along the same axis.
void populateTosaConcatToTensorPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_INPUT_TOSACONCATTOTENSOR_H
