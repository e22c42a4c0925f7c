//===- OnnxImporterFuzzer.cpp - ONNX files through the importer -----------===//
//
// An input is a whole .onnx file, the thing users download and hand to
// kiln-compile (issue 16). It is written to model.onnx in a private folder
// (made once per process, so external-data locations resolve next to it and
// find only the model and `weights.bin`, 4 KiB) and imported with a fresh
// MLIRContext, so no input's uniqued types and constants outlive it, memory
// stays bounded by one input and every failure reproduces from its input
// alone (one context reused across inputs runs twice as fast). The
// importer must never crash, hang or run out of memory, must report why it
// refused a model, and what it returns must verify: invalid IR would crash
// or miscompile in the passes after it.
//
// Under libFuzzer most byte-level mutations of a protobuf break its framing
// and stop at the parser, so LLVMFuzzerCustomMutator mostly mutates the
// parsed model instead: attribute values, dims and data types set to edge
// cases (0, -1, 2^31, INT64_MAX, NaN...), inputs and outputs made absent
// (""), added or dropped, op types swapped for others the importer knows,
// weights cut short or moved to external data, nodes duplicated or
// dropped, opsets changed, and then serializes it again. A quarter of the
// time, or when the input does not parse, it falls back on libFuzzer's own
// mutations.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "fuzz/FuzzCheck.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "onnx/onnx_pb.h"

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <random>
#include <signal.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

// libFuzzer's own mutations; absent (null) in the replay build, which never
// mutates.
extern "C" __attribute__((weak)) size_t
LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

namespace fs = std::filesystem;

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  KILN_FUZZ_CHECK(fd >= 0, "a file of the folder opens");
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    KILN_FUZZ_CHECK(n > 0, "the file takes its bytes");
    done += static_cast<size_t>(n);
  }
  KILN_FUZZ_CHECK(::close(fd) == 0, "the file closes");
}

// The folder, the model's path in it and a data file beside it; all are
// removed at exit.
struct ModelFile {
  std::string Folder;
  std::string Path;
  std::string Weights;
};

constexpr const char *kFolderPrefix = "kiln-onnx-fuzz-";

// Folders of fuzzer processes that are gone: libFuzzer ends on a crash,
// timeout or OOM (and each job of -fork) without running atexit.
void removeStaleFolders(const std::string &tmp) {
  std::error_code error;
  for (const fs::directory_entry &entry : fs::directory_iterator(tmp, error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kFolderPrefix, 0) != 0)
      continue;
    pid_t pid = static_cast<pid_t>(
        std::strtol(name.c_str() + std::strlen(kFolderPrefix), nullptr, 10));
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    fs::remove(entry.path() / "model.onnx", error);
    fs::remove(entry.path() / "weights.bin", error);
    fs::remove(entry.path(), error);
  }
}

const ModelFile &modelFile() {
  static const ModelFile file = [] {
    const char *tmpdir = std::getenv("TMPDIR");
    std::string tmp = tmpdir && *tmpdir ? tmpdir : "/tmp";
    removeStaleFolders(tmp);
    std::string folder =
        tmp + "/" + kFolderPrefix + std::to_string(::getpid()) + "-XXXXXX";
    KILN_FUZZ_CHECK(::mkdtemp(folder.data()) != nullptr, "mkdtemp works");
    std::vector<uint8_t> weights(4096);
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i] = static_cast<uint8_t>(i * 37 + 11);
    writeFile(folder + "/weights.bin", weights.data(), weights.size());
    std::atexit([] {
      ::unlink(modelFile().Path.c_str());
      ::unlink(modelFile().Weights.c_str());
      ::rmdir(modelFile().Folder.c_str());
    });
    return ModelFile{folder, folder + "/model.onnx", folder + "/weights.bin"};
  }();
  return file;
}

//===----------------------------------------------------------------------===//
// Structure-aware mutation
//===----------------------------------------------------------------------===//

using Rng = std::minstd_rand;

size_t below(Rng &rng, size_t n) { return n == 0 ? 0 : rng() % n; }

template <typename T> T &pick(Rng &rng, std::vector<T> &items) {
  return items[below(rng, items.size())];
}

int64_t edgeInt(Rng &rng, int64_t current) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t k31 = int64_t(1) << 31, k32 = int64_t(1) << 32;
  constexpr int64_t k40 = int64_t(1) << 40, k62 = int64_t(1) << 62;
  static const int64_t kEdges[] = {0,   1,   -1,  2,     -2,  3,
                                   7,   16,  255, 65536, k31, -k31,
                                   k32, k40, k62, kMax,  kMin};
  // Wrapping, as a file's bytes would: no overflow in the fuzzer itself.
  uint64_t bits = static_cast<uint64_t>(current);
  switch (below(rng, 4)) {
  case 0:
    return static_cast<int64_t>(bits + 1);
  case 1:
    return static_cast<int64_t>(bits - 1);
  case 2:
    return static_cast<int64_t>(0 - bits);
  default:
    return kEdges[below(rng, std::size(kEdges))];
  }
}

