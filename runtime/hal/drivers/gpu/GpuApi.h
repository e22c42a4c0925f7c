//===- GpuApi.h - The vendor calls the shared GPU layer is written against ===//
//
// Everything in drivers/gpu (command recording, graph dependencies, the
// queue's issue/retire protocol, semaphores on a GPU-visible word, the pool
// policy, executable checks, submission timing) reaches the GPU only
// through this interface; a GPU driver (cuda, later hip) implements it over
// its vendor library in a few hundred lines and keeps device discovery and
// its own options.
//
// Device memory is named by 64-bit device addresses; streams, kernels,
// modules, events, pools and graphs by opaque handles each driver casts to
// and from its own types. Every call that can fail returns a Status naming
// the vendor call; release calls cannot report anything and return nothing.
// Calls that touch the GPU expect the API's context to be current on the
// calling thread (Scope, or bindThread for a thread of its own).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUAPI_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUAPI_H

#include "runtime/base/Status.h"
#include "runtime/hal/Executable.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kiln::hal::gpu {

// Opaque handles: never defined, only pointed to.
struct GpuStreamObject;
struct GpuPoolObject;
struct GpuModuleObject;
struct GpuFunctionObject;
struct GpuEventObject;
struct GpuGraphObject;
struct GpuGraphExecObject;
struct GpuGraphNodeObject;
using GpuStreamHandle = GpuStreamObject *;
using GpuPoolHandle = GpuPoolObject *;
using GpuModuleHandle = GpuModuleObject *;
using GpuFunctionHandle = GpuFunctionObject *;
using GpuEventHandle = GpuEventObject *;
using GpuGraphHandle = GpuGraphObject *;
using GpuGraphExecHandle = GpuGraphExecObject *;
using GpuGraphNodeHandle = GpuGraphNodeObject *;

/// A kernel launch. `Arguments` holds one pointer per kernel parameter, to
/// its value; the values are copied before the call returns.
struct GpuKernelLaunch {
  GpuFunctionHandle Function;
  std::array<uint32_t, 3> Grid;
  std::array<uint32_t, 3> Block;
  uint32_t SharedMemoryBytes;
  void **Arguments;
};
/// `Length` bytes from `Source` to `Target`, either of which may be device
/// or mapped host memory.
struct GpuCopy {
  uint64_t Source;
  uint64_t Target;
  uint64_t Length;
};
/// `Length` bytes at `Target` (a multiple of `PatternLength`: 1, 2 or 4)
/// filled with `Pattern`.
struct GpuFill {
  uint64_t Target;
  uint64_t Length;
  uint32_t Pattern;
  uint8_t PatternLength;
};
/// What a stream or a graph node runs.
using GpuOperation = std::variant<GpuKernelLaunch, GpuCopy, GpuFill>;

/// A stream operation on a 64-bit word the GPU and the host both see.
struct GpuWordOperation {
  enum class Kind {
    /// The stream waits until the word is at least `Value`.
    WaitAtLeast,
    /// The stream writes `Value` once the work before it is done and
    /// visible to whoever sees the value.
    Write,
  };
  Kind Op;
  uint64_t Address;
  uint64_t Value;
};

/// Pinned host memory the GPU addresses directly.
struct GpuMappedHostMemory {
  uint8_t *Host;
  uint64_t Device;
};

/// A kernel of a loaded module, with the limits its compiled code sets.
struct GpuFunctionInfo {
  GpuFunctionHandle Handle;
  /// Registers can lower this below the device's limit.
  uint64_t MaxThreadsPerBlock;
  uint64_t StaticSharedBytes;
};

/// A graph node's dependency on an earlier `Node`. An `Early` one (both
/// kernel launches, the later kernel waiting for its prerequisites itself)
/// lets the later kernel's workgroups start while `Node`'s finish instead
/// of after it is done (CUDA's programmatic dependencies); a vendor without
/// such edges makes it an ordinary one, which is always correct.
struct GpuGraphDependency {
  GpuGraphNodeHandle Node;
  bool Early = false;
};

/// A built graph as the vendor library reports it.
struct GpuGraphEdges {
  size_t NodeCount = 0;
  /// (from, to): `to` waits for `from`.
  std::vector<std::pair<GpuGraphNodeHandle, GpuGraphNodeHandle>> Edges;
  /// Whether each of Edges lets `to` start early (GpuGraphDependency).
  std::vector<bool> Early;
};

class GpuApi {
public:
  virtual ~GpuApi() = default;

  /// "CUDA", for messages.
  virtual std::string_view name() const = 0;
  /// Equal for two APIs whose streams share one address space (the same
  /// GPU context): one's streams may wait on and write the other's words.
  virtual const void *contextId() const = 0;
  /// Makes the context current for good on a thread of the caller's own.
  virtual void bindThread() const = 0;

