//===- InvocationIo.cpp ---------------------------------------------------===//

#include "runtime/tooling/InvocationIo.h"

#include "runtime/tooling/Npy.h"
#include "runtime/tooling/TensorFormat.h"
#include "runtime/tooling/TensorParser.h"

#include <algorithm>

namespace kiln::tooling {

namespace {

std::string typeList(const std::vector<module::TensorSpec> &specs) {
  std::string out = "(";
  for (size_t i = 0; i < specs.size(); ++i)
    out +=
        strCat(i ? ", " : "", tensorTypeString(specs[i].Shape, specs[i].Type));
  return out + ")";
}

std::string shortened(const std::string &text) {
  return text.size() <= 80 ? text : text.substr(0, 80) + "...";
}

} // namespace

std::string signatureString(const module::FunctionSignature &signature) {
  return strCat(typeList(signature.Inputs), " -> ",
                typeList(signature.Outputs));
}

StatusOr<std::vector<HostTensor>>
parseInputs(const std::vector<std::string> &inputs,
            const module::FunctionSignature &signature) {
  if (inputs.size() != signature.Inputs.size())
    return KILN_ERROR(InvalidArgument, "function '", signature.Name, "' takes ",
                      signature.Inputs.size(), " inputs ",
                      typeList(signature.Inputs), " but ", inputs.size(),
                      " --input flags were given");
  std::vector<HostTensor> tensors;
  tensors.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const module::TensorSpec &expected = signature.Inputs[i];
    // Checked before the data is allocated, filled or read, so a wrong type
    // fails at once however large it is (a splat of 1 GiB for a 4xf32
    // input, a big .npy file).
    auto matchesSignature = [&](const ParsedTensorType &type) -> Status {
      // A dynamic dimension (-1) takes any size; the call checks what the
      // function needs of it (issue 19).
      auto dimMatches = [](int64_t want, int64_t got) {
        return want < 0 || want == got;
      };
      if (type.Type == expected.Type &&
          type.Shape.size() == expected.Shape.size() &&
          std::equal(expected.Shape.begin(), expected.Shape.end(),
                     type.Shape.begin(), dimMatches))
        return Status();
      // Where only a static dimension of a dynamic signature differs, name
      // it: the rest of the shape is free.
      std::string which;
      if (type.Type == expected.Type &&
          type.Shape.size() == expected.Shape.size())
        for (size_t d = 0; d < type.Shape.size() && which.empty(); ++d)
          if (expected.Shape[d] >= 0 && expected.Shape[d] != type.Shape[d])
            which =
                strCat(" (dimension ", d, " must be ", expected.Shape[d], ")");
      bool dynamic = std::any_of(expected.Shape.begin(), expected.Shape.end(),
                                 [](int64_t dim) { return dim < 0; });
      return KILN_ERROR(InvalidArgument, "input ", i, " of function '",
                        signature.Name, "' must be ",
                        tensorTypeString(expected.Shape, expected.Type),
                        ", but --input='", shortened(inputs[i]), "' is ",
                        tensorTypeString(type.Shape, type.Type),
                        dynamic ? which : std::string());
    };
    KILN_ASSIGN_OR_RETURN(HostTensor tensor,
                          parseTensor(inputs[i], matchesSignature));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

StatusOr<std::vector<OutputTarget>>
parseOutputTargets(const std::vector<std::string> &outputs,
                   const module::FunctionSignature &signature) {
  if (outputs.size() > signature.Outputs.size())
    return KILN_ERROR(InvalidArgument, outputs.size(),
                      " --output flags were given but function '",
                      signature.Name, "' has ", signature.Outputs.size(),
                      " outputs ", typeList(signature.Outputs));
  std::vector<OutputTarget> targets;
  for (const std::string &output : outputs) {
    OutputTarget target;
    if (output == "-") {
      target.TargetKind = OutputTarget::Kind::Print;
    } else if (output.empty()) {
      target.TargetKind = OutputTarget::Kind::Ignore;
    } else if (output[0] == '@' && output.size() > 1) {
      target.TargetKind = OutputTarget::Kind::Npy;
      target.Path = output.substr(1);
    } else {
      return KILN_ERROR(InvalidArgument, "invalid --output='",
                        shortened(output),
                        "': expected '-' (print), '@file.npy' (write) or "
                        "empty (ignore)");
    }
    targets.push_back(std::move(target));
  }
  targets.resize(signature.Outputs.size());
  return targets;
}

Status emitOutputs(const std::vector<HostTensor> &results,
                   const std::vector<OutputTarget> &targets,
                   std::ostream &out) {
  for (size_t i = 0; i < results.size(); ++i) {
    OutputTarget target = i < targets.size() ? targets[i] : OutputTarget{};
    switch (target.TargetKind) {
    case OutputTarget::Kind::Print:
      out << formatTensor(results[i]) << "\n";
      break;
    case OutputTarget::Kind::Npy: {
      Status status = writeNpy(target.Path, results[i]);
      if (!status.ok())
        return status.annotate(strCat("output ", i));
      break;
    }
    case OutputTarget::Kind::Ignore:
      break;
    }
  }
  return Status();
}

} // namespace kiln::tooling
