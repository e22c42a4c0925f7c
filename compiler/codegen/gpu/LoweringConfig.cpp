//===- LoweringConfig.cpp -------------------------------------------------===//

#include "compiler/codegen/gpu/LoweringConfig.h"

using namespace mlir;

namespace kiln {

void setLoweringConfig(Operation *op, StringRef kernel,
                       ArrayRef<NamedAttribute> entries) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute> all = {
      b.getNamedAttr("kernel", b.getStringAttr(kernel))};
  llvm::append_range(all, entries);
  op->setAttr(kLoweringConfigAttr, b.getDictionaryAttr(all));
}

DictionaryAttr getLoweringConfig(Operation *op) {
  return op->getAttrOfType<DictionaryAttr>(kLoweringConfigAttr);
}

int64_t getLoweringConfigInt(Operation *op, StringRef key, int64_t fallback) {
  DictionaryAttr config = getLoweringConfig(op);
  auto value = config ? config.getAs<IntegerAttr>(key) : IntegerAttr();
  return value ? value.getInt() : fallback;
}

} // namespace kiln
