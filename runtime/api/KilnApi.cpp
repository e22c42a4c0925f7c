//===- KilnApi.cpp - The C API over ModuleInstance and the HAL ------------===//

#include "runtime/api/kiln.h"

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/hal/BufferTransfer.h"
#include "runtime/hal/DriverRegistry.h"
#include "runtime/module/ModuleFile.h"
#include "runtime/module/ModuleInstance.h"
#include "runtime/module/Verifier.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

using namespace kiln;

struct KilnStatusImpl {
  StatusCode Code;
  std::string Message;
};

struct KilnDevice {
  std::shared_ptr<hal::Device> Device;
};

struct KilnFunction {
  KilnModule *Module;
  const module::FunctionSignature *Signature;
};

struct KilnModule {
  std::unique_ptr<module::ModuleInstance> Instance;
  std::vector<std::unique_ptr<KilnFunction>> Functions;
};

struct KilnOutputs {
  std::vector<HostTensor> Tensors;
};

struct KilnBuffer {
  std::shared_ptr<hal::Device> Device;
  std::shared_ptr<hal::Buffer> Buffer;
};

namespace {

// Returned when even a status cannot be allocated; kilnStatusFree knows it.
KilnStatusImpl OutOfMemoryStatus{StatusCode::ResourceExhausted,
                                 "RESOURCE_EXHAUSTED: out of memory"};

KilnStatus toC(const Status &status) {
  if (status.ok())
    return nullptr;
  auto *result = new (std::nothrow) KilnStatusImpl{status.code(), ""};
  if (!result)
    return &OutOfMemoryStatus;
  result->Message = status.toString();
  return result;
}

// No C++ exception may cross into C; the runtime raises none itself, but
// the standard library may (allocation).
template <typename Body> KilnStatus guarded(Body &&body) {
  try {
    return toC(body());
  } catch (const std::bad_alloc &) {
    return &OutOfMemoryStatus;
  } catch (const std::exception &error) {
    return toC(KILN_ERROR(Internal, "unexpected exception: ", error.what()));
  } catch (...) {
    return toC(KILN_ERROR(Internal, "unexpected exception"));
  }
}

Status nullArgument(const char *function, const char *argument) {
  return KILN_ERROR(InvalidArgument, function, ": ", argument, " is NULL");
}

StatusOr<KilnModule *>
wrapModule(KilnDevice *device, std::shared_ptr<const module::ModuleFile> file) {
  KILN_ASSIGN_OR_RETURN(
      std::unique_ptr<module::ModuleInstance> instance,
      module::ModuleInstance::create(device->Device, std::move(file)));
  auto result = std::make_unique<KilnModule>();
  result->Instance = std::move(instance);
  for (const std::string &name : result->Instance->functionNames()) {
    KILN_ASSIGN_OR_RETURN(const module::FunctionSignature *signature,
                          result->Instance->lookup(name));
    result->Functions.push_back(
        std::make_unique<KilnFunction>(KilnFunction{result.get(), signature}));
  }
  return result.release();
}

void describeType(const module::TensorSpec &spec, KilnTensor *out) {
  out->elementType = static_cast<int32_t>(spec.Type);
  out->rank = spec.Shape.size();
  out->shape = spec.Shape.empty() ? nullptr : spec.Shape.data();
  out->data = nullptr;
  // A dynamic dimension (-1) is the call's: the size is known per call.
  uint64_t bytes = elementTypeSize(spec.Type);
  for (int64_t dim : spec.Shape)
    bytes = dim < 0 ? 0 : bytes * static_cast<uint64_t>(dim);
  out->dataSize = static_cast<size_t>(bytes);
}

// The HAL buffers of `count` C buffers, which must belong to `device`.
StatusOr<std::vector<std::shared_ptr<hal::Buffer>>>
halBuffers(const std::string &function, const char *what,
           KilnBuffer *const *buffers, size_t count,
           const std::shared_ptr<hal::Device> &device) {
  std::vector<std::shared_ptr<hal::Buffer>> result;
  result.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (!buffers[i])
      return KILN_ERROR(InvalidArgument, "function @", function, " ", what, " ",
                        i, ": NULL buffer");
    if (buffers[i]->Device != device)
      return KILN_ERROR(InvalidArgument, "function @", function, " ", what, " ",
                        i, ": the buffer belongs to device ",
                        buffers[i]->Device->info().Uri,
                        ", not to the device the module was loaded for (",
                        device->info().Uri, ")");
    result.push_back(buffers[i]->Buffer);
  }
  return result;
}

