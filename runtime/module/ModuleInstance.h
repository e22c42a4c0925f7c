//===- ModuleInstance.h - A module loaded on a device, ready to call ------===//
//
// Instantiation picks, for each executable, the first variant the device can
// run and loads it; constants are handed to the device in place where it can
// address host memory. Each function's steps are recorded into a reusable
// command buffer on its first call, over binding-table slots for the
// inputs, outputs, arena and constants, whose buffers are allocated once
// with the recording. Every later call replays it: on devices that address
// host memory the inputs are read in place and the host cost per call is one
// submission plus copying the outputs out; elsewhere inputs and outputs pass
// through host-visible staging buffers the recording copies.
//
// callWithDeviceBuffers runs a function on tensors the caller already keeps
// in device buffers and leaves its results there: no host<->device copies
// at all, which is what a benchmark of the function itself needs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_MODULEINSTANCE_H
#define KILN_RUNTIME_MODULE_MODULEINSTANCE_H

#include "runtime/base/ElementType.h"
#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"
#include "runtime/module/FunctionTimes.h"
#include "runtime/module/ModuleFile.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::module {

struct TensorSpec {
  ElementType Type = ElementType::F32;
  std::vector<int64_t> Shape;
};

struct FunctionSignature {
  std::string Name;
  std::vector<TensorSpec> Inputs;
  std::vector<TensorSpec> Outputs;
  /// Runs in phases (module.fbs Function.phases): its output shapes depend
  /// on values it computes, so outputTypes cannot give them before a call.
  bool Phased = false;
};

class ModuleInstance {
public:
  /// Loads `file`'s executables onto `device` and wraps its constants. An
  /// executable with no variant the device runs is an error listing the
  /// variants and the device.
  static StatusOr<std::unique_ptr<ModuleInstance>>
  create(std::shared_ptr<hal::Device> device,
         std::shared_ptr<const ModuleFile> file);

  ~ModuleInstance();
  ModuleInstance(const ModuleInstance &) = delete;
  ModuleInstance &operator=(const ModuleInstance &) = delete;

  /// In module order.
  std::vector<std::string> functionNames() const;

  /// NotFound lists the available names.
  StatusOr<const FunctionSignature *> lookup(std::string_view name) const;

  /// Runs `function` on `inputs` (count, element types, shapes and data
  /// sizes are checked) and returns its outputs. Calls are serialized. A
  /// function with dynamic dimensions (-1 in its signature) takes its shapes
  /// from the inputs each call; a call at the shapes of the one before
  /// replays its recording, other shapes record afresh.
  StatusOr<std::vector<HostTensor>> call(std::string_view function,
                                         const std::vector<HostTensor> &inputs);

  /// Runs `function` on inputs already in buffers of this instance's device
  /// and writes its outputs into `outputs`, one buffer per input and output
  /// (at least the tensor's bytes; usable for Transfer and Dispatch; outputs
  /// writable and distinct from each other and from the inputs). Nothing is
  /// copied between host and device. With a `timer`
  /// (hal::Device::createSubmissionTimer) the call's commands are timed by
  /// the device's clock. Calls are serialized with call().
  /// A function with dynamic shapes takes its inputs' shapes in
  /// `inputShapes` (one per input; buffers carry sizes only); outputs must
  /// hold what those shapes give (outputTypes). The inputs whose values
  /// decide shapes are read back from their buffers first (a few bytes); a
  /// function whose signature is static needs no shapes even then. With
  /// `outputShapes`, the shapes of the outputs this call wrote.
  Status callWithDeviceBuffers(
      std::string_view function,
      std::span<const std::shared_ptr<hal::Buffer>> inputs,
      std::span<const std::shared_ptr<hal::Buffer>> outputs,
      const std::shared_ptr<hal::SubmissionTimer> &timer = nullptr,
      std::span<const std::vector<int64_t>> inputShapes = {},
      std::vector<std::vector<int64_t>> *outputShapes = nullptr);

  /// The types of `function`'s outputs for inputs of `inputShapes`: the
  /// signature's, or for a function with dynamic shapes what the shapes
  /// give (checked as a call checks them). A function whose shapes depend
  /// on the values of some integer inputs (a Reshape target given at call
  /// time) needs those in `inputs` (all inputs, as call() takes them).
  StatusOr<std::vector<TensorSpec>>
  outputTypes(std::string_view function,
              std::span<const std::vector<int64_t>> inputShapes,
              std::span<const HostTensor> inputs = {});

  const std::shared_ptr<hal::Device> &device() const { return Device; }

  /// How many times function steps were recorded into command buffers: one
  /// per function called, however often it was called, plus one where a
  /// function is called both ways on a device without unified memory (only
  /// call() then needs the staging copies).
  uint64_t recordingCount() const;

  /// How many arenas were allocated: one per function called, plus one each
  /// time a call needs more than its function's arena holds (none within
  /// --input-shape bounds: the arena is planned at the upper bound).
  uint64_t arenaAllocationCount() const;

  /// From now on sums, per function, where calls' host time goes
  /// (FunctionTimes.h), starting from zero; off by default, as it reads the
  /// clock a few times a phase.
  void setFunctionTiming(bool on);
  /// The sums since timing was turned on, of the functions that ran, in
  /// module order.
  std::vector<FunctionTime> functionTimes() const;

private:
  struct LoadedExecutable;
  struct Function;

  ModuleInstance(std::shared_ptr<hal::Device> device,
                 std::shared_ptr<const ModuleFile> file);

