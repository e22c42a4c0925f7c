/*===- KilnApiCTest.c - kiln.h used from C --------------------------------===*
 *
 * Compiled as C11 with -pedantic-errors so the header stays C; the gtest in
 * KilnApiTest.cpp calls this.
 *===----------------------------------------------------------------------===*/
#include "runtime/api/kiln.h"

#include <string.h>

/* Loads the module in `bytes` on `uri`, calls `function` with two 4xf32
 * inputs and writes the first output's 4 floats to `result`. Returns 0 on
 * success, else a KilnStatusCode, with the message copied to `error`. */
int kilnCApiAddVectors(const char *uri, const void *bytes, size_t size,
                       const char *function, const float *a, const float *b,
                       float *result, char *error, size_t errorSize) {
  KilnDevice *device = NULL;
  KilnModule *module = NULL;
  const KilnFunction *fn = NULL;
  KilnOutputs *outputs = NULL;
  KilnTensor out;
  const int64_t shape[1] = {4};
  KilnTensor inputs[2];
  int code = 0;
  KilnStatus status = kilnDeviceCreate(uri, &device);
  inputs[0].elementType = KILN_ELEMENT_TYPE_F32;
  inputs[0].rank = 1;
  inputs[0].shape = shape;
  inputs[0].data = a;
  inputs[0].dataSize = 4 * sizeof(float);
  inputs[1] = inputs[0];
  inputs[1].data = b;
  if (!status)
    status = kilnModuleLoadBytes(device, bytes, size, &module);
  /* The module keeps the device alive. */
  kilnDeviceRelease(device);
  if (!status)
    status = kilnModuleLookupFunction(module, function, &fn);
  if (!status)
    status = kilnFunctionCall(fn, inputs, 2, &outputs);
  if (!status)
    status = kilnOutputsGet(outputs, 0, &out);
  if (!status && out.dataSize == 4 * sizeof(float))
    memcpy(result, out.data, out.dataSize);
  if (status) {
    code = (int)kilnStatusCode(status);
    strncpy(error, kilnStatusMessage(status), errorSize - 1);
    error[errorSize - 1] = '\0';
    kilnStatusFree(status);
  }
  kilnOutputsRelease(outputs);
  kilnModuleRelease(module);
  return code;
}

/* The same with the tensors in device buffers: uploads a and b, calls "add"
 * on them and reads the sum back. */
int kilnCApiAddVectorsOnDevice(const char *uri, const void *bytes, size_t size,
                               const float *a, const float *b, float *result,
                               char *error, size_t errorSize) {
  KilnDevice *device = NULL;
  KilnModule *module = NULL;
  const KilnFunction *fn = NULL;
  KilnBuffer *inputs[2] = {NULL, NULL};
  KilnBuffer *sum = NULL;
  int code = 0;
  KilnStatus status = kilnDeviceCreate(uri, &device);
  if (!status)
    status = kilnModuleLoadBytes(device, bytes, size, &module);
  if (!status)
    status = kilnModuleLookupFunction(module, "add", &fn);
  if (!status)
    status = kilnBufferAllocate(device, 4 * sizeof(float), &inputs[0]);
  if (!status)
    status = kilnBufferAllocate(device, 4 * sizeof(float), &inputs[1]);
  if (!status)
    status = kilnBufferAllocate(device, 4 * sizeof(float), &sum);
  if (!status)
    status = kilnBufferWrite(inputs[0], 0, a, 4 * sizeof(float));
  if (!status)
    status = kilnBufferWrite(inputs[1], 0, b, 4 * sizeof(float));
  if (!status)
    status = kilnFunctionCallBuffers(fn, inputs, 2, &sum, 1);
  if (!status)
    status = kilnBufferRead(sum, 0, result, 4 * sizeof(float));
  if (status) {
    code = (int)kilnStatusCode(status);
    strncpy(error, kilnStatusMessage(status), errorSize - 1);
    error[errorSize - 1] = '\0';
    kilnStatusFree(status);
  }
  kilnBufferRelease(sum);
  kilnBufferRelease(inputs[1]);
  kilnBufferRelease(inputs[0]);
  kilnModuleRelease(module);
  kilnDeviceRelease(device);
  return code;
}
