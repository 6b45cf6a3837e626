/*
 * nvptx_jit_init.c - linked into the GPU builds of the examples (tests/gpu/build.sh).
 *
 * Why: CUDA 13's ptxas writes cubins that libomptarget 19.1 rejects, so the
 * examples carry LLVM IR (-fopenmp-target-jit) for the CUDA plugin to compile
 * at run time. Debian's libomptarget 19.1 is built without registering any
 * LLVM target for that JIT ("Unable to find target for this triple (no
 * targets are registered)", seen on an H200), although the libLLVM it loads
 * has the NVPTX back end. Registering it before the first target region (a
 * constructor) is all the JIT lacks. Not part of offtrace: a workaround for
 * this toolchain, which a program built with a newer LLVM does not need.
 */
void LLVMInitializeNVPTXTargetInfo(void);
void LLVMInitializeNVPTXTarget(void);
void LLVMInitializeNVPTXTargetMC(void);
void LLVMInitializeNVPTXAsmPrinter(void);

__attribute__((constructor)) static void register_nvptx_for_the_jit(void)
{
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}