bool hasDynamicShapes(const module::FunctionSignature &signature) {
  for (const auto *specs : {&signature.Inputs, &signature.Outputs})
    for (const module::TensorSpec &spec : *specs)
      for (int64_t dim : spec.Shape)
        if (dim < 0)
          return true;
  return false;
}

// The caller's input shapes, copied after each rank is checked against the
// signature's (so dims is read only as far as the function needs), each
// dimension >= 0 and the signature's where that is static. What the
// dimensions must give together (equalities, byte sizes against buffers) is
// the runtime's check of every call.
StatusOr<std::vector<std::vector<int64_t>>>
callerShapes(const char *api, const module::FunctionSignature &signature,
             const KilnShape *shapes, size_t count) {
  if (!shapes && count)
    return nullArgument(api, "inputShapes");
  if (count != signature.Inputs.size())
    return KILN_ERROR(InvalidArgument, api, ": function @", signature.Name,
                      " takes ", signature.Inputs.size(), " input(s), got ",
                      count, " shape(s)");
  std::vector<std::vector<int64_t>> result(count);
  for (size_t i = 0; i < count; ++i) {
    const module::TensorSpec &spec = signature.Inputs[i];
    const KilnShape &shape = shapes[i];
    if (shape.rank != spec.Shape.size())
      return KILN_ERROR(InvalidArgument, api, ": function @", signature.Name,
                        " input ", i, " has rank ", shape.rank, ", expected ",
                        spec.Shape.size(), " (",
                        tensorTypeString(spec.Shape, spec.Type), ")");
    if (shape.rank && !shape.dims)
      return KILN_ERROR(InvalidArgument, api, ": function @", signature.Name,
                        " input ", i, ": NULL dims for rank ", shape.rank);
    result[i].assign(shape.dims, shape.dims + shape.rank);
    for (size_t d = 0; d < shape.rank; ++d) {
      int64_t dim = result[i][d], expected = spec.Shape[d];
      if (dim < 0 || (expected >= 0 && dim != expected))
        return KILN_ERROR(InvalidArgument, api, ": function @", signature.Name,
                          " input ", i, " dimension ", d, " is ", dim,
                          ", expected ",
                          expected >= 0 ? std::to_string(expected)
                                        : std::string("a size >= 0"),
                          " (", tensorTypeString(spec.Shape, spec.Type), ")");
    }
  }
  return result;
}

// Writes the outputs' dimensions and byte sizes where the caller asked.
Status writeOutputShapes(const char *api, const module::FunctionSignature &sig,
                         const std::vector<module::TensorSpec> &outputs,
                         int64_t *const *dims, size_t *sizes) {
  for (size_t i = 0; dims && i < outputs.size(); ++i)
    if (!outputs[i].Shape.empty() && !dims[i])
      return KILN_ERROR(InvalidArgument, api, ": function @", sig.Name,
                        " output ", i, ": NULL outputDims for rank ",
                        outputs[i].Shape.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const module::TensorSpec &spec = outputs[i];
    if (dims)
      std::copy(spec.Shape.begin(), spec.Shape.end(), dims[i]);
    if (!sizes)
      continue;
    // The runtime bounded every output at these shapes by 2^48 bytes.
    uint64_t bytes = elementTypeSize(spec.Type);
    for (int64_t dim : spec.Shape)
      bytes *= static_cast<uint64_t>(dim);
    sizes[i] = static_cast<size_t>(bytes);
  }
  return Status();
}

