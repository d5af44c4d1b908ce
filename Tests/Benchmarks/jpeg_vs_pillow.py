#!/usr/bin/env python3
"""Decode speed of objdetect's JPEG decoder against Pillow (libjpeg-turbo with SIMD).

Usage (from the repository root, after `swift build -c release`):
    python3 Tests/Benchmarks/jpeg_vs_pillow.py [--runs 20] [FILE ...]
Default files: ../shared/images/{zidane,bus,cats_and_dogs}.jpg.
Both sides time a full decode to RGB (gray stays 1 channel) and report the median of N runs
after three warm-up decodes, on the same machine in the same run: wall time (ours may use both cores)
and process CPU time (all threads; robust when the machine is shared). Prints one line per
file with both ratios.
"""
import argparse, json, os, statistics, subprocess, sys, time

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def pillow_median_ms(path, runs):
    """Median wall and CPU milliseconds of Image.open + load (libjpeg-turbo decode to RGB)."""
    data = open(path, "rb").read()
    import io
    def once():
        im = Image.open(io.BytesIO(data))
        im.load()
        return im
    for _ in range(3):
        once()
    times, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        once()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return statistics.median(times), statistics.median(cpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "objdetect"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(SHARED, "images", n) for n in ("zidane.jpg", "bus.jpg", "cats_and_dogs.jpg")]
    out = subprocess.run([a.binary, "bench", "--what", "decode", "--json", "--runs", str(a.runs), *files],
                         check=True, capture_output=True, text=True).stdout
    ours = [json.loads(line) for line in out.splitlines() if line.strip()]
    import PIL
    print(f"Pillow {PIL.__version__}, runs {a.runs}")
    for path, o in zip(files, ours):
        p, pc = pillow_median_ms(path, a.runs)
        print(f"{os.path.basename(path):22} {o['width']}x{o['height']}  wall: objdetect {o['median_ms']:7.2f} ms, "
              f"Pillow {p:7.2f} ms, ratio {o['median_ms'] / p:5.2f}x   cpu: objdetect {o['median_cpu_ms']:7.2f} ms, "
              f"Pillow {pc:7.2f} ms, ratio {o['median_cpu_ms'] / pc:5.2f}x")


if __name__ == "__main__":
    sys.exit(main())
