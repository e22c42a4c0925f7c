//===- LatencyStatsTest.cpp -----------------------------------------------===//

#include "runtime/tooling/LatencyStats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kiln::tooling {
namespace {

TEST(LatencyStatsTest, KnownSamples) {
  // Shuffled 1..11 ms: median 6, p10 2, p90 10, MAD 3.
  std::vector<double> samples;
  for (int i = 1; i <= 11; ++i)
    samples.push_back(i * 1e-3);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(1));
  LatencyStats stats = computeLatencyStats(samples);
  EXPECT_EQ(stats.Count, 11u);
  EXPECT_DOUBLE_EQ(stats.Min, 1e-3);
  EXPECT_DOUBLE_EQ(stats.Max, 11e-3);
  EXPECT_DOUBLE_EQ(stats.Median, 6e-3);
  EXPECT_DOUBLE_EQ(stats.P10, 2e-3);
  EXPECT_DOUBLE_EQ(stats.P90, 10e-3);
  EXPECT_DOUBLE_EQ(stats.Mad, 3e-3);
  EXPECT_DOUBLE_EQ(stats.Mean, 6e-3);
}

TEST(LatencyStatsTest, OutlierDoesNotMoveMedianOrMad) {
  std::vector<double> samples = {5, 5.1, 4.9, 5, 1000};
  LatencyStats stats = computeLatencyStats(samples);
  EXPECT_DOUBLE_EQ(stats.Median, 5);
  EXPECT_NEAR(stats.Mad, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(stats.Max, 1000);
}

TEST(LatencyStatsTest, InterpolatedPercentile) {
  std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(sorted, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(sorted, 100), 4);
  EXPECT_DOUBLE_EQ(percentile({7}, 90), 7);
}

TEST(LatencyStatsTest, EmptyAndSingle) {
  EXPECT_EQ(computeLatencyStats({}).Count, 0u);
  LatencyStats one = computeLatencyStats({0.25});
  EXPECT_DOUBLE_EQ(one.Median, 0.25);
  EXPECT_DOUBLE_EQ(one.Mad, 0);
}

TEST(LatencyStatsTest, FormatDuration) {
  EXPECT_EQ(formatDuration(1.2346e-3), "1.235 ms");
  EXPECT_EQ(formatDuration(56.7e-6), "56.700 us");
  EXPECT_EQ(formatDuration(890e-9), "890.000 ns");
  EXPECT_EQ(formatDuration(2.5), "2.500 s");
  EXPECT_EQ(formatDuration(704.5e-9, durationUnit(49e-6)), "0.705 us");
}

} // namespace
} // namespace kiln::tooling