// kilnFunctionCallBuffers and kilnFunctionCallBuffersWithShapes: `shapes`
// is null for the former.
Status callBuffers(const char *api, const KilnFunction *function,
                   KilnBuffer *const *inputs, const KilnShape *shapes,
                   size_t inputCount, KilnBuffer *const *outputs,
                   int64_t *const *outputDims, size_t outputCount,
                   bool withShapes) {
  if (!function)
    return nullArgument(api, "function");
  if (!inputs && inputCount)
    return nullArgument(api, "inputs");
  if (!outputs && outputCount)
    return nullArgument(api, "outputs");
  module::ModuleInstance &instance = *function->Module->Instance;
  const module::FunctionSignature &signature = *function->Signature;
  const std::string &name = signature.Name;
  std::vector<std::vector<int64_t>> inputShapes;
  if (withShapes) {
    KILN_ASSIGN_OR_RETURN(inputShapes,
                          callerShapes(api, signature, shapes, inputCount));
  } else if (hasDynamicShapes(signature)) {
    return KILN_ERROR(InvalidArgument, api, ": function @", name,
                      " has dynamic shapes, which buffers do not carry; "
                      "call it with kilnFunctionCallBuffersWithShapes");
  }
  KILN_ASSIGN_OR_RETURN(
      std::vector<std::shared_ptr<hal::Buffer>> in,
      halBuffers(name, "input", inputs, inputCount, instance.device()));
  KILN_ASSIGN_OR_RETURN(
      std::vector<std::shared_ptr<hal::Buffer>> out,
      halBuffers(name, "output", outputs, outputCount, instance.device()));
  // The call's own output shapes: they may depend on the values of inputs
  // it read, which outputTypes would need again.
  std::vector<std::vector<int64_t>> written;
  KILN_RETURN_IF_ERROR(instance.callWithDeviceBuffers(name, in, out, nullptr,
                                                      inputShapes, &written));
  if (!outputDims)
    return Status();
  std::vector<module::TensorSpec> types = signature.Outputs;
  for (size_t i = 0; i < types.size() && i < written.size(); ++i)
    types[i].Shape = written[i];
  return writeOutputShapes(api, signature, types, outputDims, nullptr);
}

KilnStatus tensorType(const KilnFunction *function, size_t index,
                      KilnTensor *outType, bool input) {
  return guarded([&]() -> Status {
    const char *name =
        input ? "kilnFunctionInputType" : "kilnFunctionOutputType";
    if (!function)
      return nullArgument(name, "function");
    if (!outType)
      return nullArgument(name, "outType");
    const auto &specs =
        input ? function->Signature->Inputs : function->Signature->Outputs;
    if (index >= specs.size())
      return KILN_ERROR(OutOfRange, name, ": function @",
                        function->Signature->Name, " has ", specs.size(),
                        input ? " input(s)" : " output(s)", ", asked for ",
                        index);
    describeType(specs[index], outType);
    return Status();
  });
}

} // namespace

extern "C" {

KilnStatusCode kilnStatusCode(KilnStatus status) {
  return status ? static_cast<KilnStatusCode>(status->Code) : KILN_STATUS_OK;
}

const char *kilnStatusMessage(KilnStatus status) {
  return status ? status->Message.c_str() : "OK";
}

void kilnStatusFree(KilnStatus status) {
  if (status != &OutOfMemoryStatus)
    delete status;
}

size_t kilnElementTypeSize(int32_t type) {
  if (type < 0 || type > kMaxElementType)
    return 0;
  return elementTypeSize(static_cast<ElementType>(type));
}

size_t kilnDriverCount(void) {
  return hal::DriverRegistry::global().driverNames().size();
}

const char *kilnDriverName(size_t index) {
  // Drivers are only ever added, so the names can be kept for the process.
  static const std::vector<std::string> names =
      hal::DriverRegistry::global().driverNames();
  return index < names.size() ? names[index].c_str() : nullptr;
}

KilnStatus kilnDeviceCreate(const char *uri, KilnDevice **outDevice) {
  if (outDevice)
    *outDevice = nullptr;
  return guarded([&]() -> Status {
    if (!uri)
      return nullArgument("kilnDeviceCreate", "uri");
    if (!outDevice)
      return nullArgument("kilnDeviceCreate", "outDevice");
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Device> device,
                          hal::DriverRegistry::global().createDevice(uri));
    *outDevice = new KilnDevice{std::move(device)};
    return Status();
  });
}