  Status loadExecutables();
  Status loadFunctions();
  Function *find(std::string_view name);
  // The first of `function`'s specializations whose signature accepts
  // `shapes`, else `function`.
  Function &specializedFor(Function &function,
                           std::span<const std::vector<int64_t>> shapes);
  // Where `function`'s `part` of host time is summed; null with timing off.
  double *timed(Function &function, double FunctionTime::*part);
  Status allocateArena(Function &function);
  Status allocateTable(Function &function);
  // `staged`: with copies between host-visible staging and the device
  // tensors (call() without unified memory).
  StatusOr<std::shared_ptr<hal::CommandBuffer>> record(Function &function,
                                                       bool staged);
  StatusOr<std::shared_ptr<hal::CommandBuffer>> commands(Function &function,
                                                         bool staged);
  // Submits `commands` over `table` and waits for it.
  Status execute(Function &function,
                 const std::shared_ptr<hal::CommandBuffer> &commands,
                 std::span<const std::shared_ptr<hal::Buffer>> table,
                 const std::shared_ptr<hal::SubmissionTimer> &timer);
  StatusOr<std::vector<HostTensor>>
  callLocked(Function &function, const std::vector<HostTensor> &inputs);
  // A function with dynamic shapes at `shapes`: resolved (CallShapes.h),
  // its recordings, table and arena dropped when they were for others.
  Status bindShapes(Function &function,
                    const std::vector<std::vector<int64_t>> &shapes,
                    const std::vector<std::vector<int64_t>> &values);
  // call() of a function with dynamic shapes: resolves its shapes from the
  // inputs (CallShapes.h), recording afresh when they changed.
  StatusOr<std::vector<HostTensor>>
  callDynamic(Function &function, const std::vector<HostTensor> &inputs);
  // Resolves `function`'s shapes for a call on device buffers: the values
  // deciding shapes are read back from their buffers, but for those
  // `known` holds (per input; empty: not known).
  Status bindBufferShapes(Function &function,
                          std::span<const std::shared_ptr<hal::Buffer>> inputs,
                          std::span<const std::vector<int64_t>> inputShapes,
                          std::span<const std::vector<uint8_t>> known = {});
  // callWithDeviceBuffers() of a function with steps, the lock held and
  // its shapes bound (bindBufferShapes: the value inputs read back once).
  Status
  callWithBuffersLocked(Function &function,
                        std::span<const std::shared_ptr<hal::Buffer>> inputs,
                        std::span<const std::shared_ptr<hal::Buffer>> outputs,
                        const std::shared_ptr<hal::SubmissionTimer> &timer,
                        std::vector<std::vector<int64_t>> *outputShapes);
  // A phased function (module.fbs Function.phases): its
  // phases run in turn on device buffers, the lock held. Outputs go to
  // `outputs` where given (checked against what the call computed), else
  // to buffers allocated here; `results` receives every output's buffer
  // and shape.
  struct PhaseValue {
    std::shared_ptr<hal::Buffer> Buffer;
    std::vector<int64_t> Shape;
    // Its bytes, where the phase that wrote it copied them for the host
    // (Function::HostReadOutputs); empty otherwise.
    std::vector<uint8_t> HostBytes = {};
  };
  Status runPhases(Function &function, std::span<const PhaseValue> inputs,
                   std::span<const std::shared_ptr<hal::Buffer>> outputs,
                   const std::shared_ptr<hal::SubmissionTimer> &timer,
                   std::vector<PhaseValue> &results);
  // A loop phase (module.fbs PhaseLoop): `body` repeated on `inputs`
  // (trip count, condition, the carried values' first values, the values
  // read); `results` receives the carried values' last values, then each
  // scan output stacked.
  Status runLoop(Function &body, uint32_t carried,
                 std::span<const int32_t> where,
                 std::span<const PhaseValue> inputs,
                 std::vector<PhaseValue> &results);
  StatusOr<std::vector<HostTensor>>
  callPhased(Function &function, const std::vector<HostTensor> &inputs);
  Status
  callPhasedWithBuffers(Function &function,
                        std::span<const std::shared_ptr<hal::Buffer>> inputs,
                        std::span<const std::shared_ptr<hal::Buffer>> outputs,
                        const std::shared_ptr<hal::SubmissionTimer> &timer,
                        std::span<const std::vector<int64_t>> inputShapes,
                        std::vector<std::vector<int64_t>> *outputShapes);

  std::shared_ptr<hal::Device> Device;
  std::shared_ptr<const ModuleFile> File;
  // True when buffers can be device-local and host-visible at once: inputs
  // and outputs are then used in place instead of through staging copies.
  bool Unified = false;
  std::vector<LoadedExecutable> Executables;
  std::vector<Function> Functions;
  std::shared_ptr<hal::Buffer> Constants;
  std::shared_ptr<hal::Semaphore> Timeline;
  uint64_t TimelineValue = 0;
  uint64_t Recordings = 0;
  uint64_t ArenaAllocations = 0;
  bool Timing = false;
  // What a loop phase's host writes or reads every step (runLoop): three
  // small buffers of memory the host maps, slow to get (pinned), so made
  // on the first loop and kept. Calls hold the lock; a loop's body run in
  // phases may run a loop of its own, so there is a set per depth of
  // loops running (LoopDepth of them now).
  std::vector<std::array<std::shared_ptr<hal::Buffer>, 3>> LoopMapped;
  size_t LoopDepth = 0;
  // Host-visible memory the values deciding a phase's shapes are read back
  // through (bindBufferShapes), kept: pinned memory is slow to get.
  std::shared_ptr<hal::Buffer> ReadStaging;
  mutable std::mutex Mutex;
};

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_MODULEINSTANCE_H
