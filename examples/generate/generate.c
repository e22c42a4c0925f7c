/*===- generate.c - Greedy decoding with the key/value cache on a device --===*
 *
 * kiln-generate --module=decoder.kiln [--device=local-task] [--tokens=64]
 *               PROMPT_ID...
 *
 * Greedy-decodes --tokens tokens after the prompt's token ids with a
 * decoder compiled from tests/models/decoder_model.py's export (inputs ids
 * [1, new], positions [1, new], an additive mask [1, 1, new, past + new] and
 * past_key_i/past_value_i [1, heads, past, head width]; outputs logits
 * [1, new, vocab] and present_key_i/present_value_i [1, heads, past + new,
 * head width]) through the C API's device-buffer calls: the cache stays in
 * the device's memory from one call to the next (two sets of buffers
 * allocated once at the largest context, each call's present cache the next
 * call's past), and only the newest position's logits come back to the
 * host for the argmax. Prints the generated ids on one line.
 *
 * Plain C11 on kiln.h: what an application embedding the runtime writes.
 *===----------------------------------------------------------------------===*/

#include "runtime/api/kiln.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mask is context^2 floats on host and device: 8192 positions are
 * 256 MB. */
enum { kMaxLayers = 64, kMaxContext = 8192 };

static int fail(KilnStatus status, const char *what) {
  fprintf(stderr, "kiln-generate: %s: %s\n", what, kilnStatusMessage(status));
  kilnStatusFree(status);
  return 1;
}

static int parseCount(const char *text, long max, long *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < 0 || v > max)
    return 0;
  *out = v;
  return 1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: kiln-generate --module=decoder.kiln [--device=local-task] "
          "[--tokens=64] PROMPT_ID...\n"
          "Greedy-decodes --tokens token ids after the prompt with a "
          "key/value-cache decoder\n(tests/models/decoder_model.py's "
          "signature), the cache kept in device buffers.\n");
}

typedef struct Decoder {
  const KilnFunction *fn;
  KilnDevice *device;
  size_t layers, heads, headWidth, vocab;
  KilnBuffer *ids, *positions, *mask, *logits;
  KilnBuffer
      *cache[2][2 * kMaxLayers]; /* [set][2 * layer + (0 key, 1 value)] */
  int64_t *hostIds, *hostPositions;
  float *hostMask, *hostLogits;
} Decoder;

/* Checks the signature and reads the cache's heads, head width and the
 * vocabulary from it. */
static KilnStatus describe(Decoder *d, int *ok) {
  size_t inputs = kilnFunctionInputCount(d->fn);
  size_t outputs = kilnFunctionOutputCount(d->fn);
  *ok = 0;
  if (inputs < 5 || (inputs - 3) % 2 || outputs != inputs - 2 ||
      (inputs - 3) / 2 > kMaxLayers)
    return NULL;
  d->layers = (inputs - 3) / 2;
  KilnTensor past, logits;
  KilnStatus s = kilnFunctionInputType(d->fn, 3, &past);
  if (!s)
    s = kilnFunctionOutputType(d->fn, 0, &logits);
  if (s)
    return s;
  if (past.rank != 4 || past.shape[1] <= 0 || past.shape[3] <= 0 ||
      past.elementType != KILN_ELEMENT_TYPE_F32 || logits.rank != 3 ||
      logits.shape[2] <= 0 || logits.elementType != KILN_ELEMENT_TYPE_F32)
    return NULL;
  d->heads = (size_t)past.shape[1];
  d->headWidth = (size_t)past.shape[3];
  d->vocab = (size_t)logits.shape[2];
  *ok = 1;
  return NULL;
}

/* One call: `newCount` positions from `past`, the cache read from set
 * `from` and written to the other; the argmax of the last position's
 * logits into *token. */
static KilnStatus step(Decoder *d, size_t past, size_t newCount, int from,
                       const int64_t *ids, int64_t *token) {
  size_t total = past + newCount;
  for (size_t j = 0; j < newCount; ++j) {
    d->hostIds[j] = ids[j];
    d->hostPositions[j] = (int64_t)(past + j);
    /* Query j sees the keys up to its own position. */
    for (size_t k = 0; k < total; ++k)
      d->hostMask[j * total + k] = k <= past + j ? 0.0f : -INFINITY;
  }
  KilnStatus s =
      kilnBufferWrite(d->ids, 0, d->hostIds, newCount * sizeof(int64_t));
  if (!s)
    s = kilnBufferWrite(d->positions, 0, d->hostPositions,
                        newCount * sizeof(int64_t));
  if (!s)
    s = kilnBufferWrite(d->mask, 0, d->hostMask,
                        newCount * total * sizeof(float));
  if (s)
    return s;

  int64_t tokenDims[2] = {1, (int64_t)newCount};
  int64_t maskDims[4] = {1, 1, (int64_t)newCount, (int64_t)total};
  int64_t pastDims[4] = {1, (int64_t)d->heads, (int64_t)past,
                         (int64_t)d->headWidth};
  KilnShape shapes[3 + 2 * kMaxLayers];
  KilnBuffer *inputs[3 + 2 * kMaxLayers], *outputs[1 + 2 * kMaxLayers];
  shapes[0] = (KilnShape){2, tokenDims};
  shapes[1] = (KilnShape){2, tokenDims};
  shapes[2] = (KilnShape){4, maskDims};
  inputs[0] = d->ids;
  inputs[1] = d->positions;
  inputs[2] = d->mask;
  outputs[0] = d->logits;
  for (size_t i = 0; i < 2 * d->layers; ++i) {
    shapes[3 + i] = (KilnShape){4, pastDims};
    inputs[3 + i] = d->cache[from][i];
    outputs[1 + i] = d->cache[1 - from][i];
  }
  s = kilnFunctionCallBuffersWithShapes(d->fn, inputs, shapes,
                                        3 + 2 * d->layers, outputs, NULL,
                                        1 + 2 * d->layers);
  if (s)
    return s;
  /* Only the newest position's logits come back. */
  size_t row = d->vocab * sizeof(float);
  s = kilnBufferRead(d->logits, (newCount - 1) * row, d->hostLogits, row);
  if (s)
    return s;
  size_t best = 0;
  for (size_t v = 1; v < d->vocab; ++v)
    if (d->hostLogits[v] > d->hostLogits[best])
      best = v;
  *token = (int64_t)best;
  return NULL;
}

