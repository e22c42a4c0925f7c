; Kernels the AMD runtime tests read as code objects, in Kiln's GPU entry
; ABI: one pointer per binding, then one i32 per push constant. Built at
; build time (runtime/hal/drivers/amd/CMakeLists.txt) with llc for gfx942
; (wave64) and gfx1100 (wave32) and linked by ld.lld into code object v5
; hsaco files; the tests check their metadata and kernarg layout. They are
; never run: no machine Kiln is tested on has an AMD GPU.

target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [64 x float] poison, align 4

; out[i] = a[i] * scale + b[i] (scale a push constant's bits), through LDS.
define amdgpu_kernel void @add_f32(ptr addrspace(1) %a, ptr addrspace(1) %b,
                                   ptr addrspace(1) %out, i32 %count,
                                   i32 %scale) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %group = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %group, 64
  %i = add i32 %base, %lane
  %inside = icmp ult i32 %i, %count
  br i1 %inside, label %body, label %done
body:
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %po = getelementptr float, ptr addrspace(1) %out, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %slot = getelementptr [64 x float], ptr addrspace(3) @tile, i32 0, i32 %lane
  store float %x, ptr addrspace(3) %slot
  %t = load float, ptr addrspace(3) %slot
  %s = bitcast i32 %scale to float
  %m = fmul float %t, %s
  %r = fadd float %m, %y
  store float %r, ptr addrspace(1) %po
  br label %done
done:
  ret void
}

; Counts its workgroups into one word: one binding, no push constants.
define amdgpu_kernel void @count_workgroups(ptr addrspace(1) %counter) #1 {
  %old = atomicrmw add ptr addrspace(1) %counter, i32 1 monotonic
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="1,64" }
attributes #1 = { "amdgpu-flat-work-group-size"="1,256" }
