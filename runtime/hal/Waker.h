//===- Waker.h - Sleep until one of several things changes ----------------===//
//
// The driver-neutral way to be told that a semaphore moved: a queue thread
// of any driver registers one Waker with every semaphore it waits for
// (Semaphore::addWaker), checks them, and sleeps until one of them changes,
// whoever changed it (a host signal, a GPU write the device noticed, a
// failure), or until it is told to stop.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_WAKER_H
#define KILN_RUNTIME_HAL_WAKER_H

#include <condition_variable>
#include <mutex>

namespace kiln::hal {

class Waker {
public:
  /// Clears the pending flag; call before checking the semaphores, so a
  /// change after the check is not lost.
  void arm();
  /// Sleeps until wake() or stop() after the last arm(); returns false once
  /// stopped.
  bool sleep();
  void wake();
  void stop();

private:
  std::mutex Mutex;
  std::condition_variable Cv;
  bool Pending = false;
  bool Stopped = false;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_WAKER_H
