#!/usr/bin/env python3
"""Decode speed of objdetect's JPEG decoder against Pillow (libjpeg-turbo with SIMD).

Usage (from the repository root, after `swift build -c release`):
    python3 Tests/Benchmarks/jpeg_vs_pillow.py [--runs 20] [--rounds 5] [FILE ...]
Default files: ../shared/images/{zidane,bus,cats_and_dogs}.jpg.
Both sides time a full decode to RGB (gray stays 1 channel): the median of N runs after three
warm-up decodes, wall time (ours may use both cores) and process CPU time (all threads). The two
sides alternate, file by file, for --rounds rounds, and each side's best round median is reported
(as bench_reference.py does: on a shared machine whose speed changes over seconds, the two sides
then meet the same conditions). Prints one line per file with both ratios.
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
    ap.add_argument("--rounds", type=int, default=5, help="alternations of the two sides (best round median each)")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "objdetect"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(SHARED, "images", n) for n in ("zidane.jpg", "bus.jpg", "cats_and_dogs.jpg")]
    import PIL
    print(f"Pillow {PIL.__version__}, runs {a.runs}, rounds {a.rounds}")
    for path in files:
        ours, pillow = [], []
        for _ in range(a.rounds):
            out = subprocess.run([a.binary, "bench", "--what", "decode", "--json", "--runs", str(a.runs), path],
                                 check=True, capture_output=True, text=True).stdout
            ours.append(json.loads(out.strip().splitlines()[-1]))
            pillow.append(pillow_median_ms(path, a.runs))
        o = min(x["median_ms"] for x in ours)
        oc = min(x["median_cpu_ms"] for x in ours)
        p = min(x for x, _ in pillow)
        pc = min(x for _, x in pillow)
        size = f"{ours[0]['width']}x{ours[0]['height']}"
        print(f"{os.path.basename(path):22} {size}  wall: objdetect {o:7.2f} ms, "
              f"Pillow {p:7.2f} ms, ratio {o / p:5.2f}x   cpu: objdetect {oc:7.2f} ms, "
              f"Pillow {pc:7.2f} ms, ratio {oc / pc:5.2f}x", flush=True)

if __name__ == "__main__":
    sys.exit(main())
