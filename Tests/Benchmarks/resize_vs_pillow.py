#!/usr/bin/env python3
"""Pillow's side of the resize benchmark (see ResizeBenchmarkTests.swift).

Prints one JSON line per image and case with the median time of Pillow doing the same work,
plus cv2 where it is the reference (MediaPipe's warpPerspective, cv2.resize INTER_LINEAR /
INTER_AREA) if OpenCV is installed. Run on the same machine right after the Swift benchmark:

    OBJDETECT_BENCH=1 swift test -c release -Xswiftc -enable-testing --scratch-path .build/tests --filter ResizeBenchmarkTests
    python3 Tests/Benchmarks/resize_vs_pillow.py
"""
import json, sys, time
from pathlib import Path
import numpy as np
from PIL import Image

SHARED = Path(__file__).resolve().parents[3] / "shared"
RUNS = 15

def median(fn):
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter(); fn(); times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)[RUNS // 2]

try:
    import cv2
    cv2.setNumThreads(1)
except ImportError:
    cv2 = None

for name in ["zidane", "bus", "cats_and_dogs", "chelsea"]:
    im = Image.open(SHARED / "images/png" / f"{name}.png").convert("RGB")
    im.load()
    cases = {
        "pillow_640": lambda: im.resize((640, 640), Image.BILINEAR),
        "pillow_224": lambda: im.resize((224, 224), Image.BILINEAR),
        "orientation_right": lambda: im.transpose(Image.Transpose.ROTATE_270),
    }
    if cv2 is not None:
        a = np.asarray(im)
        h, w = a.shape[:2]
        m = np.array([[300 / w, 0, 0], [0, 300 / h, 0], [0, 0, 1]], np.float64)
        cases["mediapipe_300 (cv2.warpPerspective)"] = lambda: cv2.warpPerspective(a, m, (300, 300), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        cases["bilinear_640 (cv2.resize)"] = lambda: cv2.resize(a, (640, 640), interpolation=cv2.INTER_LINEAR)
        cases["area_224 (cv2.resize)"] = lambda: cv2.resize(a, (224, 224), interpolation=cv2.INTER_AREA)
    for label, fn in cases.items():
        print(json.dumps({"image": name, "case": label, "median_ms": round(median(fn), 3)}))
