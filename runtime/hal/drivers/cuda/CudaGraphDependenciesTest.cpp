//===- CudaGraphDependenciesTest.cpp --------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaGraphDependencies.h"

#include <gtest/gtest.h>

namespace kiln::hal::cuda {
namespace {

using Deps = std::vector<uint32_t>;

TEST(CudaGraphDependenciesTest, NodesWithoutOrderingAreIndependent) {
  CudaGraphDependencies graph;
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.nodeCount(), 3u);
}

TEST(CudaGraphDependenciesTest, BarrierJoinsEverythingBeforeIt) {
  CudaGraphDependencies graph;
  graph.addNode(); // 0
  graph.addNode(); // 1
  graph.barrier();
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 2
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 3: not after 2
  graph.barrier();
  // 0 and 1 are reached through 2 and 3.
  EXPECT_EQ(graph.addNode(), (Deps{2, 3}));
}

TEST(CudaGraphDependenciesTest, ChainOfBarriersIsAChain) {
  CudaGraphDependencies graph;
  graph.barrier(); // before any node: nothing to wait for
  EXPECT_EQ(graph.addNode(), Deps{});
  for (uint32_t i = 1; i < 5; ++i) {
    graph.barrier();
    graph.barrier(); // a second barrier adds nothing
    EXPECT_EQ(graph.addNode(), Deps{i - 1});
  }
}

TEST(CudaGraphDependenciesTest, EventsOrderOnlyTheirTwoGroups) {
  // Two chains, fill then copy, ordered by one event each. The HAL's event
  // orders everything before the signal, so B's copy must also follow A's
  // fill; nothing else crosses.
  CudaGraphDependencies graph;
  int eventA = 0, eventB = 0;
  EXPECT_EQ(graph.addNode(), Deps{}); // 0: fill a1
  graph.signal(&eventA);
  EXPECT_EQ(graph.addNode(), Deps{}); // 1: fill b1
  graph.signal(&eventB);
  graph.wait(&eventA);
  EXPECT_EQ(graph.addNode(), Deps{0}); // 2: copy a1 -> a2
  graph.wait(&eventB);
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 3: copy b1 -> b2
}

TEST(CudaGraphDependenciesTest, NodesBetweenSignalAndWaitAreFree) {
  CudaGraphDependencies graph;
  int event = 0;
  graph.addNode(); // 0
  graph.signal(&event);
  EXPECT_EQ(graph.addNode(), Deps{}); // 1
  graph.wait(&event);
  EXPECT_EQ(graph.addNode(), Deps{0}); // 2
  EXPECT_EQ(graph.addNode(), Deps{0}); // 3
  graph.barrier();
  // 1, 2 and 3 are the sinks; 0 is behind 2 and 3.
  EXPECT_EQ(graph.addNode(), (Deps{1, 2, 3}));
}

TEST(CudaGraphDependenciesTest, WaitCoveredByABarrierAddsNothing) {
  CudaGraphDependencies graph;
  int event = 0;
  graph.addNode(); // 0
  graph.signal(&event);
  graph.addNode(); // 1
  graph.barrier();
  graph.wait(&event); // 0 is before the barrier already
  EXPECT_EQ(graph.addNode(), (Deps{0, 1}));
}

TEST(CudaGraphDependenciesTest, LaterSignalSubsumesEarlierOne) {
  CudaGraphDependencies graph;
  int early = 0, late = 0;
  graph.addNode(); // 0
  graph.signal(&early);
  graph.addNode(); // 1
  graph.signal(&late);
  graph.wait(&late);
  graph.wait(&early); // its prefix is inside the later one
  EXPECT_EQ(graph.addNode(), (Deps{0, 1}));
}

TEST(CudaGraphDependenciesTest, SignalRepresentsItsPrefixBySinks) {
  CudaGraphDependencies graph;
  int event = 0;
  graph.addNode(); // 0
  graph.barrier();
  graph.addNode(); // 1, after 0
  graph.addNode(); // 2, after 0
  graph.signal(&event);
  graph.addNode(); // 3, after 0 only
  graph.wait(&event);
  // Everything before the signal is 0, 1, 2; 0 is behind 1 and 2. The
  // barrier's requirement (0) is shorter, so only the event's counts.
  EXPECT_EQ(graph.addNode(), (Deps{1, 2}));
}

TEST(CudaGraphDependenciesTest, UnsignalledEventOrdersNothing) {
  CudaGraphDependencies graph;
  int event = 0;
  graph.addNode();
  graph.wait(&event);
  EXPECT_EQ(graph.addNode(), Deps{});
}

} // namespace
} // namespace kiln::hal::cuda
