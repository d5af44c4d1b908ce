#!/usr/bin/env python3
"""Decode speed of objdetect's PNG decoder against Pillow (libpng + zlib), same machine, same run.

For each file in ../shared/pngsuite/large/ (or the files given), it alternates rounds:
Pillow decodes the file from memory --runs times (Image.open + load, then convert('RGBA')
when the file is not already RGBA, since ours always produces canonical RGBA8), then
`objdetect bench --what decode FILE --runs N --json` does the same. Each side keeps its best median over
the rounds. Prints per-file medians and ratios (ours / Pillow) and the total ratio.

Usage (from the repository root, after `swift build -c release`):
    python3 Tests/Benchmarks/png_vs_pillow.py [--runs 10] [--rounds 3] [--binary .build/release/objdetect] [FILES...]
"""
import argparse
import glob
import io
import json
import os
import statistics
import subprocess
import sys
import time

from PIL import Image


def pillow_median_ms(data, runs, to_rgba):
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        im = Image.open(io.BytesIO(data))
        im.load()
        if to_rgba and im.mode != "RGBA":
            im = im.convert("RGBA")
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[1:])  # first run is a warm-up


def ours_median_ms(binary, path, runs):
    out = subprocess.run([binary, "bench", "--what", "decode", "--json", path, "--runs", str(runs)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--binary", default=os.path.join(root, ".build", "release", "objdetect"))
    ap.add_argument("--decode-only", action="store_true",
                    help="time Pillow's load() only, without convert('RGBA')")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(root, "..", "shared", "pngsuite", "large", "*.png")))
    if not files:
        sys.exit("no files found")
    total_pillow = total_ours = 0.0
    print(f"{'file':58s} {'pillow ms':>10s} {'ours ms':>10s} {'ratio':>7s}")
    for path in files:
        data = open(path, "rb").read()
        best_p = best_o = float("inf")
        for _ in range(args.rounds):
            best_p = min(best_p, pillow_median_ms(data, args.runs, not args.decode_only))
            best_o = min(best_o, ours_median_ms(args.binary, path, args.runs))
        total_pillow += best_p
        total_ours += best_o
        print(f"{os.path.basename(path)[:58]:58s} {best_p:10.3f} {best_o:10.3f} {best_o / best_p:7.2f}")
    print(f"{'TOTAL':58s} {total_pillow:10.3f} {total_ours:10.3f} {total_ours / total_pillow:7.2f}")


if __name__ == "__main__":
    main()