float edgeFloat(Rng &rng) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  static const float kEdges[] = {
      0.0f,  -0.0f,  1.0f,  -1.0f,
      0.5f,  1e-30f, 1e9f,  -1e9f,
      3e38f, kInf,   -kInf, std::numeric_limits<float>::quiet_NaN()};
  return kEdges[below(rng, std::size(kEdges))];
}

std::vector<std::string> words(const char *text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

// Every graph of the model, subgraphs (If, Loop, Scan bodies) included.
void collectGraphs(onnx::GraphProto &graph,
                   std::vector<onnx::GraphProto *> &graphs) {
  graphs.push_back(&graph);
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        collectGraphs(*attr.mutable_g(), graphs);
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        collectGraphs(sub, graphs);
    }
}

// A value name of `graph`: a node output, an initializer or an input.
std::string someName(Rng &rng, const onnx::GraphProto &graph) {
  std::vector<std::string> names;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &name : node.output())
      names.push_back(name);
  for (const onnx::TensorProto &init : graph.initializer())
    names.push_back(init.name());
  for (const onnx::ValueInfoProto &input : graph.input())
    names.push_back(input.name());
  if (names.empty() || below(rng, 8) == 0)
    return below(rng, 2) ? "" : "no_such_value";
  return pick(rng, names);
}

void mutateTensor(Rng &rng, onnx::TensorProto &tensor) {
  switch (below(rng, 7)) {
  case 0: { // a dim
    if (tensor.dims_size() == 0 || below(rng, 4) == 0) {
      tensor.add_dims(edgeInt(rng, 1));
      break;
    }
    int i = static_cast<int>(below(rng, tensor.dims_size()));
    tensor.set_dims(i, edgeInt(rng, tensor.dims(i)));
    break;
  }
  case 1: // one dim fewer
    if (tensor.dims_size() > 0)
      tensor.mutable_dims()->RemoveLast();
    break;
  case 2:
    tensor.set_data_type(static_cast<int32_t>(below(rng, 24)));
    break;
  case 3: { // data cut short, grown or dropped
    std::string *raw = tensor.mutable_raw_data();
    if (below(rng, 3) == 0)
      raw->clear();
    else if (!raw->empty() && below(rng, 2))
      raw->resize(below(rng, raw->size()));
    else
      raw->append(1 + below(rng, 16), '\x7f');
    break;
  }
  case 4: // typed data too, or instead
    if (below(rng, 2))
      tensor.add_float_data(edgeFloat(rng));
    else
      tensor.add_int64_data(edgeInt(rng, 0));
    break;
  case 5: { // external data beside the model, or somewhere it must not be
    static const char *const kLocations[] = {
        "weights.bin", "model.onnx",    "missing.bin",       "",
        ".",           "./weights.bin", "sub/../weights.bin"};
    tensor.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    tensor.clear_external_data();
    auto add = [&](const char *key, const std::string &value) {
      onnx::StringStringEntryProto *entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", kLocations[below(rng, std::size(kLocations))]);
    if (below(rng, 2))
      add("offset", std::to_string(below(rng, 2) ? int64_t(below(rng, 4200))
                                                 : edgeInt(rng, 0)));
    if (below(rng, 2))
      add("length", std::to_string(below(rng, 2) ? int64_t(below(rng, 4200))
                                                 : edgeInt(rng, 0)));
    break;
  }
  default:
    tensor.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);
    tensor.clear_external_data();
    tensor.clear_dims();
    break;
  }
}

