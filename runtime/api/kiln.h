/*===- kiln.h - C API for embedding the Kiln runtime ----------------------===*
 *
 * Create a device from a URI, load a module, call its functions on host
 * tensors:
 *
 *   KilnDevice *device;
 *   KilnModule *module;
 *   const KilnFunction *fn;
 *   KilnOutputs *outputs;
 *   KilnStatus s = kilnDeviceCreate("local-task", &device);
 *   if (!s) s = kilnModuleLoadFile(device, "model.kiln", &module);
 *   if (!s) s = kilnModuleLookupFunction(module, "main", &fn);
 *   if (!s) s = kilnFunctionCall(fn, inputs, 2, &outputs);
 *   if (s) { fprintf(stderr, "%s\n", kilnStatusMessage(s)); kilnStatusFree(s);
 *}
 *
 * Or keep tensors on the device between calls (no host round trip: a GPU
 * reads and writes its own memory, outputs feed the next call's inputs):
 *
 *   KilnBuffer *x, *y;
 *   s = kilnBufferAllocate(device, 16, &x);
 *   if (!s) s = kilnBufferAllocate(device, 16, &y);
 *   if (!s) s = kilnBufferWrite(x, 0, data, 16);
 *   if (!s) s = kilnFunctionCallBuffers(fn, &x, 1, &y, 1);
 *   if (!s) s = kilnBufferRead(y, 0, result, 16);
 *
 * A function with dynamic dimensions (-1 in its types) takes each call's
 * input shapes beside the buffers and gives its outputs' shapes
 * (kilnFunctionCallBuffersWithShapes, kilnFunctionOutputShapes).
 *
 * Every fallible call returns a KilnStatus: NULL means success, anything else
 * must be released with kilnStatusFree. Output pointers are set to NULL on
 * failure. Handles are opaque; each *Release accepts NULL. A module keeps its
 * device alive, so the device may be released first. Calls on one module are
 * serialized internally; distinct modules may be used from distinct threads.
 *
 * The header is C11 and C++ compatible.
 *===----------------------------------------------------------------------===*/
#ifndef KILN_RUNTIME_API_KILN_H
#define KILN_RUNTIME_API_KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Status ------------------------------------------------------------===*/

typedef enum KilnStatusCode {
  KILN_STATUS_OK = 0,
  KILN_STATUS_CANCELLED = 1,
  KILN_STATUS_UNKNOWN = 2,
  KILN_STATUS_INVALID_ARGUMENT = 3,
  KILN_STATUS_DEADLINE_EXCEEDED = 4,
  KILN_STATUS_NOT_FOUND = 5,
  KILN_STATUS_ALREADY_EXISTS = 6,
  KILN_STATUS_PERMISSION_DENIED = 7,
  KILN_STATUS_RESOURCE_EXHAUSTED = 8,
  KILN_STATUS_FAILED_PRECONDITION = 9,
  KILN_STATUS_ABORTED = 10,
  KILN_STATUS_OUT_OF_RANGE = 11,
  KILN_STATUS_UNIMPLEMENTED = 12,
  KILN_STATUS_INTERNAL = 13,
  KILN_STATUS_UNAVAILABLE = 14,
  KILN_STATUS_DATA_LOSS = 15
} KilnStatusCode;

/* NULL is success. */
typedef struct KilnStatusImpl *KilnStatus;

/* KILN_STATUS_OK for NULL. */
KilnStatusCode kilnStatusCode(KilnStatus status);
/* One line: "INVALID_ARGUMENT: message [file:line]", or "OK" for NULL. Valid
 * until the status is freed. */
const char *kilnStatusMessage(KilnStatus status);
void kilnStatusFree(KilnStatus status);

/*===-- Tensors -----------------------------------------------------------===*/

/* Values match the module format's element types. */
typedef enum KilnElementType {
  KILN_ELEMENT_TYPE_F32 = 0,
  KILN_ELEMENT_TYPE_F16 = 1,
  KILN_ELEMENT_TYPE_BF16 = 2,
  KILN_ELEMENT_TYPE_F64 = 3,
  KILN_ELEMENT_TYPE_I1 = 4, /* one byte per element, 0 or 1 */
  KILN_ELEMENT_TYPE_I8 = 5,
  KILN_ELEMENT_TYPE_I16 = 6,
  KILN_ELEMENT_TYPE_I32 = 7,
  KILN_ELEMENT_TYPE_I64 = 8,
  KILN_ELEMENT_TYPE_U8 = 9,
  KILN_ELEMENT_TYPE_U16 = 10,
  KILN_ELEMENT_TYPE_U32 = 11,
  KILN_ELEMENT_TYPE_U64 = 12
} KilnElementType;

