#!/usr/bin/env python3
"""Checks `objdetect image-info --json` from outside against ../shared/goldens/png.json and ppm.json:
every good file must report the golden width, height and rgba8_sha256; every bad file must exit 1
with one line on stderr. (Streams: the first frame is checked.)

Usage (from the repository root): python3 Tests/Scripts/image_info_goldens.py [--binary .build/release/objdetect]
"""
import argparse
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
shared = os.path.join(root, "..", "shared")
ap = argparse.ArgumentParser()
ap.add_argument("--binary", default=os.path.join(root, ".build", "release", "objdetect"))
args = ap.parse_args()

good = bad = failures = 0
cases = []
png = json.load(open(os.path.join(shared, "goldens", "png.json")))
for f in png["files"]:
    cases.append((f["file"], f if f["expect"] == "decode" else None))
ppm = json.load(open(os.path.join(shared, "goldens", "ppm.json")))
for f in ppm["files"]:
    cases.append((f["file"], f["frames"][0] if "frames" in f else f))
for f in ppm["bad"]:
    cases.append((f["file"], None))

for path, want in cases:
    p = subprocess.run([args.binary, "image-info", os.path.join(shared, path), "--json"], capture_output=True, text=True)
    if want is None:
        ok = p.returncode == 1 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
        bad += 1
    else:
        try:
            got = json.loads(p.stdout)
            ok = (p.returncode == 0 and got["width"] == want["width"] and got["height"] == want["height"]
                  and got["rgba8_sha256"] == want["rgba8_sha256"])
        except (ValueError, KeyError):
            ok = False
        good += 1
    if not ok:
        failures += 1
        print(f"FAIL {path}: rc={p.returncode} out={p.stdout.strip()[:200]} err={p.stderr.strip()[:200]}")
print(f"{good} good files, {bad} bad files, {failures} failures")
sys.exit(1 if failures else 0)
