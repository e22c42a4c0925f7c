# lit configuration: every .mlir under compiler/ with a RUN line is a test
# (an `Inputs` folder holds files tests compile, not tests).
import os
import lit.formats

config.name = "Kiln compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.join(config.kiln_src_root, "compiler")
config.test_exec_root = config.kiln_test_exec_root
config.excludes = ["kiln.cfg.py", "lit.site.cfg.py.in", "Inputs"]
config.environment["PATH"] = os.pathsep.join(
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# `ptxas`: tests that assemble a cubin (--cuda-use-ptxas) run where the CUDA
# toolkit is installed and are reported UNSUPPORTED elsewhere (CI has none).
import shutil
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
