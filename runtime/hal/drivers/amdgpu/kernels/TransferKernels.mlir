// The amdgpu driver's fill and copy kernels (TransferKernels.h says how
// they are dispatched). Written in MLIR's LLVM and ROCDL dialects and
// compiled at build time for every processor of the compiler's AMD table
// by tools/kiln-build-amdgpu-kernels, through the compiler's own ROCm
// target (buildAmdgpuCodeObject), then embedded in the runtime.
//
// Kiln's GPU entry ABI: a pointer per binding, then an i32 per push
// constant. Elements are 16 bytes (one 128-bit access a work-item, what
// GPUs move memory fastest with) where addresses and length are multiples
// of 16, else 32-bit words where they are multiples of 4, else bytes. Each kernel takes the element count as two i32 halves and the
// grid's work-items (`stride`): work-item t handles elements t, t + stride,
// ..., so neighbouring work-items touch neighbouring memory and a grid of
// any size covers any count. Workgroups are 256 work-items.
//
// Not run yet: no machine Kiln is tested on has an AMD GPU.

gpu.module @kiln_transfer {
  // The work-item's index in the grid and the element count.
  llvm.func @first_and_count(%lo: i32, %hi: i32)
      -> !llvm.struct<(i64, i64)> {
    %group = rocdl.workgroup.id.x : i32
    %item = rocdl.workitem.id.x : i32
    %size = llvm.mlir.constant(256 : i64) : i64
    %group64 = llvm.zext %group : i32 to i64
    %item64 = llvm.zext %item : i32 to i64
    %base = llvm.mul %group64, %size : i64
    %first = llvm.add %base, %item64 : i64
    %lo64 = llvm.zext %lo : i32 to i64
    %hi64 = llvm.zext %hi : i32 to i64
    %c32 = llvm.mlir.constant(32 : i64) : i64
    %high = llvm.shl %hi64, %c32 : i64
    %count = llvm.or %high, %lo64 : i64
    %undef = llvm.mlir.undef : !llvm.struct<(i64, i64)>
    %a = llvm.insertvalue %first, %undef[0] : !llvm.struct<(i64, i64)>
    %b = llvm.insertvalue %count, %a[1] : !llvm.struct<(i64, i64)>
    llvm.return %b : !llvm.struct<(i64, i64)>
  }

  // `count` 16-byte elements at `target`, each four copies of `pattern`.
  llvm.func @fill_x16(%target: !llvm.ptr<1>, %lo: i32, %hi: i32,
                      %stride: i32, %pattern: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    %undef = llvm.mlir.undef : vector<4xi32>
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %one = llvm.insertelement %pattern, %undef[%c0 : i32] : vector<4xi32>
    %four = llvm.shufflevector %one, %undef [0, 0, 0, 0] : vector<4xi32>
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %at = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
    llvm.store %four, %at {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }

  // `count` 32-bit words at `target` set to `pattern`.
  llvm.func @fill_x4(%target: !llvm.ptr<1>, %lo: i32, %hi: i32,
                     %stride: i32, %pattern: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %at = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    llvm.store %pattern, %at {alignment = 4 : i64} : i32, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }

  // `count` bytes at `target`; byte i is byte (i mod 4) of `pattern`, the
  // pattern repeated from the first byte.
  llvm.func @fill_x1(%target: !llvm.ptr<1>, %lo: i32, %hi: i32,
                     %stride: i32, %pattern: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    %c3 = llvm.mlir.constant(3 : i64) : i64
    %c8 = llvm.mlir.constant(8 : i32) : i32
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %lane64 = llvm.and %i, %c3 : i64
    %lane = llvm.trunc %lane64 : i64 to i32
    %shift = llvm.mul %lane, %c8 : i32
    %shifted = llvm.lshr %pattern, %shift : i32
    %byte = llvm.trunc %shifted : i32 to i8
    %at = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    llvm.store %byte, %at : i8, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }

  // `count` 16-byte elements from `source` to `target` (which do not
  // overlap).
  llvm.func @copy_x16(%source: !llvm.ptr<1>, %target: !llvm.ptr<1>, %lo: i32,
                      %hi: i32, %stride: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %from = llvm.getelementptr %source[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
    %to = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
    %value = llvm.load %from {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
    llvm.store %value, %to {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }

  // `count` 32-bit words from `source` to `target` (which do not overlap).
  llvm.func @copy_x4(%source: !llvm.ptr<1>, %target: !llvm.ptr<1>, %lo: i32,
                     %hi: i32, %stride: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %from = llvm.getelementptr %source[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    %to = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    %value = llvm.load %from {alignment = 4 : i64} : !llvm.ptr<1> -> i32
    llvm.store %value, %to {alignment = 4 : i64} : i32, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }

  // `count` bytes from `source` to `target` (which do not overlap).
  llvm.func @copy_x1(%source: !llvm.ptr<1>, %target: !llvm.ptr<1>, %lo: i32,
                     %hi: i32, %stride: i32)
      attributes {rocdl.kernel, rocdl.flat_work_group_size = "1,256"} {
    %range = llvm.call @first_and_count(%lo, %hi)
        : (i32, i32) -> !llvm.struct<(i64, i64)>
    %first = llvm.extractvalue %range[0] : !llvm.struct<(i64, i64)>
    %count = llvm.extractvalue %range[1] : !llvm.struct<(i64, i64)>
    %step = llvm.zext %stride : i32 to i64
    llvm.br ^check(%first : i64)
  ^check(%i: i64):
    %more = llvm.icmp "ult" %i, %count : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %from = llvm.getelementptr %source[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    %to = llvm.getelementptr %target[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    %value = llvm.load %from : !llvm.ptr<1> -> i8
    llvm.store %value, %to : i8, !llvm.ptr<1>
    %next = llvm.add %i, %step : i64
    llvm.br ^check(%next : i64)
  ^done:
    llvm.return
  }
}