void mutateAttribute(Rng &rng, onnx::AttributeProto &attr) {
  if (attr.has_t() && below(rng, 2)) {
    mutateTensor(rng, *attr.mutable_t());
    return;
  }
  switch (below(rng, 6)) {
  case 0:
    attr.set_type(onnx::AttributeProto::INT);
    attr.set_i(edgeInt(rng, attr.i()));
    break;
  case 1: {
    attr.set_type(onnx::AttributeProto::INTS);
    auto *ints = attr.mutable_ints();
    if (ints->empty() || below(rng, 4) == 0)
      ints->Add(edgeInt(rng, 0));
    else if (below(rng, 4) == 0)
      ints->RemoveLast();
    else {
      int i = static_cast<int>(below(rng, ints->size()));
      ints->Set(i, edgeInt(rng, ints->Get(i)));
    }
    break;
  }
  case 2:
    attr.set_type(onnx::AttributeProto::FLOAT);
    attr.set_f(edgeFloat(rng));
    break;
  case 3:
    if (attr.floats_size() > 0)
      attr.set_floats(static_cast<int>(below(rng, attr.floats_size())),
                      edgeFloat(rng));
    else
      attr.add_floats(edgeFloat(rng));
    break;
  case 4: {
    static const char *const kStrings[] = {
        "",        "NOTSET",    "SAME_UPPER",    "VALID",         "nearest",
        "linear",  "cubic",     "align_corners", "half_pixel",    "DCR",
        "CRD",     "LEFT",      "Sigmoid",       "Tanh",          "Relu",
        "forward", "ij,jk->ik", "...ii->...i",   "bidirectional", "mean"};
    attr.set_s(kStrings[below(rng, std::size(kStrings))]);
    break;
  }
  default: // the wrong type for the name
    attr.set_type(
        static_cast<onnx::AttributeProto::AttributeType>(below(rng, 15)));
    break;
  }
}

void mutateNode(Rng &rng, onnx::GraphProto &graph, onnx::NodeProto &node) {
  static const std::vector<std::string> kOpTypes = kiln::supportedOnnxOpTypes();
  static const std::vector<std::string> kAttrNames = words(
      "axis axes keepdims pads strides dilations kernel_shape group perm "
      "shape value to alpha beta epsilon transA transB mode auto_pad "
      "ceil_mode count_include_pad blocksize hidden_size direction "
      "activations layout equation allowzero split num_outputs k largest "
      "sorted dtype reduction exclusive reverse select_last_index "
      "noop_with_empty_axes coordinate_transformation_mode nearest_mode "
      "exclude_outside cubic_coeff_a antialias output_padding output_shape "
      "storage_order upper block_size saturate");
  switch (below(rng, 9)) {
  case 0:
  case 1:
    if (node.attribute_size() > 0) {
      mutateAttribute(rng, *node.mutable_attribute(static_cast<int>(
                               below(rng, node.attribute_size()))));
      break;
    }
    [[fallthrough]];
  case 2: {
    onnx::AttributeProto *attr = node.add_attribute();
    attr->set_name(kAttrNames[below(rng, kAttrNames.size())]);
    mutateAttribute(rng, *attr);
    break;
  }
  case 3: // an input made absent, or another value
    if (node.input_size() > 0) {
      int i = static_cast<int>(below(rng, node.input_size()));
      node.set_input(i, below(rng, 2) ? "" : someName(rng, graph));
      break;
    }
    [[fallthrough]];
  case 4: // one input more or fewer
    if (node.input_size() > 0 && below(rng, 2))
      node.mutable_input()->RemoveLast();
    else
      node.add_input(someName(rng, graph));
    break;
  case 5: { // an output absent, one more or fewer
    size_t what = below(rng, 3);
    if (what == 0 && node.output_size() > 0)
      node.set_output(static_cast<int>(below(rng, node.output_size())), "");
    else if (what == 1 && node.output_size() > 0)
      node.mutable_output()->RemoveLast();
    else
      node.add_output(below(rng, 2) ? someName(rng, graph)
                                    : "extra" + std::to_string(rng() % 4));
    break;
  }
  case 6:
    if (!kOpTypes.empty()) {
      node.set_op_type(kOpTypes[below(rng, kOpTypes.size())]);
      break;
    }
    [[fallthrough]];
  case 7:
    node.set_domain(below(rng, 2) ? "" : "com.microsoft");
    break;
  default:
    node.clear_attribute();
    break;
  }
}

void mutateValueInfo(Rng &rng, onnx::ValueInfoProto &info) {
  onnx::TypeProto_Tensor *type = info.mutable_type()->mutable_tensor_type();
  switch (below(rng, 4)) {
  case 0:
    type->set_elem_type(static_cast<int32_t>(below(rng, 24)));
    break;
  case 1: {
    onnx::TensorShapeProto *shape = type->mutable_shape();
    if (shape->dim_size() == 0 || below(rng, 4) == 0) {
      shape->add_dim()->set_dim_value(edgeInt(rng, 1));
      break;
    }
    onnx::TensorShapeProto_Dimension *dim =
        shape->mutable_dim(static_cast<int>(below(rng, shape->dim_size())));
    if (below(rng, 4) == 0)
      dim->set_dim_param("n");
    else
      dim->set_dim_value(edgeInt(rng, dim->dim_value()));
    break;
  }
  case 2:
    if (type->has_shape() && type->shape().dim_size() > 0)
      type->mutable_shape()->mutable_dim()->RemoveLast();
    else
      type->clear_shape();
    break;
  default:
    info.set_name(below(rng, 2) ? "" : info.name() + "_");
    break;
  }
}

