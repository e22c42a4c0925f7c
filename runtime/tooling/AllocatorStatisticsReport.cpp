//===- AllocatorStatisticsReport.cpp --------------------------------------===//

#include "runtime/tooling/AllocatorStatisticsReport.h"

#include <array>
#include <iomanip>
#include <string>
#include <vector>

namespace kiln::tooling {

void printAllocatorStatistics(std::ostream &out, std::string_view device,
                              const hal::Allocator &allocator) {
  using hal::MemoryType;
  const hal::AllocatorStatistics stats = allocator.statistics();
  struct Row {
    std::string Name;
    const hal::AllocatorStatistics::Counters *Counters;
  };
  std::vector<Row> rows;
  for (MemoryType type : {MemoryType::DeviceLocal, MemoryType::HostVisible,
                          MemoryType::DeviceLocal | MemoryType::HostVisible}) {
    const hal::AllocatorStatistics::Counters *counters =
        stats.forMemoryType(type);
    if (allocator.supportsMemoryType(type) || counters->Allocations)
      rows.push_back({hal::memoryTypeString(type), counters});
  }
  rows.push_back({"imported", &stats.Imported});

  const std::array<const char *, 7> headers = {
      "memory",      "live bytes", "live buffers", "peak bytes",
      "allocations", "frees",      "total bytes"};
  std::vector<std::array<std::string, 7>> cells;
  for (const Row &row : rows) {
    const hal::AllocatorStatistics::Counters &c = *row.Counters;
    cells.push_back({row.Name, std::to_string(c.LiveBytes),
                     std::to_string(c.LiveBuffers), std::to_string(c.PeakBytes),
                     std::to_string(c.Allocations), std::to_string(c.Frees),
                     std::to_string(c.TotalBytes)});
  }
  std::array<size_t, 7> widths;
  for (size_t i = 0; i < widths.size(); ++i) {
    widths[i] = std::string_view(headers[i]).size();
    for (const auto &line : cells)
      widths[i] = std::max(widths[i], line[i].size());
  }
  // The name column left-aligned, the numbers right-aligned under their
  // headers.
  auto printLine = [&](auto cell) {
    out << "  " << std::left << std::setw(int(widths[0])) << cell(0);
    for (size_t i = 1; i < widths.size(); ++i)
      out << "  " << std::right << std::setw(int(widths[i])) << cell(i);
    out << "\n";
  };
  out << "allocator statistics (" << device << "):\n";
  printLine([&](size_t i) { return std::string(headers[i]); });
  for (const auto &line : cells)
    printLine([&](size_t i) { return line[i]; });
  out << "  refused for lack of memory: " << stats.OutOfMemory << "\n";
}

} // namespace kiln::tooling
