//===- BuiltinDrivers.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/BuiltinDrivers.h"

#include "runtime/hal/drivers/local/LocalDriver.h"
#ifdef KILN_HAVE_CUDA_DRIVER
#include "runtime/hal/drivers/cuda/CudaDriver.h"
#endif
#ifdef KILN_HAVE_HIP_DRIVER
#include "runtime/hal/drivers/hip/HipDriver.h"
#endif
#ifdef KILN_HAVE_AMDGPU_DRIVER
#include "runtime/hal/drivers/amdgpu/AmdgpuDriver.h"
#endif

namespace kiln::hal {

void registerBuiltinDrivers(DriverRegistry &registry) {
  // Names are distinct, so registration cannot fail.
  registry.registerDriver(local::createLocalSyncDriver()).ignoreError();
  registry.registerDriver(local::createLocalTaskDriver()).ignoreError();
#ifdef KILN_HAVE_CUDA_DRIVER
  registry.registerDriver(cuda::createCudaDriver()).ignoreError();
#endif
#ifdef KILN_HAVE_HIP_DRIVER
  registry.registerDriver(hip::createHipDriver()).ignoreError();
#endif
#ifdef KILN_HAVE_AMDGPU_DRIVER
  registry.registerDriver(amdgpu::createAmdgpuDriver()).ignoreError();
#endif
}

DriverRegistry &DriverRegistry::global() {
  // Leaked on purpose: devices may outlive static destruction order.
  static DriverRegistry *registry = [] {
    auto *created = new DriverRegistry();
    registerBuiltinDrivers(*created);
    return created;
  }();
  return *registry;
}

} // namespace kiln::hal
