//===- Specializations.h - Functions standing in for others ---------------===//
//
// A function of a module may list specializations (module.fbs Function,
// minor version 6): other functions computing its results for the calls
// whose input shapes their signatures accept, static where it has a
// dynamic dimension (kiln-compile --specialize). The writer, the verifier
// and the runtime share what "accepts" means.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_SPECIALIZATIONS_H
#define KILN_SCHEMA_SPECIALIZATIONS_H

#include <cstdint>
#include <span>
#include <vector>

namespace kiln::schema {

/// Function.specialization_of when the function specializes none.
inline constexpr uint32_t kNoSpecializationOf = 0xFFFFFFFFu;

/// Whether a call with `shapes` fits a signature whose input shapes are
/// `declared` (-1: any extent): as many inputs, each of the same rank, each
/// static extent equal.
inline bool shapesFit(std::span<const std::vector<int64_t>> declared,
                      std::span<const std::vector<int64_t>> shapes) {
  if (declared.size() != shapes.size())
    return false;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (declared[i].size() != shapes[i].size())
      return false;
    for (size_t d = 0; d < shapes[i].size(); ++d)
      if (declared[i][d] >= 0 && declared[i][d] != shapes[i][d])
        return false;
  }
  return true;
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_SPECIALIZATIONS_H
