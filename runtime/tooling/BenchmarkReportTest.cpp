//===- BenchmarkReportTest.cpp --------------------------------------------===//

#include "runtime/tooling/BenchmarkReport.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln::tooling {
namespace {

TEST(BenchmarkReportTest, HostAndDeviceSections) {
  BenchmarkOptions options;
  options.Warmup = 3;
  options.Repetitions = 4;
  BenchmarkSamples samples;
  samples.HostSeconds = {40e-6, 10e-6, 20e-6, 30e-6};
  samples.DeviceSeconds = {3e-3, 3e-3, 3e-3, 3e-3};
  std::ostringstream out;
  printBenchmarkReport(out, "matmul", "cuda", options, samples);
  EXPECT_EQ(out.str(),
            "EXEC @matmul on cuda: 4 timed calls after 3 warm-up calls\n"
            "inputs were copied to the device once; results stay there (no "
            "host<->device copies in the timed calls)\n"
            "host time per call (the host's clock around each call):\n"
            "  median    25.000 us\n"
            "  min       10.000 us\n"
            "  max       40.000 us\n"
            "  p10-p90   13.000 us - 37.000 us\n"
            "  MAD       10.000 us (40.0% of the median)\n"
            "  mean      25.000 us\n"
            "device time per call (the device's clock around the call's "
            "commands):\n"
            "  median    3.000 ms\n"
            "  min       3.000 ms\n"
            "  max       3.000 ms\n"
            "  p10-p90   3.000 ms - 3.000 ms\n"
            "  MAD       0.000 ms (0.0% of the median)\n"
            "  mean      3.000 ms\n");
}

TEST(BenchmarkReportTest, SaysWhyThereIsNoDeviceTime) {
  BenchmarkOptions options;
  options.IncludeTransfers = true;
  options.Warmup = 0;
  options.Repetitions = 1;
  BenchmarkSamples samples;
  samples.HostSeconds = {2.0};
  samples.NoDeviceTime = "no clock";
  std::ostringstream out;
  printBenchmarkReport(out, "f", "local-sync", options, samples);
  std::string text = out.str();
  EXPECT_NE(text.find("each call copies its inputs to the device and its "
                      "results back\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  median    2.000 s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("device time per call: not measured (no clock)\n"),
            std::string::npos)
      << text;
}

// kiln-benchmark-module --input_set: a line per set, the device clock's
// numbers only where it measured.
TEST(BenchmarkReportTest, SummaryLinePerInputSet) {
  std::vector<BenchmarkSamples> samples(2);
  samples[0].HostSeconds = {10e-6, 12e-6, 14e-6};
  samples[1].HostSeconds = {2e-3, 2e-3, 2e-3};
  samples[1].DeviceSeconds = {1e-3, 1e-3, 1e-3};
  const std::vector<std::string> labels = {"7xf32, 7xf32",
                                           "4096xf32, 4096xf32"};
  std::ostringstream out;
  printInputSetSummary(out, labels, samples);
  EXPECT_EQ(out.str(),
            "median per input set (host clock; device clock where "
            "measured):\n"
            "  set 1 (7xf32, 7xf32): host 12.000 us (MAD 16.7%)\n"
            "  set 2 (4096xf32, 4096xf32): host 2.000 ms (MAD 0.0%), device "
            "1.000 ms (MAD 0.0%)\n");
}

// --function_times: a row per function, runs and each part as means per
// timed call in microseconds, other the total less the parts; nothing
// without sums or calls.
TEST(BenchmarkReportTest, FunctionTimesPerCall) {
  module::FunctionTime phase{"det_phase1", 4,      8e-3, 2e-3,
                             1e-3,         0.5e-3, 0,    4e-3};
  module::FunctionTime body{"det_rounds", 44, 4e-3, 0, 0, 0, 0, 3e-3};
  std::vector<module::FunctionTime> times = {phase, body};
  std::ostringstream out;
  printFunctionTimes(out, times, 4);
  EXPECT_EQ(out.str(),
            "host time per call by function, us (a function running phases "
            "or loops includes theirs; other = total less the parts):\n"
            "        runs      total      read    shapes  allocate    record "
            "      run     other  function\n"
            "         1.0     2000.0     500.0     250.0     125.0       0.0 "
            "   1000.0     125.0  det_phase1\n"
            "        11.0     1000.0       0.0       0.0       0.0       0.0 "
            "    750.0     250.0  det_rounds\n");
  std::ostringstream none;
  printFunctionTimes(none, {}, 4);
  printFunctionTimes(none, times, 0);
  EXPECT_EQ(none.str(), "");
}

} // namespace
} // namespace kiln::tooling
