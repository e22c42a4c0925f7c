//===- Specializations.h - Functions standing in for others ---------------===//
//
// A function of a module may list specializations (module.fbs Function,
// minor version 6): other functions computing its results for the calls
// whose input shapes their signatures accept, static where it has a
// dynamic dimension (kiln-compile --specialize). The verifier (a
// specialization's signature must refine its general function's) and the
// runtime (which calls a specialization accepts) share what "accepts"
// means.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_SPECIALIZATIONS_H
#define KILN_SCHEMA_SPECIALIZATIONS_H

#include <cstdint>
#include <span>

namespace kiln::schema {

/// Function.specialization_of when the function specializes none.
inline constexpr uint32_t kNoSpecializationOf = 0xFFFFFFFFu;

/// Whether a tensor of shape `dims` fits a declared shape `declared` (-1:
/// any extent): the same rank, each static extent equal. A shape with -1s
/// fits where its dynamic extents are dynamic in `declared` too.
inline bool dimsFit(std::span<const int64_t> declared,
                    std::span<const int64_t> dims) {
  if (declared.size() != dims.size())
    return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (declared[d] >= 0 && declared[d] != dims[d])
      return false;
  return true;
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_SPECIALIZATIONS_H
