//===- OpRegistry.cpp - ONNX op converters by domain and op type ----------===//

#include "compiler/onnx/OpRegistry.h"

#include <algorithm>

namespace kiln::onnx_import {

namespace {

std::string key(llvm::StringRef domain, llvm::StringRef opType) {
  if (domain == "ai.onnx")
    domain = "";
  return (domain + "::" + opType).str();
}

} // namespace

void OpRegistry::add(llvm::StringRef opType, Converter converter,
                     llvm::StringRef domain) {
  bool inserted =
      Converters.try_emplace(key(domain, opType), std::move(converter)).second;
  assert(inserted && "op type registered twice");
  (void)inserted;
}

void OpRegistry::addFolder(llvm::StringRef opType, Folder folder,
                           llvm::StringRef domain) {
  bool inserted =
      Folders.try_emplace(key(domain, opType), std::move(folder)).second;
  assert(inserted && "op type folder registered twice");
  (void)inserted;
}

void OpRegistry::addShapeValueFolder(llvm::StringRef opType, Folder folder,
                                     llvm::StringRef domain) {
  bool inserted =
      ShapeValueFolders.try_emplace(key(domain, opType), std::move(folder))
          .second;
  assert(inserted && "op type shape value folder registered twice");
  (void)inserted;
}

const Folder *OpRegistry::shapeValueFolder(llvm::StringRef domain,
                                           llvm::StringRef opType) const {
  auto it = ShapeValueFolders.find(key(domain, opType));
  return it == ShapeValueFolders.end() ? nullptr : &it->second;
}

void OpRegistry::acceptDynamicShapes(
    std::initializer_list<llvm::StringRef> opTypes, llvm::StringRef domain) {
  for (llvm::StringRef opType : opTypes)
    Dynamic.insert(key(domain, opType));
}

bool OpRegistry::acceptsDynamicShapes(llvm::StringRef domain,
                                      llvm::StringRef opType) const {
  return Dynamic.contains(key(domain, opType));
}

const Converter *OpRegistry::converter(llvm::StringRef domain,
                                       llvm::StringRef opType) const {
  auto it = Converters.find(key(domain, opType));
  return it == Converters.end() ? nullptr : &it->second;
}

const Folder *OpRegistry::folder(llvm::StringRef domain,
                                 llvm::StringRef opType) const {
  auto it = Folders.find(key(domain, opType));
  return it == Folders.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::opTypes() const {
  std::vector<std::string> out;
  auto collect = [&](llvm::StringRef k) {
    if (k.consume_front("::"))
      out.push_back(k.str());
  };
  for (const auto &entry : Converters)
    collect(entry.getKey());
  for (const auto &entry : Folders)
    collect(entry.getKey());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
#define KILN_ONNX_OP_FAMILY(Family) register##Family##Ops(r);
#include "compiler/onnx/ops/OpFamilies.def"
    return r;
  }();
  return registry;
}

} // namespace kiln::onnx_import