/* Bytes per element of a KilnElementType value; 0 for an unknown one. */
size_t kilnElementTypeSize(int32_t elementType);

/* A dense row-major tensor in host memory, described, not owned. The
 * element type is a fixed-width field holding a KilnElementType value,
 * because the size of an enum is up to each C compiler. */
typedef struct KilnTensor {
  int32_t elementType; /* a KilnElementType */
  size_t rank;
  const int64_t *shape; /* rank entries; may be NULL when rank is 0 */
  const void *data;     /* dataSize bytes */
  size_t dataSize;
} KilnTensor;

/*===-- Drivers and devices -----------------------------------------------===*/

typedef struct KilnDevice KilnDevice;

/* The registered drivers ("local-sync", "local-task", ...). Names are valid
 * for the life of the process. */
size_t kilnDriverCount(void);
const char *kilnDriverName(size_t index); /* NULL when out of range */

/* `uri`: "local-task", "local-task://?workers=4", "cuda:1", ... */
KilnStatus kilnDeviceCreate(const char *uri, KilnDevice **outDevice);
void kilnDeviceRelease(KilnDevice *device);

/*===-- Modules and functions ---------------------------------------------===*/

typedef struct KilnModule KilnModule;
typedef struct KilnFunction KilnFunction; /* owned by its module */
typedef struct KilnOutputs KilnOutputs;

/* Loads and verifies a module file for `device`. */
KilnStatus kilnModuleLoadFile(KilnDevice *device, const char *path,
                              KilnModule **outModule);
/* Same, from memory; the bytes are copied. */
KilnStatus kilnModuleLoadBytes(KilnDevice *device, const void *data,
                               size_t size, KilnModule **outModule);
void kilnModuleRelease(KilnModule *module);

size_t kilnModuleFunctionCount(const KilnModule *module);
/* Borrowed; NULL when out of range. */
const KilnFunction *kilnModuleFunctionAt(const KilnModule *module,
                                         size_t index);
/* NOT_FOUND lists the available names. The function is borrowed and valid
 * while the module lives. */
KilnStatus kilnModuleLookupFunction(const KilnModule *module, const char *name,
                                    const KilnFunction **outFunction);

const char *kilnFunctionName(const KilnFunction *function);
size_t kilnFunctionInputCount(const KilnFunction *function);
size_t kilnFunctionOutputCount(const KilnFunction *function);
/* The type of input/output `index`: elementType, rank, shape and dataSize
 * (the byte size) are set; data is NULL. The shape lives in the module. A
 * dynamic dimension is -1 (each call's inputs give it; outputs come with
 * their shapes) and dataSize is then 0. */
KilnStatus kilnFunctionInputType(const KilnFunction *function, size_t index,
                                 KilnTensor *outType);
KilnStatus kilnFunctionOutputType(const KilnFunction *function, size_t index,
                                  KilnTensor *outType);

/* Runs the function. Inputs are checked against its signature (count, type,
 * shape, data size) and read during the call only. */
KilnStatus kilnFunctionCall(const KilnFunction *function,
                            const KilnTensor *inputs, size_t inputCount,
                            KilnOutputs **outOutputs);

size_t kilnOutputsCount(const KilnOutputs *outputs);
/* Describes output `index`; its pointers are valid until the outputs are
 * released. */
KilnStatus kilnOutputsGet(const KilnOutputs *outputs, size_t index,
                          KilnTensor *outTensor);
void kilnOutputsRelease(KilnOutputs *outputs);

/*===-- Device buffers ----------------------------------------------------===*/

/* Memory of one device holding a tensor's bytes (dense, row-major), which
 * functions of modules loaded for that device read as inputs and write as
 * outputs in place. A buffer keeps its device alive. Every call below
 * returns once its work is done; a buffer must not be written while another
 * thread's call uses it. */
