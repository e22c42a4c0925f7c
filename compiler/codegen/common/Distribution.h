//===- Distribution.h - What distributing a dispatch must respect ---------===//
#ifndef KILN_COMPILER_CODEGEN_COMMON_DISTRIBUTION_H
#define KILN_COMPILER_CODEGEN_COMMON_DISTRIBUTION_H

#include "mlir/IR/Block.h"

namespace kiln {

/// True if some op of `entry` (a dispatch's body), outside the ops in
/// `loops` (whose regions are not looked at), may write a binding: an
/// argument of `entry` or a view of one. Each workgroup (and on a GPU each
/// thread) runs everything outside its loop, so such a write (a whole-tensor
/// copy into an output) would run once per workgroup or thread and overwrite
/// the tiles the others wrote. Ops whose effects are unknown count as writes.
bool writesBindingOutside(mlir::Block &entry,
                          llvm::ArrayRef<mlir::Operation *> loops);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_COMMON_DISTRIBUTION_H