void kilnDeviceRelease(KilnDevice *device) { delete device; }

KilnStatus kilnModuleLoadFile(KilnDevice *device, const char *path,
                              KilnModule **outModule) {
  if (outModule)
    *outModule = nullptr;
  return guarded([&]() -> Status {
    if (!device)
      return nullArgument("kilnModuleLoadFile", "device");
    if (!path)
      return nullArgument("kilnModuleLoadFile", "path");
    if (!outModule)
      return nullArgument("kilnModuleLoadFile", "outModule");
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<const module::ModuleFile> file,
                          module::ModuleFile::open(path));
    KILN_ASSIGN_OR_RETURN(*outModule, wrapModule(device, std::move(file)));
    return Status();
  });
}

KilnStatus kilnModuleLoadBytes(KilnDevice *device, const void *data,
                               size_t size, KilnModule **outModule) {
  if (outModule)
    *outModule = nullptr;
  return guarded([&]() -> Status {
    if (!device)
      return nullArgument("kilnModuleLoadBytes", "device");
    if (!data && size)
      return nullArgument("kilnModuleLoadBytes", "data");
    if (!outModule)
      return nullArgument("kilnModuleLoadBytes", "outModule");
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<const module::ModuleFile> file,
                          module::ModuleFile::fromBytes(data, size));
    KILN_ASSIGN_OR_RETURN(*outModule, wrapModule(device, std::move(file)));
    return Status();
  });
}

void kilnModuleRelease(KilnModule *module) { delete module; }

size_t kilnModuleFunctionCount(const KilnModule *module) {
  return module ? module->Functions.size() : 0;
}

const KilnFunction *kilnModuleFunctionAt(const KilnModule *module,
                                         size_t index) {
  if (!module || index >= module->Functions.size())
    return nullptr;
  return module->Functions[index].get();
}

KilnStatus kilnModuleLookupFunction(const KilnModule *module, const char *name,
                                    const KilnFunction **outFunction) {
  if (outFunction)
    *outFunction = nullptr;
  return guarded([&]() -> Status {
    if (!module)
      return nullArgument("kilnModuleLookupFunction", "module");
    if (!name)
      return nullArgument("kilnModuleLookupFunction", "name");
    if (!outFunction)
      return nullArgument("kilnModuleLookupFunction", "outFunction");
    KILN_ASSIGN_OR_RETURN(const module::FunctionSignature *signature,
                          module->Instance->lookup(name));
    for (const auto &function : module->Functions)
      if (function->Signature == signature)
        *outFunction = function.get();
    return Status();
  });
}

const char *kilnFunctionName(const KilnFunction *function) {
  return function ? function->Signature->Name.c_str() : nullptr;
}

size_t kilnFunctionInputCount(const KilnFunction *function) {
  return function ? function->Signature->Inputs.size() : 0;
}

size_t kilnFunctionOutputCount(const KilnFunction *function) {
  return function ? function->Signature->Outputs.size() : 0;
}

KilnStatus kilnFunctionInputType(const KilnFunction *function, size_t index,
                                 KilnTensor *outType) {
  return tensorType(function, index, outType, /*input=*/true);
}