typedef struct KilnBuffer KilnBuffer;

/* `size` bytes (0 is allowed) of `device`'s memory, contents unspecified:
 * device-local memory on a GPU, host memory on a CPU device. */
KilnStatus kilnBufferAllocate(KilnDevice *device, size_t size,
                              KilnBuffer **outBuffer);
void kilnBufferRelease(KilnBuffer *buffer);
/* 0 for NULL. */
size_t kilnBufferSize(const KilnBuffer *buffer);

/* Copies `size` bytes from host memory `data` into the buffer at `offset`;
 * the bytes are in place when it returns. OUT_OF_RANGE when the range
 * leaves the buffer. */
KilnStatus kilnBufferWrite(KilnBuffer *buffer, size_t offset, const void *data,
                           size_t size);
/* Copies `size` bytes of the buffer at `offset` into host memory `data`. */
KilnStatus kilnBufferRead(const KilnBuffer *buffer, size_t offset, void *data,
                          size_t size);

/* Runs the function on inputs already in buffers and writes its outputs
 * into buffers, one per input and output in signature order: nothing is
 * copied between host and device. Each buffer holds at least its tensor's
 * bytes (the dataSize of kilnFunctionInputType/OutputType) and was
 * allocated with the KilnDevice the module was loaded for; an output's
 * buffer is none of the inputs' nor another output's. Returns when the
 * outputs are written. A function with dynamic dimensions needs its shapes:
 * kilnFunctionCallBuffersWithShapes. */
KilnStatus kilnFunctionCallBuffers(const KilnFunction *function,
                                   KilnBuffer *const *inputs, size_t inputCount,
                                   KilnBuffer *const *outputs,
                                   size_t outputCount);

/*===-- Device buffers at each call's shapes ------------------------------===*/

/* A buffer holds bytes, not a shape, so a function with dynamic dimensions
 * (-1 in kilnFunctionInputType/OutputType) cannot learn a call's shapes from
 * its buffers; kilnFunctionCallBuffers refuses it. The calls below take each
 * input's shape beside its buffer and give each output's, so the same
 * buffers (allocated once for the largest shapes, say) serve calls at
 * different shapes, as a decoder's growing cache needs. They accept static
 * functions too, whose shapes must then be the signature's.
 *
 * Every shape is checked before anything runs: the count of shapes, each
 * rank against the signature's (at most 16), each dimension >= 0 and equal
 * to the signature's where that is not -1, the equalities the function
 * needs between inputs, byte sizes (overflow checked, at most 2^48) against
 * the buffers' sizes. A failure is INVALID_ARGUMENT naming the input (or
 * output) and the dimension. */

/* One tensor's dimensions, read during the call only. */
typedef struct KilnShape {
  size_t rank;
  const int64_t *dims; /* rank entries; may be NULL when rank is 0 */
} KilnShape;

/* What a call at `inputShapes` gives, without running it, so that output
 * buffers can be allocated first: output i's dimensions are written to
 * outputDims[i], which has room for the output's rank (kilnFunctionOutputType;
 * a rank is never dynamic) and may be NULL for rank 0, and its byte size to
 * outputSizes[i]. Either array may be NULL when not wanted; outputCount is
 * the function's output count. */
KilnStatus kilnFunctionOutputShapes(const KilnFunction *function,
                                    const KilnShape *inputShapes,
                                    size_t inputCount,
                                    int64_t *const *outputDims,
                                    size_t *outputSizes, size_t outputCount);

/* kilnFunctionCallBuffers with input i's shape in inputShapes[i]; each
 * output buffer holds at least what kilnFunctionOutputShapes gives for these
 * shapes. When outputDims is not NULL, output i's dimensions are written to
 * outputDims[i] as kilnFunctionOutputShapes writes them (this costs the shape
 * program's evaluation once more; pass NULL in a hot loop whose shapes are
 * known). A call at the shapes of the one before reuses its recording;
 * other shapes record afresh. */
KilnStatus kilnFunctionCallBuffersWithShapes(
    const KilnFunction *function, KilnBuffer *const *inputs,
    const KilnShape *inputShapes, size_t inputCount, KilnBuffer *const *outputs,
    int64_t *const *outputDims, size_t outputCount);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_API_KILN_H */
