//===- AllocatorStatisticsReport.h - What --print_statistics prints -------===//
//
// The device allocator's counters as a table, one row per memory type the
// device offers (and any other that was used) plus imported buffers; the
// columns are live bytes, live buffers, peak bytes, allocations, frees and
// total bytes, then a line counting allocations refused for lack of memory.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_ALLOCATORSTATISTICSREPORT_H
#define KILN_RUNTIME_TOOLING_ALLOCATORSTATISTICSREPORT_H

#include "runtime/hal/Allocator.h"

#include <ostream>
#include <string_view>

namespace kiln::tooling {

void printAllocatorStatistics(std::ostream &out, std::string_view device,
                              const hal::Allocator &allocator);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_ALLOCATORSTATISTICSREPORT_H