KilnStatus kilnFunctionOutputType(const KilnFunction *function, size_t index,
                                  KilnTensor *outType) {
  return tensorType(function, index, outType, /*input=*/false);
}

KilnStatus kilnFunctionCall(const KilnFunction *function,
                            const KilnTensor *inputs, size_t inputCount,
                            KilnOutputs **outOutputs) {
  if (outOutputs)
    *outOutputs = nullptr;
  return guarded([&]() -> Status {
    if (!function)
      return nullArgument("kilnFunctionCall", "function");
    if (!inputs && inputCount)
      return nullArgument("kilnFunctionCall", "inputs");
    if (!outOutputs)
      return nullArgument("kilnFunctionCall", "outOutputs");
    const std::string &name = function->Signature->Name;
    std::vector<HostTensor> tensors(inputCount);
    for (size_t i = 0; i < inputCount; ++i) {
      const KilnTensor &input = inputs[i];
      if (input.elementType < 0 || input.elementType > kMaxElementType)
        return KILN_ERROR(InvalidArgument, "function @", name, " input ", i,
                          ": unknown element type ",
                          static_cast<int>(input.elementType));
      if (input.rank && !input.shape)
        return KILN_ERROR(InvalidArgument, "function @", name, " input ", i,
                          ": NULL shape for rank ", input.rank);
      if (input.dataSize && !input.data)
        return KILN_ERROR(InvalidArgument, "function @", name, " input ", i,
                          ": NULL data for ", input.dataSize, " bytes");
      if (input.rank > module::kMaxTensorRank)
        return KILN_ERROR(InvalidArgument, "function @", name, " input ", i,
                          ": rank ", input.rank, " exceeds the maximum of ",
                          module::kMaxTensorRank);
      HostTensor &tensor = tensors[i];
      tensor.Type = static_cast<ElementType>(input.elementType);
      tensor.Shape.assign(input.shape, input.shape + input.rank);
      const auto *bytes = static_cast<const uint8_t *>(input.data);
      tensor.Data.assign(bytes, bytes + input.dataSize);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outputs,
                          function->Module->Instance->call(name, tensors));
    *outOutputs = new KilnOutputs{std::move(outputs)};
    return Status();
  });
}

size_t kilnOutputsCount(const KilnOutputs *outputs) {
  return outputs ? outputs->Tensors.size() : 0;
}

KilnStatus kilnOutputsGet(const KilnOutputs *outputs, size_t index,
                          KilnTensor *outTensor) {
  return guarded([&]() -> Status {
    if (!outputs)
      return nullArgument("kilnOutputsGet", "outputs");
    if (!outTensor)
      return nullArgument("kilnOutputsGet", "outTensor");
    if (index >= outputs->Tensors.size())
      return KILN_ERROR(OutOfRange, "kilnOutputsGet: ", outputs->Tensors.size(),
                        " output(s), asked for ", index);
    const HostTensor &tensor = outputs->Tensors[index];
    outTensor->elementType = static_cast<int32_t>(tensor.Type);
    outTensor->rank = tensor.Shape.size();
    outTensor->shape = tensor.Shape.empty() ? nullptr : tensor.Shape.data();
    outTensor->data = tensor.Data.empty() ? nullptr : tensor.Data.data();
    outTensor->dataSize = tensor.Data.size();
    return Status();
  });
}

void kilnOutputsRelease(KilnOutputs *outputs) { delete outputs; }

