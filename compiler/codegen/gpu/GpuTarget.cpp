//===- GpuTarget.cpp ------------------------------------------------------===//

#include "compiler/codegen/gpu/GpuTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

using namespace mlir;

namespace kiln {
namespace {

using Kind = GpuMatrixInstruction::Kind;

constexpr std::pair<Kind, llvm::StringLiteral> kKindNames[] = {
    {Kind::MmaSync, "mma_sync"}, {Kind::Wgmma, "wgmma"},
    {Kind::Mfma, "mfma"},        {Kind::Wmma, "wmma"},
    {Kind::WmmaR4, "wmma_r4"},
};

bool isElementName(StringRef name) {
  return llvm::is_contained({"f16", "bf16", "tf32", "f32", "i8", "i32"}, name);
}

// "m16n8k16" -> 16, 8, 16.
bool parseShape(StringRef text, int64_t &m, int64_t &n, int64_t &k) {
  if (!text.consume_front("m"))
    return false;
  auto [mText, rest] = text.split('n');
  auto [nText, kText] = rest.split('k');
  return !mText.getAsInteger(10, m) && !nText.getAsInteger(10, n) &&
         !kText.getAsInteger(10, k) && m > 0 && n >= 0 && k > 0;
}

} // namespace

std::optional<GpuMatrixInstruction>
GpuMatrixInstruction::parse(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, '.');
  if (parts.size() != 4)
    return std::nullopt;
  GpuMatrixInstruction result;
  const auto *kind = llvm::find_if(
      kKindNames, [&](const auto &entry) { return entry.second == parts[0]; });
  if (kind == std::end(kKindNames) ||
      !parseShape(parts[1], result.M, result.N, result.K) ||
      !isElementName(parts[2]) || !isElementName(parts[3]))
    return std::nullopt;
  result.InstructionKind = kind->first;
  result.Operand = parts[2].str();
  result.Accumulator = parts[3].str();
  return result;
}

std::string GpuMatrixInstruction::str() const {
  StringRef kind;
  for (const auto &[k, name] : kKindNames)
    if (k == InstructionKind)
      kind = name;
  return (kind + ".m" + llvm::Twine(M) + "n" + llvm::Twine(N) + "k" +
          llvm::Twine(K) + "." + Operand + "." + Accumulator)
      .str();
}

const GpuMatrixInstruction *
GpuTarget::findMatrixInstruction(GpuMatrixInstruction::Kind kind,
                                 StringRef operand,
                                 StringRef accumulator) const {
  for (const GpuMatrixInstruction &instruction : MatrixInstructions)
    if (instruction.InstructionKind == kind && instruction.Operand == operand &&
        instruction.Accumulator == accumulator)
      return &instruction;
  return nullptr;
}

DictionaryAttr GpuTarget::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<Attribute> matrix;
  for (const GpuMatrixInstruction &instruction : MatrixInstructions)
    matrix.push_back(b.getStringAttr(instruction.str()));
  return b.getDictionaryAttr({
      b.getNamedAttr("vendor", b.getStringAttr(Vendor)),
      b.getNamedAttr("arch", b.getStringAttr(Arch)),
      b.getNamedAttr("subgroup_size", b.getI64IntegerAttr(SubgroupSize)),
      b.getNamedAttr("processors", b.getI64IntegerAttr(ProcessorCount)),
      b.getNamedAttr("max_workgroup_threads",
                     b.getI64IntegerAttr(MaxWorkgroupThreads)),
      b.getNamedAttr("max_threads_per_processor",
                     b.getI64IntegerAttr(MaxThreadsPerProcessor)),
      b.getNamedAttr("shared_memory_bytes",
                     b.getI64IntegerAttr(SharedMemoryBytes)),
      b.getNamedAttr("max_shared_memory_bytes",
                     b.getI64IntegerAttr(MaxSharedMemoryBytes)),
      b.getNamedAttr("processor_shared_memory_bytes",
                     b.getI64IntegerAttr(ProcessorSharedMemoryBytes)),
      b.getNamedAttr("reserved_shared_memory_bytes",
                     b.getI64IntegerAttr(ReservedSharedMemoryBytes)),
      b.getNamedAttr("async_copy", b.getBoolAttr(AsyncCopy)),
      b.getNamedAttr("tma", b.getBoolAttr(Tma)),
      b.getNamedAttr("early_launch", b.getBoolAttr(EarlyLaunch)),
      b.getNamedAttr("matrix", b.getArrayAttr(matrix)),
  });
}

