//===- InvocationIo.h - Tool inputs and outputs of one function call ------===//
//
// Turns --input strings into tensors checked against a function's signature,
// and sends results where the --output flags say. Knows the module API's
// signature type but no device, so it is testable without drivers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_INVOCATIONIO_H
#define KILN_RUNTIME_TOOLING_INVOCATIONIO_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/module/ModuleInstance.h"

#include <ostream>
#include <string>
#include <vector>

namespace kiln::tooling {

/// "(4xf32, 4xf32) -> (4xf32)".
std::string signatureString(const module::FunctionSignature &signature);

/// Parses every --input and checks count, element types and shapes against
/// `signature`; errors say which input and what was expected.
StatusOr<std::vector<HostTensor>>
parseInputs(const std::vector<std::string> &inputs,
            const module::FunctionSignature &signature);

struct OutputTarget {
  enum class Kind { Print, Npy, Ignore };
  Kind TargetKind = Kind::Print;
  std::string Path; // for Npy
};

/// Parses the --output flags; more flags than the function has outputs is an
/// error. Outputs without a flag are printed.
StatusOr<std::vector<OutputTarget>>
parseOutputTargets(const std::vector<std::string> &outputs,
                   const module::FunctionSignature &signature);

/// Prints or writes each result as its target says.
Status emitOutputs(const std::vector<HostTensor> &results,
                   const std::vector<OutputTarget> &targets, std::ostream &out);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_INVOCATIONIO_H
