//===- ConstantBytes.cpp - The bytes of a tensor constant -----------------===//

#include "compiler/globalopt/ConstantBytes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace kiln {

std::optional<ArrayRef<char>> constantBytes(ElementsAttr attr,
                                            int64_t elementBytes) {
  int64_t size = attr.getNumElements() * elementBytes;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || static_cast<int64_t>(blob->getData().size()) != size)
      return std::nullopt;
    return blob->getData();
  }
  return std::nullopt;
}

} // namespace kiln
