//===- CudaStatusTest.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaStatus.h"

#include <gtest/gtest.h>

namespace kiln::hal::cuda {
namespace {

TEST(CudaStatusTest, ResultsMapToTheCodesCallersActOn) {
  EXPECT_EQ(cudaResultCode(CUDA_SUCCESS), StatusCode::Ok);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_OUT_OF_MEMORY),
            StatusCode::ResourceExhausted);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_ILLEGAL_ADDRESS), StatusCode::Aborted);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_INVALID_VALUE),
            StatusCode::InvalidArgument);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_NO_DEVICE), StatusCode::NotFound);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_NOT_INITIALIZED),
            StatusCode::Unavailable);
  EXPECT_EQ(cudaResultCode(CUDA_ERROR_UNKNOWN), StatusCode::Internal);
}

} // namespace
} // namespace kiln::hal::cuda
