#!/usr/bin/env python3
"""Markdown "measured vs model" table from a result JSON that has a --profile block:
one row per CUDA kernel function (or the CPU's counters), then the totals beside the model.
Usage: tools/profile_table.py RESULT.json [...]"""
import json
import math
import sys


def fmt(v, spec):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def pct(v):
    return fmt(None if v is None else 100.0 * v, ".1f")


def table(path):
    d = json.load(open(path))
    med = [b for b in d["benchmarks"] if b.get("aggregate_name") == "median"]
    if not med or "profile" not in med[0]:
        sys.exit(f"{path}: no profile block in the median entry (run with --profile)")
    b, p = med[0], med[0]["profile"]
    item = b.get("item", "item")
    print(f"`{path.split('/')[-1]}`: {p['tool']}, commit {d['context'].get('git_commit', '?')}, "
          f"{d['context']['gpu']['name'] if d['context'].get('gpu') and p.get('kind') == 'gpu' else d['context']['cpu']['model']}\n")
    if p.get("kind") == "gpu":
        print("| kernel | launches | time ms | DRAM B/item | DRAM % of peak | occupancy % achieved/theor. "
              "| FP64 pipe % | FP32 pipe % | L2 hit % | ld sectors/request | ld requested/moved % | local-memory GB |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for g in p["groups"]:
            eta = g.get("ld_efficiency") if p.get("metrics") != "hardware" else None
            print(f"| `{g['name'][:40]}` | {g['launches']} | {fmt(g['duration_s'] * 1e3, '.3f')} | "
                  f"{fmt(g['bytes_per_item'], '.4g')} | {fmt(g['dram_pct_peak'], '.1f')} | "
                  f"{fmt(g['achieved_occupancy_pct'], '.1f')}/{fmt(g['theoretical_occupancy_pct'], '.1f')} | "
                  f"{fmt(g['fp64_pipe_pct'], '.1f')} | "
                  f"{fmt(g['fp32_pipe_pct'], '.1f')} | {fmt(g['l2_hit_pct'], '.1f')} | "
                  f"{fmt(g['ld_sectors_per_request'], '.2f')} | "
                  f"{'>100' if eta and eta > 1.05 else pct(eta)} | {fmt(g['local_bytes'] / 1e9, '.3g')} |")
    else:
        print("| threads | cycles | instructions | IPC | vector share % | LLC-miss B/item |")
        print("|---:|---:|---:|---:|---:|---:|")
        print(f"| {p['threads']} | {fmt(p['cycles'], '.4g')} | {fmt(p['instructions'], '.4g')} | {fmt(p['ipc'], '.2f')} | "
              f"{pct(p.get('vector_share'))} | {fmt(p['bytes_per_item'], '.4g')} |")
    print()
    print(f"| per item ({item}) | measured | model | measured / model |")
    print("|---|---:|---:|---:|")
    print(f"| DRAM bytes | {fmt(p['bytes_per_item'], '.4g')} | {fmt(p['model_bytes_per_item'], '.4g')} | "
          f"{fmt(p['bytes_ratio'], '.2f')} |")
    if p.get("model_flops_per_item") is not None:
        print(f"| flops | {fmt(p['flops_per_item'], '.4g')} | {fmt(p['model_flops_per_item'], '.4g')} | "
              f"{fmt(p['flops_ratio'], '.2f')} |")
    print()


for f in sys.argv[1:]:
    table(f)