int main(int argc, char **argv) {
  const char *modulePath = NULL, *deviceUri = "local-task";
  long tokens = 64;
  int64_t *prompt = calloc((size_t)argc, sizeof(int64_t));
  size_t promptCount = 0;
  if (!prompt)
    return 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    long v;
    if (!strncmp(a, "--module=", 9)) {
      modulePath = a + 9;
    } else if (!strncmp(a, "--device=", 9)) {
      deviceUri = a + 9;
    } else if (!strncmp(a, "--tokens=", 9)) {
      if (!parseCount(a + 9, kMaxContext, &tokens) || tokens < 1) {
        fprintf(stderr, "kiln-generate: --tokens wants 1 to %d, not '%s'\n",
                kMaxContext, a + 9);
        return 1;
      }
    } else if (!strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (a[0] == '-') {
      fprintf(stderr, "kiln-generate: unknown flag '%s' (see --help)\n", a);
      return 1;
    } else if (parseCount(a, (long)1 << 30, &v)) {
      prompt[promptCount++] = v;
    } else {
      fprintf(stderr, "kiln-generate: a prompt id is a count, not '%s'\n", a);
      return 1;
    }
  }
  if (!modulePath || !promptCount) {
    usage();
    return 1;
  }
  size_t maxContext = promptCount + (size_t)tokens;
  if (maxContext > kMaxContext) {
    fprintf(stderr, "kiln-generate: prompt and tokens exceed %d positions\n",
            kMaxContext);
    return 1;
  }

  Decoder d;
  memset(&d, 0, sizeof(d));
  KilnModule *module = NULL;
  KilnStatus s = kilnDeviceCreate(deviceUri, &d.device);
  if (s)
    return fail(s, "device");
  s = kilnModuleLoadFile(d.device, modulePath, &module);
  if (s)
    return fail(s, "module");
  d.fn = kilnModuleFunctionAt(module, 0);
  int ok;
  s = describe(&d, &ok);
  if (s)
    return fail(s, "signature");
  if (!ok) {
    fprintf(stderr,
            "kiln-generate: %s is not a key/value-cache decoder "
            "(ids, positions, mask, past key/value per layer -> "
            "logits, present key/value per layer; f32)\n",
            modulePath);
    return 1;
  }
  /* Everything at the largest context, allocated once. */
  size_t cacheBytes = d.heads * maxContext * d.headWidth * sizeof(float);
  d.hostIds = calloc(maxContext, sizeof(int64_t));
  d.hostPositions = calloc(maxContext, sizeof(int64_t));
  d.hostMask = calloc(maxContext * maxContext, sizeof(float));
  d.hostLogits = calloc(d.vocab, sizeof(float));
  if (!d.hostIds || !d.hostPositions || !d.hostMask || !d.hostLogits) {
    fprintf(stderr, "kiln-generate: out of host memory\n");
    return 1;
  }
  s = kilnBufferAllocate(d.device, maxContext * sizeof(int64_t), &d.ids);
  if (!s)
    s = kilnBufferAllocate(d.device, maxContext * sizeof(int64_t),
                           &d.positions);
  if (!s)
    s = kilnBufferAllocate(d.device, maxContext * maxContext * sizeof(float),
                           &d.mask);
  if (!s)
    s = kilnBufferAllocate(d.device, maxContext * d.vocab * sizeof(float),
                           &d.logits);
  for (int set = 0; set < 2 && !s; ++set)
    for (size_t i = 0; i < 2 * d.layers && !s; ++i)
      s = kilnBufferAllocate(d.device, cacheBytes, &d.cache[set][i]);
  if (s)
    return fail(s, "buffers");

  /* The prompt's prefill from an empty cache, then one token a step. */
  int from = 0;
  size_t past = 0;
  int64_t token;
  s = step(&d, past, promptCount, from, prompt, &token);
  past += promptCount;
  from = 1 - from;
  for (long t = 0; !s; ++t) {
    printf(t ? " %lld" : "%lld", (long long)token);
    if (t + 1 == tokens)
      break;
    int64_t last = token;
    s = step(&d, past, 1, from, &last, &token);
    past += 1;
    from = 1 - from;
  }
  printf("\n");
  if (s)
    return fail(s, "call");

  kilnBufferRelease(d.ids);
  kilnBufferRelease(d.positions);
  kilnBufferRelease(d.mask);
  kilnBufferRelease(d.logits);
  for (int set = 0; set < 2; ++set)
    for (size_t i = 0; i < 2 * d.layers; ++i)
      kilnBufferRelease(d.cache[set][i]);
  kilnModuleRelease(module);
  kilnDeviceRelease(d.device);
  free(d.hostIds);
  free(d.hostPositions);
  free(d.hostMask);
  free(d.hostLogits);
  free(prompt);
  return 0;
}
