#!/usr/bin/env python3
"""Prepare time and peak memory of objdetect against LiteRT (ai-edge-litert with XNNPACK), per model.

Usage (from the repository root, after `swift build -c release`):
    python3 Tests/Benchmarks/load_vs_litert.py [--rounds 3] [--binary .build/release/objdetect] [MODEL ...]
Default models: every .tflite in ../shared/models.

Ours: the load time `objdetect bench MODEL --runs 1 --warmup 0 --json` prints (file open until the
first invoke is possible: parse, prepare, constant folding, weight packing), and the process's peak
RSS (from wait4) less the peak RSS of `objdetect --version` (the binary and its runtime alone).
LiteRT: a fresh Python process times `Interpreter(model_path, num_threads=1)` + `allocate_tensors()`
(XNNPACK applied and its weights packed, as LiteRT does by default) and reports its peak RSS
(ru_maxrss) less the peak after `import ai_edge_litert`. The two sides alternate, model by model,
for --rounds rounds; each side's fastest prepare (the least disturbed by other processes on a shared
machine; `--stat median` for medians) and median peak RSS are printed with the ratios ours / LiteRT.
"""
import argparse, glob, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")

LITERT_CHILD = r"""
import resource, sys, time
from ai_edge_litert.interpreter import Interpreter
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
it = Interpreter(model_path=sys.argv[1], num_threads=1)
it.allocate_tensors()
ms = (time.perf_counter() - t) * 1000
print(ms, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
"""


def run_measured(argv):
    """(stdout, peak RSS in MB) of a child process, its own rusage from wait4."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[:3]} exited with {p.returncode}")
    return out, usage.ru_maxrss / 1024


def ours(binary, model, base_mb):
    out, peak = run_measured([binary, "bench", model, "--runs", "1", "--warmup", "0", "--json"])
    return json.loads(out.strip().splitlines()[-1])["load_ms"], peak - base_mb


def litert(model):
    out = subprocess.run([sys.executable, "-c", LITERT_CHILD, model], capture_output=True, text=True, check=True)
    ms, mb = out.stdout.split()
    return float(ms), float(mb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "objdetect"))
    ap.add_argument("--stat", choices=["min", "median"], default="min", help="prepare time statistic (default min)")
    a = ap.parse_args()
    models = a.models or sorted(glob.glob(os.path.join(SHARED, "models", "*.tflite")))
    if not models:
        sys.exit("no models (give paths, or put ../shared/models next to the repository)")
    base_mb = statistics.median(run_measured([a.binary, "--version"])[1] for _ in range(3))
    print("| model | prepare ms ours / LiteRT | ratio | peak RSS MB ours / LiteRT | ratio |")
    print("|---|---|---|---|---|")
    for m in models:
        o, l = [], []
        for _ in range(a.rounds):
            o.append(ours(a.binary, m, base_mb))
            l.append(litert(m))
        stat = min if a.stat == "min" else statistics.median
        om, omb = stat(x for x, _ in o), statistics.median(y for _, y in o)
        lm, lmb = stat(x for x, _ in l), statistics.median(y for _, y in l)
        name = os.path.splitext(os.path.basename(m))[0]
        print(f"| {name} | {om:.1f} / {lm:.1f} | {om / lm:.2f}× | {omb:.1f} / {lmb:.1f} | {omb / lmb:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
