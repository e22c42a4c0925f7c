//===- Waker.cpp ----------------------------------------------------------===//

#include "runtime/hal/Waker.h"

namespace kiln::hal {

void Waker::arm() {
  std::lock_guard<std::mutex> lock(Mutex);
  Pending = false;
}

bool Waker::sleep() {
  std::unique_lock<std::mutex> lock(Mutex);
  Cv.wait(lock, [&] { return Pending || Stopped; });
  return !Stopped;
}

void Waker::wake() {
  std::lock_guard<std::mutex> lock(Mutex);
  Pending = true;
  Cv.notify_all();
}

void Waker::stop() {
  std::lock_guard<std::mutex> lock(Mutex);
  Stopped = true;
  Cv.notify_all();
}

} // namespace kiln::hal
