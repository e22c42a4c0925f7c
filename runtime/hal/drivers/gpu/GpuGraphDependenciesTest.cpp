//===- GpuGraphDependenciesTest.cpp --------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuGraphDependencies.h"

#include <gtest/gtest.h>

namespace kiln::hal::gpu {
namespace {

using Deps = std::vector<uint32_t>;

TEST(GpuGraphDependenciesTest, NodesWithoutOrderingAreIndependent) {
  GpuGraphDependencies graph;
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.addNode(), Deps{});
  EXPECT_EQ(graph.nodeCount(), 3u);
}

TEST(GpuGraphDependenciesTest, BarrierJoinsEverythingBeforeIt) {
  GpuGraphDependencies graph;
  graph.addNode(); // 0
  graph.addNode(); // 1
  graph.barrier();
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 2
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 3: not after 2
  graph.barrier();
  // 0 and 1 are reached through 2 and 3.
  EXPECT_EQ(graph.addNode(), (Deps{2, 3}));
}

TEST(GpuGraphDependenciesTest, ChainOfBarriersIsAChain) {
  GpuGraphDependencies graph;
  graph.barrier(); // before any node: nothing to wait for
  EXPECT_EQ(graph.addNode(), Deps{});
  for (uint32_t i = 1; i < 5; ++i) {
    graph.barrier();
    graph.barrier(); // a second barrier adds nothing
    EXPECT_EQ(graph.addNode(), Deps{i - 1});
  }
}

TEST(GpuGraphDependenciesTest, EventsOrderOnlyTheirTwoGroups) {
  // Two chains, fill then copy, ordered by one event each. The HAL's event
  // orders everything before the signal, so B's copy must also follow A's
  // fill; nothing else crosses.
  GpuGraphDependencies graph;
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

TEST(GpuGraphDependenciesTest, NodesBetweenSignalAndWaitAreFree) {
  GpuGraphDependencies graph;
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

TEST(GpuGraphDependenciesTest, WaitCoveredByABarrierAddsNothing) {
  GpuGraphDependencies graph;
  int event = 0;
  graph.addNode(); // 0
  graph.signal(&event);
  graph.addNode(); // 1
  graph.barrier();
  graph.wait(&event); // 0 is before the barrier already
  EXPECT_EQ(graph.addNode(), (Deps{0, 1}));
}

TEST(GpuGraphDependenciesTest, LaterSignalSubsumesEarlierOne) {
  GpuGraphDependencies graph;
  int early = 0, late = 0;
  graph.addNode(); // 0
  graph.signal(&early);
  graph.addNode(); // 1
  graph.signal(&late);
  graph.wait(&late);
  graph.wait(&early); // its prefix is inside the later one
  EXPECT_EQ(graph.addNode(), (Deps{0, 1}));
}

TEST(GpuGraphDependenciesTest, SignalRepresentsItsPrefixBySinks) {
  GpuGraphDependencies graph;
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

TEST(GpuGraphDependenciesTest, UnsignalledEventOrdersNothing) {
  GpuGraphDependencies graph;
  int event = 0;
  graph.addNode();
  graph.wait(&event);
  EXPECT_EQ(graph.addNode(), Deps{});
}

// With dependOn, commands and nodes are numbered apart; in these cases
// every command is a node unless it says otherwise.

TEST(GpuGraphDependenciesTest, InterleavedChainsGetOnlyTheirOwnEdges) {
  // Two chains recorded alternately, as a module with two independent
  // branches is: no barrier or event, each link naming the one before it.
  GpuGraphDependencies graph;
  EXPECT_EQ(graph.addNode(), Deps{}); // 0: A1
  EXPECT_EQ(graph.addNode(), Deps{}); // 1: B1
  for (uint32_t link = 1; link < 4; ++link) {
    uint32_t a = 2 * link, b = 2 * link + 1;
    uint32_t previousA[] = {a - 2}, previousB[] = {b - 2};
    EXPECT_EQ(graph.addNode(previousA), Deps{a - 2}) << "A" << link + 1;
    EXPECT_EQ(graph.addNode(previousB), Deps{b - 2}) << "B" << link + 1;
  }
  // A join naming every link of both chains needs only their ends (6, 7):
  // each end reaches the links before it.
  uint32_t everything[] = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(graph.addNode(everything), (Deps{6, 7})); // 8
  // The named links stopped being sinks: a barrier now joins 8 alone.
  graph.barrier();
  EXPECT_EQ(graph.addNode(), Deps{8});
  EXPECT_EQ(graph.nodeCount(), 10u);
  EXPECT_EQ(graph.commandCount(), 10u);
}

TEST(GpuGraphDependenciesTest, NamedNodeInsideTheRequiredPrefixAddsNoEdge) {
  GpuGraphDependencies graph;
  graph.addNode(); // 0
  graph.addNode(); // 1
  graph.barrier();
  // 0 is one of the barrier's sinks already.
  uint32_t first[] = {0};
  EXPECT_EQ(graph.addNode(first), (Deps{0, 1})); // 2
  // 2 followed the same barrier, so naming it covers 0 and 1: a chain
  // after a barrier gets one edge per link, not one per sink.
  uint32_t previous[] = {2};
  EXPECT_EQ(graph.addNode(previous), Deps{2}); // 3
  // Naming nothing still follows the barrier.
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 4
  graph.barrier();
  // Everything named is inside the new prefix (sinks 3 and 4).
  uint32_t inside[] = {0, 2, 3};
  EXPECT_EQ(graph.addNode(inside), (Deps{3, 4})); // 5
}

TEST(GpuGraphDependenciesTest, EmptyCommandPassesItsDependenciesThrough) {
  GpuGraphDependencies graph;
  EXPECT_EQ(graph.addNode(), Deps{}); // command 0, node 0
  EXPECT_EQ(graph.addNode(), Deps{}); // command 1, node 1
  uint32_t zero[] = {0};
  graph.addEmptyCommand(zero); // command 2: no node
  uint32_t two[] = {2};
  graph.addEmptyCommand(two); // command 3: no node, stands for node 0
  EXPECT_EQ(graph.nodeCount(), 2u);
  EXPECT_EQ(graph.commandCount(), 4u);
  // Naming command 3 means waiting for node 0, not for node 1.
  uint32_t three[] = {3};
  EXPECT_EQ(graph.addNode(three), Deps{0}); // command 4, node 2
  // An empty command that named nothing stands for nothing.
  graph.addEmptyCommand(); // command 5
  uint32_t five[] = {5};
  EXPECT_EQ(graph.addNode(five), Deps{}); // command 6, node 3
  uint32_t oneAndFour[] = {1, 4};
  graph.addEmptyCommand(oneAndFour); // command 7: nodes 1 and 2
  // Commands 3 and 7 stand for nodes 0, 1 and 2; 2 reaches 0.
  uint32_t threeAndSeven[] = {3, 7};
  EXPECT_EQ(graph.addNode(threeAndSeven), (Deps{1, 2})); // command 8, node 4
}

TEST(GpuGraphDependenciesTest, NamedDependenciesMixWithEvents) {
  GpuGraphDependencies graph;
  int event = 0;
  EXPECT_EQ(graph.addNode(), Deps{}); // 0: A1
  EXPECT_EQ(graph.addNode(), Deps{}); // 1: B1
  graph.signal(&event);               // before it: 0 and 1
  uint32_t a1[] = {0};
  EXPECT_EQ(graph.addNode(a1), Deps{0}); // 2: A2, free of B
  graph.wait(&event);
  // 2 reaches 0 but not 1, and did not follow the event's prefix: the
  // edge to 0 is implied by naming 2, the one to 1 is not.
  uint32_t a2[] = {2};
  EXPECT_EQ(graph.addNode(a2), (Deps{1, 2})); // 3: A3
  // Following the event, like 3, and named: 3 covers the event's sinks.
  uint32_t a3[] = {3};
  EXPECT_EQ(graph.addNode(a3), Deps{3}); // 4: A4
  // An unnamed node after the wait joins the event's sinks only.
  EXPECT_EQ(graph.addNode(), (Deps{0, 1})); // 5
}

} // namespace
} // namespace kiln::hal::gpu