FailureOr<GpuTarget> GpuTarget::fromAttr(DictionaryAttr attr,
                                         Operation *diagnosticOp) {
  GpuTarget target;
  auto bad = [&](StringRef key, StringRef what) {
    return diagnosticOp->emitError()
           << kGpuTargetAttr << ": '" << key << "' must be " << what;
  };
  auto readString = [&](StringRef key, std::string &out) -> LogicalResult {
    auto value = attr.getAs<StringAttr>(key);
    if (!value || value.getValue().empty())
      return bad(key, "a non-empty string");
    out = value.str();
    return success();
  };
  auto readCount = [&](StringRef key, int64_t &out,
                       int64_t min) -> LogicalResult {
    auto value = attr.getAs<IntegerAttr>(key);
    if (!value || value.getValue().getSignificantBits() > 32 ||
        value.getInt() < min)
      return bad(key, "an integer of at least " + std::to_string(min) +
                          " and below 2^31");
    out = value.getInt();
    return success();
  };
  auto readFlag = [&](StringRef key, bool &out) -> LogicalResult {
    auto value = attr.getAs<BoolAttr>(key);
    if (!value)
      return bad(key, "true or false");
    out = value.getValue();
    return success();
  };
  if (failed(readString("vendor", target.Vendor)) ||
      failed(readString("arch", target.Arch)) ||
      failed(readCount("subgroup_size", target.SubgroupSize, 1)) ||
      failed(readCount("processors", target.ProcessorCount, 1)) ||
      failed(
          readCount("max_workgroup_threads", target.MaxWorkgroupThreads, 1)) ||
      failed(readCount("max_threads_per_processor",
                       target.MaxThreadsPerProcessor, 1)) ||
      failed(readCount("shared_memory_bytes", target.SharedMemoryBytes, 0)) ||
      failed(readCount("max_shared_memory_bytes", target.MaxSharedMemoryBytes,
                       0)) ||
      failed(readCount("processor_shared_memory_bytes",
                       target.ProcessorSharedMemoryBytes, 0)) ||
      failed(readCount("reserved_shared_memory_bytes",
                       target.ReservedSharedMemoryBytes, 0)) ||
      failed(readFlag("async_copy", target.AsyncCopy)) ||
      failed(readFlag("tma", target.Tma)))
    return failure();
  // Optional (false): a target written before it existed launches every
  // kernel after its prerequisites.
  if (attr.get("early_launch") &&
      failed(readFlag("early_launch", target.EarlyLaunch)))
    return failure();
  if (target.ProcessorSharedMemoryBytes < target.MaxSharedMemoryBytes)
    return bad("processor_shared_memory_bytes",
               "at least max_shared_memory_bytes");
  // Shuffles and the kernels' lane arithmetic take a power-of-two width.
  if (!llvm::isPowerOf2_64(target.SubgroupSize) ||
      target.MaxWorkgroupThreads % target.SubgroupSize != 0)
    return bad("subgroup_size", "a power of two dividing "
                                "max_workgroup_threads");
  auto matrix = attr.getAs<ArrayAttr>("matrix");
  if (!matrix)
    return bad("matrix", "an array of instruction names");
  for (Attribute entry : matrix) {
    auto name = dyn_cast<StringAttr>(entry);
    std::optional<GpuMatrixInstruction> instruction =
        name ? GpuMatrixInstruction::parse(name.getValue()) : std::nullopt;
    if (!instruction)
      return bad("matrix", "an array of names such as "
                           "\"mma_sync.m16n8k16.f16.f32\"");
    target.MatrixInstructions.push_back(*instruction);
  }
  return target;
}

static std::vector<std::pair<GpuTargetResolver, GpuTargetNames>> &
gpuTargetTables() {
  static std::vector<std::pair<GpuTargetResolver, GpuTargetNames>> tables;
  return tables;
}

void registerGpuTargetResolver(GpuTargetResolver resolver,
                               GpuTargetNames names) {
  if (!llvm::is_contained(gpuTargetTables(), std::pair(resolver, names)))
    gpuTargetTables().emplace_back(resolver, names);
}

std::optional<GpuTarget> resolveGpuTarget(StringRef name) {
  for (const auto &[resolver, names] : gpuTargetTables())
    if (std::optional<GpuTarget> target = resolver(name))
      return target;
  return std::nullopt;
}

std::vector<std::string> knownGpuTargetNames() {
  std::vector<std::string> all;
  for (const auto &[resolver, names] : gpuTargetTables())
    llvm::append_range(all, names());
  return all;
}

FailureOr<GpuTarget> getGpuTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  auto attr = module ? module->getAttrOfType<DictionaryAttr>(kGpuTargetAttr)
                     : DictionaryAttr();
  if (!attr)
    return op->emitError()
           << "no " << kGpuTargetAttr
           << " dictionary on the module: GPU code generation needs the "
              "target's description (kiln-gpu-set-target, or the attribute "
              "written in the input)";
  return GpuTarget::fromAttr(attr, op);
}

} // namespace kiln