  /// Makes the context current on this thread for the scope's lifetime:
  /// HAL calls arrive on any thread.
  class Scope {
  public:
    explicit Scope(const GpuApi &api) : Api(api) { Api.pushContext(); }
    ~Scope() { Api.popContext(); }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    const GpuApi &Api;
  };

  // Streams. The stream is destroyed with its last reference.
  /// A stream that does not serialize with other users' default streams.
  virtual StatusOr<std::shared_ptr<GpuStreamObject>> createStream() = 0;
  virtual Status synchronize(GpuStreamHandle stream) = 0;
  /// True once everything queued is done; the stream's error if it failed.
  virtual StatusOr<bool> isIdle(GpuStreamHandle stream) = 0;
  /// Queues a launch, copy or fill; an operation that does nothing (no
  /// bytes, no workgroups) must not reach here.
  virtual Status enqueue(GpuStreamHandle stream,
                         const GpuOperation &operation) = 0;
  /// Queues the operations in order.
  virtual Status
  enqueueWordOperations(GpuStreamHandle stream,
                        std::span<const GpuWordOperation> operations) = 0;
  /// Queues a copy from pageable host memory; the caller synchronizes
  /// before `source` goes away.
  virtual Status copyFromHost(GpuStreamHandle stream, uint64_t target,
                              const void *source, uint64_t length) = 0;

  // Memory.
  /// Device memory, synchronously.
  virtual StatusOr<uint64_t> allocateDevice(uint64_t bytes) = 0;
  virtual void freeDevice(uint64_t address) = 0;
  /// A stream-ordered pool of the caller's own that keeps freed memory
  /// for the next allocation; null where the device has none.
  virtual StatusOr<std::shared_ptr<GpuPoolObject>> createPool() = 0;
  /// ResourceExhausted when the pool cannot grow.
  virtual StatusOr<uint64_t> allocateFromPool(GpuPoolHandle pool,
                                              uint64_t bytes,
                                              GpuStreamHandle stream) = 0;
  /// Frees in `stream`'s order.
  virtual void freeToPool(uint64_t address, GpuStreamHandle stream) = 0;
  /// Gives what the pool keeps unused back to the driver.
  virtual Status trimPool(GpuPoolHandle pool) = 0;
  /// Pinned host memory mapped for the GPU, usable from every context.
  virtual StatusOr<GpuMappedHostMemory> allocateMappedHost(uint64_t bytes) = 0;
  virtual void freeMappedHost(uint8_t *host) = 0;

  // Timing events.
  virtual StatusOr<GpuEventHandle> createTimingEvent() = 0;
  virtual void destroyEvent(GpuEventHandle event) = 0;
  virtual Status recordEvent(GpuEventHandle event, GpuStreamHandle stream) = 0;
  /// Seconds from `start` to `end`; nullopt while either is pending.
  virtual StatusOr<std::optional<double>>
  elapsedSeconds(GpuEventHandle start, GpuEventHandle end) = 0;

  // Modules.
  /// Loads `spec.Image` (the driver checked that it can run it); the error
  /// carries whatever the loader said.
  virtual StatusOr<GpuModuleHandle> loadModule(const ExecutableSpec &spec) = 0;
  virtual void unloadModule(GpuModuleHandle module) = 0;
  virtual StatusOr<GpuFunctionInfo> function(GpuModuleHandle module,
                                             const std::string &name) = 0;
  /// Lets `function` use `bytes` of dynamic shared memory (checked against
  /// the device's limit already) where the vendor asks kernels to opt in.
  virtual Status allowDynamicSharedMemory(GpuFunctionHandle function,
                                          uint64_t bytes) = 0;

  // Graphs: nodes added with their dependencies, instantiated, launched,
  // and patched in place.
  virtual StatusOr<GpuGraphHandle> createGraph() = 0;
  virtual void destroyGraph(GpuGraphHandle graph) = 0;
  virtual StatusOr<GpuGraphNodeHandle>
  addGraphNode(GpuGraphHandle graph, const GpuOperation &operation,
               std::span<const GpuGraphDependency> dependencies) = 0;
  virtual StatusOr<GpuGraphExecHandle>
  instantiateGraph(GpuGraphHandle graph) = 0;
  virtual void destroyGraphExec(GpuGraphExecHandle exec) = 0;
  /// Writes `operation`'s parameters into `node` of the instance; refused
  /// for changes the instance cannot take (the caller rebuilds).
  virtual Status updateGraphNode(GpuGraphExecHandle exec,
                                 GpuGraphNodeHandle node,
                                 const GpuOperation &operation) = 0;
  virtual Status launchGraph(GpuGraphExecHandle exec,
                             GpuStreamHandle stream) = 0;
  virtual StatusOr<GpuGraphEdges> graphEdges(GpuGraphHandle graph) = 0;

private:
  virtual void pushContext() const = 0;
  virtual void popContext() const = 0;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUAPI_H
