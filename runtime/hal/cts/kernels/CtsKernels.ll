; The conformance suite's kernels for AMD GPUs (hip, amdgpu): those of
; CtsKernels.c and CtsKernels.cu, with the same bindings, push constants and
; per-workgroup semantics, one work-item per workgroup. Kiln's GPU entry ABI:
; a pointer per binding, then an i32 per push constant. Written in LLVM IR
; because the build has llc and ld.lld but no HIP compiler; built at build
; time for each processor the compiler's table knows
; (runtime/hal/cts/CMakeLists.txt) as code object v5. Not run yet: no machine
; Kiln is tested on has an AMD GPU.

target triple = "amdgcn-amd-amdhsa"

; out[i] = a[i] + b[i] for this workgroup's perGroup elements below n.
define amdgpu_kernel void @add_f32(ptr addrspace(1) %a, ptr addrspace(1) %b,
                                   ptr addrspace(1) %out, i32 %n,
                                   i32 %perGroup) #0 {
entry:
  %group = call i32 @llvm.amdgcn.workgroup.id.x()
  %group64 = zext i32 %group to i64
  %per64 = zext i32 %perGroup to i64
  %n64 = zext i32 %n to i64
  %begin = mul i64 %group64, %per64
  %end0 = add i64 %begin, %per64
  %short = icmp ult i64 %end0, %n64
  %end = select i1 %short, i64 %end0, i64 %n64
  br label %check
check:
  %i = phi i64 [ %begin, %entry ], [ %next, %body ]
  %more = icmp ult i64 %i, %end
  br i1 %more, label %body, label %done
body:
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i
  %po = getelementptr float, ptr addrspace(1) %out, i64 %i
  %x = load float, ptr addrspace(1) %pa, align 4
  %y = load float, ptr addrspace(1) %pb, align 4
  %sum = fadd float %x, %y
  store float %sum, ptr addrspace(1) %po, align 4
  %next = add i64 %i, 1
  br label %check
done:
  ret void
}

; counters[(z * cy + y) * cx + x] += 1 for this workgroup.
define amdgpu_kernel void @count_workgroups(ptr addrspace(1) %counters,
                                            i32 %cx, i32 %cy) #0 {
  %x = call i32 @llvm.amdgcn.workgroup.id.x()
  %y = call i32 @llvm.amdgcn.workgroup.id.y()
  %z = call i32 @llvm.amdgcn.workgroup.id.z()
  %x64 = zext i32 %x to i64
  %y64 = zext i32 %y to i64
  %z64 = zext i32 %z to i64
  %cx64 = zext i32 %cx to i64
  %cy64 = zext i32 %cy to i64
  %zy = mul i64 %z64, %cy64
  %row = add i64 %zy, %y64
  %rowx = mul i64 %row, %cx64
  %index = add i64 %rowx, %x64
  %slot = getelementptr i32, ptr addrspace(1) %counters, i64 %index
  %old = atomicrmw add ptr addrspace(1) %slot, i32 1 syncscope("agent") monotonic
  ret void
}

; Every workgroup arrives at state[0] and waits (up to timeoutMs) for
; `parties` arrivals; those that saw everyone increment state[1]. The steady
; counter runs at 100 MHz on every processor the suite is built for.
define amdgpu_kernel void @rendezvous(ptr addrspace(1) %state, i32 %parties,
                                      i32 %timeoutMs) #0 {
entry:
  %arrived = atomicrmw add ptr addrspace(1) %state, i32 1 syncscope("agent") seq_cst
  %start = call i64 @llvm.readsteadycounter()
  %ms = zext i32 %timeoutMs to i64
  %ticks = mul i64 %ms, 100000
  %deadline = add i64 %start, %ticks
  br label %wait
wait:
  %seen = atomicrmw add ptr addrspace(1) %state, i32 0 syncscope("agent") seq_cst
  %all = icmp uge i32 %seen, %parties
  br i1 %all, label %met, label %late
late:
  %now = call i64 @llvm.readsteadycounter()
  %over = icmp ugt i64 %now, %deadline
  br i1 %over, label %done, label %wait
met:
  %second = getelementptr i32, ptr addrspace(1) %state, i64 1
  %old = atomicrmw add ptr addrspace(1) %second, i32 1 syncscope("agent") seq_cst
  br label %done
done:
  ret void
}

; out[x] = in[x] * scale + bias (floats given as bits), for x < n; multiply
; and add rounded separately, as the host computes the expected values.
define amdgpu_kernel void @scale_bias_f32(ptr addrspace(1) %in,
                                          ptr addrspace(1) %out, i32 %n,
                                          i32 %scaleBits, i32 %biasBits) #0 {
entry:
  %x = call i32 @llvm.amdgcn.workgroup.id.x()
  %inside = icmp ult i32 %x, %n
  br i1 %inside, label %body, label %done
body:
  %x64 = zext i32 %x to i64
  %pi = getelementptr float, ptr addrspace(1) %in, i64 %x64
  %po = getelementptr float, ptr addrspace(1) %out, i64 %x64
  %v = load float, ptr addrspace(1) %pi, align 4
  %scale = bitcast i32 %scaleBits to float
  %bias = bitcast i32 %biasBits to float
  %m = fmul float %v, %scale
  %r = fadd float %m, %bias
  store float %r, ptr addrspace(1) %po, align 4
  br label %done
done:
  ret void
}

declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare i64 @llvm.readsteadycounter()

attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" }
