//===- TaskPoolTest.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/local/TaskPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kiln::hal::local {
namespace {

void expectEachIndexOnce(TaskPool &pool, uint64_t count, uint64_t grain) {
  std::vector<std::atomic<int>> hits(count);
  pool.parallelFor(count, grain, [&](uint64_t begin, uint64_t end) {
    ASSERT_LT(begin, end);
    ASSERT_LE(end, count);
    ASSERT_LE(end - begin, std::max<uint64_t>(grain, 1));
    for (uint64_t i = begin; i < end; ++i)
      hits[i].fetch_add(1);
  });
  for (uint64_t i = 0; i < count; ++i)
    ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << count;
}

TEST(TaskPoolTest, CoversEveryIndexOnce) {
  for (uint32_t workers : {1u, 2u, 5u}) {
    TaskPool pool(workers);
    EXPECT_EQ(pool.workerCount(), workers);
    for (uint64_t count : {0ull, 1ull, 7ull, 64ull, 1000ull})
      for (uint64_t grain : {0ull, 1ull, 3ull, 1000ull})
        expectEachIndexOnce(pool, count, grain);
  }
}

TEST(TaskPoolTest, ManyLoopsInARow) {
  TaskPool pool(4);
  std::atomic<uint64_t> sum{0};
  for (int loop = 0; loop < 500; ++loop)
    pool.parallelFor(17, 1, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i)
        sum += i;
    });
  EXPECT_EQ(sum.load(), 500u * (16 * 17 / 2));
}

TEST(TaskPoolTest, WorkSpreadsOverThreads) {
  TaskPool pool(3);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> arrived{0};
  // Each item waits for all three to start, which only works if three
  // threads take part.
  pool.parallelFor(3, 1, [&](uint64_t, uint64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    ++arrived;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 3 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  });
  EXPECT_EQ(arrived.load(), 3);
  EXPECT_EQ(threads.size(), 3u);
}

TEST(TaskPoolTest, ConcurrentCallersAreSerialized) {
  TaskPool pool(3);
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int loop = 0; loop < 50; ++loop)
        pool.parallelFor(
            10, 2, [&](uint64_t begin, uint64_t end) { total += end - begin; });
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(total.load(), 4u * 50 * 10);
}

} // namespace
} // namespace kiln::hal::local
