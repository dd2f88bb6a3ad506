"""Peer column for `plumb synth`: the same release-width shapes through PyTorch on the same GPU, in the same run.

Dense: bf16 F.linear (weights 2 bytes each) and, where this torch supports it, FP8 torch._scaled_mm with
per-tensor scales (rows padded to 16, its minimum) and with the model's own block scales (activations 1x128, weights
128x128: cuBLAS 12.9+ on sm90; the scale layout is found by checking the product against a float32 reference, and a
torch that takes none says so). wo_a: the release's bf16 grouped GEMM. Experts: per expert two bf16 [2048,4096] and
one [4096,2048] matmuls (what an engine without FP4 kernels would run). Times are medians over CUDA-event timings;
weights rotate through several copies so the L2 holds none. Writes JSON (argv[1]) and prints a table.
"""
import json
import sys

import torch
import torch.nn.functional as F


def median_time(fn, repeats=20):
    """Median seconds per call over 5 replays of a CUDA graph holding `repeats` calls (launch gaps removed)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):
            fn(i)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(repeats):
            fn(i)
    graph.replay()
    times = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / repeats)
    return sorted(times)[2]


def block_scaled_mm(n, k, dev):
    """Scales for torch._scaled_mm with the model's block scaling ([n, k] e4m3 weights with one scale a 128x128
    block, 16 rows of activations with one a 1x128 block), in the first layout whose product matches a float32
    reference (cosine >= 0.999): (scale_a, scale_b, layout name), or None where this torch takes none."""
    kb, nb = k // 128, n // 128
    l4 = (kb + 3) // 4 * 4
    m = 16
    w8 = (torch.randn(n, k, device=dev) * 0.02).to(torch.float8_e4m3fn)
    x8 = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
    sa = torch.rand(m, kb, device=dev) + 0.5
    sw = torch.rand(nb, kb, device=dev) + 0.5
    ref = (x8.float() * sa.repeat_interleave(128, 1)) @ (
        w8.float() * sw.repeat_interleave(128, 0).repeat_interleave(128, 1)).t()
    padded = torch.zeros(nb, l4, device=dev)
    padded[:, :kb] = sw
    layouts = {"sb [L4, n/128] (padded, transposed)": padded.t(), "sb [k/128, n/128] contiguous": sw.t().contiguous(),
               "sb [k/128, n/128] transposed view": sw.t()}
    sa_outer = sa.t().contiguous().t()  # 1x128 scales outer-dim-major
    for name, sb in layouts.items():
        try:
            out = torch._scaled_mm(x8, w8.t(), scale_a=sa_outer, scale_b=sb, out_dtype=torch.float32)
        except Exception as e:  # noqa: BLE001 - the layout this torch refuses; try the next
            print(f"block-scaled scaled_mm, {name}: {str(e).splitlines()[0][:120]}")
            continue
        cos = torch.nn.functional.cosine_similarity(out.flatten(), ref.flatten(), dim=0).item()
        print(f"block-scaled scaled_mm, {name}: cosine {cos:.6f} against the float32 reference")
        if cos >= 0.999:
            return sa_outer, sb, name
    return None


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "synth_peer.json"
    dev = torch.device("cuda")
    # An elementwise kernel (SMs), as plumb synth measures it: a graph's memcpy node may use the copy engines.
    src = torch.ones(1 << 29, dtype=torch.float32, device=dev)
    dst = torch.empty_like(src)
    copy_s = median_time(lambda i: torch.add(src, 0.0, out=dst), 4)
    bandwidth = 2 * 4 * src.numel() / copy_s
    del src, dst
    cells = []
    dense = [("wq_a 1024x4096", 1024, 4096), ("wq_b 32768x1024", 32768, 1024), ("wkv 512x4096", 512, 4096),
             ("wo_b 4096x8192", 4096, 8192), ("shared w1 2048x4096", 2048, 4096),
             ("shared w2 4096x2048", 4096, 2048), ("indexer wq_b 8192x1024", 8192, 1024)]
    rows_list = [1, 2, 4, 8, 16]
    for name, n, k in dense:
        copies = max(2, (512 << 20) // (2 * n * k) + 1)
        ws = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
        for rows in rows_list:
            x = torch.randn(rows, k, device=dev, dtype=torch.bfloat16)
            s = median_time(lambda i: F.linear(x, ws[i % copies]))
            cells.append({"class": "torch bf16 linear", "shape": name, "rows": rows, "seconds": s, "bytes": 2 * n * k})
        del ws
        try:
            copies8 = max(2, (256 << 20) // (n * k) + 1)
            w8 = [(torch.randn(n, k, device=dev) * 0.02).to(torch.float8_e4m3fn) for _ in range(copies8)]
            one = torch.ones((), device=dev)
            for rows in rows_list:
                x8 = torch.randn(max(rows, 16), k, device=dev).to(torch.float8_e4m3fn)
                s = median_time(lambda i: torch._scaled_mm(x8, w8[i % copies8].t(), scale_a=one, scale_b=one,
                                                           out_dtype=torch.bfloat16))
                cells.append({"class": "torch fp8 scaled_mm", "shape": name, "rows": rows, "seconds": s, "bytes": n * k})
            found = block_scaled_mm(n, k, dev)
            if found is None:
                print(f"fp8 block-scaled scaled_mm unavailable for {name}: no scale layout matched the reference")
            else:
                sa, sb, layout = found
                for rows in rows_list:
                    x8 = torch.randn(max(rows, 16), k, device=dev).to(torch.float8_e4m3fn)
                    s = median_time(lambda i: torch._scaled_mm(x8, w8[i % copies8].t(), scale_a=sa, scale_b=sb,
                                                               out_dtype=torch.bfloat16))
                    cells.append({"class": "torch fp8 block-scaled", "shape": name, "rows": rows, "seconds": s,
                                  "bytes": n * k + 4 * (n // 128) * (k // 128), "layout": layout})
            del w8
        except Exception as e:  # torch without FP8 matmul on this device: say so
            print(f"fp8 scaled_mm unavailable for {name}: {e}")
    # wo_a as the release runs it (dsv4-forward.md section 7): a bf16 GEMM of each group's dequantized weights with
    # its 8 heads' unquantized bf16 outputs, 8 groups of 1024x4096 (plumb reads the FP8 codes: half these bytes).
    groups, n_g, k_g = 8, 1024, 4096
    copies = max(2, (512 << 20) // (2 * groups * n_g * k_g) + 1)
    wa = [torch.randn(groups, n_g, k_g, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
    for rows in rows_list:
        xa = torch.randn(rows, groups, k_g, device=dev, dtype=torch.bfloat16)
        s = median_time(lambda i: torch.einsum("rgk,gnk->rgn", xa, wa[i % copies]))
        cells.append({"class": "torch bf16 grouped (release)", "shape": "wo_a 8x1024x4096", "rows": rows,
                      "seconds": s, "bytes": 2 * groups * n_g * k_g})
    del wa
    hidden, inter = 4096, 2048
    n_exp = 96
    w13 = [torch.randn(2 * inter, hidden, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(n_exp)]
    w2 = [torch.randn(hidden, inter, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(n_exp)]
    per_expert = 2 * (2 * inter * hidden + hidden * inter)
    for routing in ("same 6 experts", "routed apart"):
        for rows in rows_list:
            x = torch.randn(rows, hidden, device=dev, dtype=torch.bfloat16)
            # Row ranges as slices (views), so the captured graph does no host-side indexing.
            if routing == "same 6 experts":
                groups = [(e, slice(0, rows)) for e in range(6)]
            else:
                groups = [((r * 6 + kk) % n_exp, slice(r, r + 1)) for r in range(rows) for kk in range(6)]
            y = torch.zeros(rows, hidden, device=dev, dtype=torch.float32)

            def run(i):
                y.zero_()
                for e, rs in groups:
                    gu = F.linear(x[rs], w13[e])
                    h = F.silu(gu[:, :inter]) * gu[:, inter:]
                    y[rs] += F.linear(h, w2[e]).float()

            s = median_time(run)
            distinct = len({e for e, _ in groups})
            cells.append({"class": "torch bf16 experts " + routing, "shape": "top-6 x4096x2048", "rows": rows,
                          "seconds": s, "bytes": distinct * per_expert})
    print(f"torch copy bandwidth {bandwidth / 1e12:.2f} TB/s")
    print(f"{'peer':<34} {'shape':<24} {'rows':>4} {'time us':>9} {'GB':>7} {'of floor':>8}")
    for c in cells:
        floor = c["bytes"] / bandwidth
        c["floor_seconds"] = floor
        print(f"{c['class']:<34} {c['shape']:<24} {c['rows']:>4} {c['seconds'] * 1e6:>9.1f} {c['bytes'] / 1e9:>7.3f} "
              f"{100 * floor / c['seconds']:>7.0f}%")
    with open(out_path, "w") as f:
        json.dump({"copy_bandwidth_bytes_per_s": bandwidth, "torch": torch.__version__, "cells": cells}, f, indent=1)


if __name__ == "__main__":
    main()
