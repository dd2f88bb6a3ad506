#!/usr/bin/env python3
"""tools/kernel_sizes.py on a file written here: two kernels whose code sizes differ by construction. The small one
stores one constant; the large one runs 64 dependent multiply-adds with 64 loads, unrolled, so it holds at least
128 more instructions. Exits 77 (skipped) without nvcc or readelf."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "kernel_sizes.py")
SOURCE = """
__global__ void small_kernel(float* p) { p[0] = 1.0f; }
__global__ void large_kernel(float* p, float a) {
  float x = p[threadIdx.x];
#pragma unroll
  for (int i = 0; i < 64; ++i) x = x * a + p[i * 977];
  p[threadIdx.x] = x;
}
"""

# The report's parse, on a hand-written ptxas report: helper_fn's properties (a non-inlined device function) follow
# the kernel's and must not replace its spills.
sys.path.insert(0, os.path.dirname(TOOL))
import kernel_sizes  # noqa: E402

REPORT = """ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90a'
ptxas info    : Function properties for _Z1kPf
    40 bytes stack frame, 68 bytes spill stores, 136 bytes spill loads
ptxas info    : Used 128 registers, used 3 barriers, 40 bytes cumulative stack size
ptxas info    : Function properties for _Z9helper_fnPj
    0 bytes stack frame, 0 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function '_Z1jPf' for 'sm_90a'
ptxas info    : Function properties for _Z1jPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers
"""
parsed = kernel_sizes.ptxas_usage(REPORT)
if parsed != {"_Z1kPf": [128, 68, 136], "_Z1jPf": [12, 0, 0]}:
    sys.exit(f"ptxas report parsed wrong: {parsed}")

nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if not nvcc or not shutil.which("readelf"):
    print("skipped: kernel_sizes needs nvcc and readelf")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "two_kernels.cu")
    with open(path, "w") as f:
        f.write(SOURCE)
    out = subprocess.run([sys.executable, TOOL, path, "--build", os.path.join(tmp, "no-build")], capture_output=True,
                         text=True, env={**os.environ, "NVCC": nvcc})
if out.returncode != 0:
    sys.exit(f"kernel_sizes failed:\n{out.stdout}\n{out.stderr}")
sizes = {}
for name, line in re.findall(r"^  (\w+)\n    (.*)$", out.stdout, flags=re.M):
    m = re.match(r"\s*(\d+) B\s+(\d+) instr\s+(\d+) regs\s+spill (\d+)/(\d+)", line)
    if not m:
        sys.exit(f"unreadable line for {name}: {line!r}\n{out.stdout}")
    b, instr, regs, st, ld = map(int, m.groups())
    if b != 16 * instr:
        sys.exit(f"{name}: {b} bytes is not 16 x {instr} instructions")
    sizes[name] = (instr, regs, st, ld)
if set(sizes) != {"small_kernel", "large_kernel"}:
    sys.exit(f"expected the two kernels by name, got {sorted(sizes)}\n{out.stdout}")
if sizes["large_kernel"][0] < sizes["small_kernel"][0] + 128:
    sys.exit(f"the large kernel should hold at least 128 more instructions: {sizes}")
if not all(v[1] >= 1 and v[2] == 0 and v[3] == 0 for v in sizes.values()):
    sys.exit(f"each kernel uses a register or more and spills nothing: {sizes}")
print(f"ok: {sizes}")