KilnStatus kilnBufferAllocate(KilnDevice *device, size_t size,
                              KilnBuffer **outBuffer) {
  if (outBuffer)
    *outBuffer = nullptr;
  return guarded([&]() -> Status {
    if (!device)
      return nullArgument("kilnBufferAllocate", "device");
    if (!outBuffer)
      return nullArgument("kilnBufferAllocate", "outBuffer");
    hal::Allocator &allocator = device->Device->allocator();
    // Where device memory is host memory too, writes and reads are plain
    // copies on the host; elsewhere they go through staging and the queue.
    const hal::MemoryType unified =
        hal::MemoryType::DeviceLocal | hal::MemoryType::HostVisible;
    bool mappable = allocator.supportsMemoryType(unified);
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<hal::Buffer> buffer,
        allocator.allocate(size,
                           mappable ? unified : hal::MemoryType::DeviceLocal,
                           mappable ? hal::BufferUsage::All
                                    : hal::BufferUsage::Transfer |
                                          hal::BufferUsage::Dispatch));
    *outBuffer = new KilnBuffer{device->Device, std::move(buffer)};
    return Status();
  });
}

void kilnBufferRelease(KilnBuffer *buffer) { delete buffer; }

size_t kilnBufferSize(const KilnBuffer *buffer) {
  return buffer ? static_cast<size_t>(buffer->Buffer->size()) : 0;
}

KilnStatus kilnBufferWrite(KilnBuffer *buffer, size_t offset, const void *data,
                           size_t size) {
  return guarded([&]() -> Status {
    if (!buffer)
      return nullArgument("kilnBufferWrite", "buffer");
    if (!data && size)
      return nullArgument("kilnBufferWrite", "data");
    return hal::writeBuffer(
        *buffer->Device, buffer->Buffer, offset,
        std::span<const uint8_t>(static_cast<const uint8_t *>(data), size));
  });
}

KilnStatus kilnBufferRead(const KilnBuffer *buffer, size_t offset, void *data,
                          size_t size) {
  return guarded([&]() -> Status {
    if (!buffer)
      return nullArgument("kilnBufferRead", "buffer");
    if (!data && size)
      return nullArgument("kilnBufferRead", "data");
    return hal::readBuffer(
        *buffer->Device, buffer->Buffer, offset,
        std::span<uint8_t>(static_cast<uint8_t *>(data), size));
  });
}

KilnStatus kilnFunctionCallBuffers(const KilnFunction *function,
                                   KilnBuffer *const *inputs, size_t inputCount,
                                   KilnBuffer *const *outputs,
                                   size_t outputCount) {
  return guarded([&]() -> Status {
    return callBuffers("kilnFunctionCallBuffers", function, inputs, nullptr,
                       inputCount, outputs, nullptr, outputCount,
                       /*withShapes=*/false);
  });
}

KilnStatus kilnFunctionCallBuffersWithShapes(
    const KilnFunction *function, KilnBuffer *const *inputs,
    const KilnShape *inputShapes, size_t inputCount, KilnBuffer *const *outputs,
    int64_t *const *outputDims, size_t outputCount) {
  return guarded([&]() -> Status {
    return callBuffers("kilnFunctionCallBuffersWithShapes", function, inputs,
                       inputShapes, inputCount, outputs, outputDims,
                       outputCount, /*withShapes=*/true);
  });
}

KilnStatus kilnFunctionOutputShapes(const KilnFunction *function,
                                    const KilnShape *inputShapes,
                                    size_t inputCount,
                                    int64_t *const *outputDims,
                                    size_t *outputSizes, size_t outputCount) {
  return guarded([&]() -> Status {
    const char *api = "kilnFunctionOutputShapes";
    if (!function)
      return nullArgument(api, "function");
    const module::FunctionSignature &signature = *function->Signature;
    if (outputCount != signature.Outputs.size())
      return KILN_ERROR(InvalidArgument, api, ": function @", signature.Name,
                        " has ", signature.Outputs.size(),
                        " output(s), got room for ", outputCount);
    KILN_ASSIGN_OR_RETURN(
        std::vector<std::vector<int64_t>> shapes,
        callerShapes(api, signature, inputShapes, inputCount));
    KILN_ASSIGN_OR_RETURN(
        std::vector<module::TensorSpec> types,
        function->Module->Instance->outputTypes(signature.Name, shapes));
    return writeOutputShapes(api, signature, types, outputDims, outputSizes);
  });
}

} // extern "C"