void mutateGraph(Rng &rng, onnx::ModelProto &model, onnx::GraphProto &graph) {
  switch (below(rng, 12)) {
  case 0:
  case 1:
  case 2:
  case 3:
    if (graph.node_size() > 0) {
      mutateNode(
          rng, graph,
          *graph.mutable_node(static_cast<int>(below(rng, graph.node_size()))));
      break;
    }
    [[fallthrough]];
  case 4:
    if (graph.initializer_size() > 0) {
      mutateTensor(rng, *graph.mutable_initializer(static_cast<int>(
                            below(rng, graph.initializer_size()))));
      break;
    }
    [[fallthrough]];
  case 5:
    if (graph.input_size() > 0) {
      mutateValueInfo(rng, *graph.mutable_input(static_cast<int>(
                               below(rng, graph.input_size()))));
      break;
    }
    [[fallthrough]];
  case 6:
    if (graph.output_size() > 0) {
      mutateValueInfo(rng, *graph.mutable_output(static_cast<int>(
                               below(rng, graph.output_size()))));
      break;
    }
    [[fallthrough]];
  case 7: // a node twice (two producers of one name), or one fewer
    if (graph.node_size() > 0) {
      int i = static_cast<int>(below(rng, graph.node_size()));
      if (below(rng, 2))
        *graph.add_node() = graph.node(i);
      else
        graph.mutable_node()->DeleteSubrange(i, 1);
    }
    break;
  case 8: // nodes out of order
    if (graph.node_size() > 1)
      graph.mutable_node()->SwapElements(
          static_cast<int>(below(rng, graph.node_size())),
          static_cast<int>(below(rng, graph.node_size())));
    break;
  case 9: // an initializer that is also an input, or a new one
    if (graph.initializer_size() > 0 && below(rng, 2)) {
      const onnx::TensorProto &init = graph.initializer(
          static_cast<int>(below(rng, graph.initializer_size())));
      onnx::ValueInfoProto *input = graph.add_input();
      input->set_name(init.name());
      input->mutable_type()->mutable_tensor_type()->set_elem_type(
          init.data_type());
    } else {
      onnx::TensorProto *init = graph.add_initializer();
      init->set_name(someName(rng, graph));
      init->set_data_type(onnx::TensorProto::FLOAT);
      init->add_dims(1 + below(rng, 4));
      mutateTensor(rng, *init);
    }
    break;
  case 10: { // an opset
    onnx::OperatorSetIdProto *opset = model.opset_import_size() > 0
                                          ? model.mutable_opset_import(0)
                                          : model.add_opset_import();
    static const int64_t kOpsets[] = {1,  6,  7,  9,  10, 11, 12, 13, 14,
                                      17, 18, 19, 21, 22, 99, -1, 0};
    opset->set_version(kOpsets[below(rng, std::size(kOpsets))]);
    break;
  }
  default: // a graph output that is an input, or nothing
    if (below(rng, 2) && graph.input_size() > 0)
      *graph.add_output() = graph.input(0);
    else
      graph.clear_output();
    break;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  writeFile(modelFile().Path, data, size);

  // No thread pool: one input, one thread, reproducible runs.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  // The importer's errors are expected and would drown libFuzzer's output;
  // they are counted, and the verifier's kept to explain a failure.
  bool verifying = false;
  int errors = 0;
  std::string verifierErrors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    ++errors;
    if (verifying)
      verifierErrors += "  " + diag.str() + "\n";
    return mlir::success();
  });

  kiln::OnnxImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      kiln::importOnnxFile(context, modelFile().Path, options);
  if (!module) {
    KILN_FUZZ_CHECK(errors > 0, "a refused model gets an error saying why");
    return 0;
  }

  verifying = true;
  if (mlir::failed(mlir::verify(*module))) {
    std::fprintf(stderr, "the imported module does not verify:\n%s",
                 verifierErrors.c_str());
    KILN_FUZZ_CHECK(false, "the importer produces valid IR");
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  Rng rng(seed);
  onnx::ModelProto model;
  if (below(rng, 4) == 0 || !model.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, maxSize);
  for (size_t n = 1 + below(rng, 3); n > 0; --n) {
    // Again each time: a mutation may delete a node holding a subgraph.
    std::vector<onnx::GraphProto *> graphs;
    collectGraphs(*model.mutable_graph(), graphs);
    mutateGraph(rng, model, *pick(rng, graphs));
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes) || bytes.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::copy(bytes.begin(), bytes.end(), data);
  return bytes.size();
}
