#!/usr/bin/env python3
"""Fixtures and Pillow goldens for damaged-but-decodable JPEGs (issue #14).

Every case is a *splice* of a source JPEG: bytes [offset, offset + delete) are replaced by
`insert`.  That covers
  * scan cuts: a progressive file cut right after scan k's entropy-coded data, then EOI
    (`FF D9`), as a partial download that a server or a client closed off;
  * mid-scan cuts: cut inside scan k's data, then EOI -- what Pillow decodes with
    `ImageFile.LOAD_TRUNCATED_IMAGES = True` for the same cut without EOI (checked here);
  * restart damage: one RSTn marker renumbered, removed, or replaced by EOI / an invalid
    marker, which libjpeg resynchronises (`jpeg_resync_to_restart`).
The expected pixels are Pillow's (`Image.open(...).tobytes()` in mode RGB or L, libjpeg-turbo
defaults: islow IDCT, fancy upsampling, interblock smoothing on).  Each case also records
Pillow's pixels with libjpeg-turbo's SIMD code switched off (`JSIMD_FORCENONE=1`, the plain C
code): the two differ only where a block holds coefficients too large for the SIMD IDCT's
16-bit arithmetic (which saturates where the C code wraps) -- in practice the block a mid-scan
cut leaves half decoded from zero bits.

Sub-commands (run from the repository root):
  fixtures   write the synthetic source JPEGs Fixtures/jpeg_truncated/*.jpg (numpy + Pillow;
             deterministic content: gradients, shapes and seeded noise)
  goldens    write Fixtures/jpeg_truncated/expected.json: cases of the committed sources and
             of the progressive files in ../shared (tests read those only in CI); --check
             compares instead of writing
  dump NAME OUT.png   write Pillow's decode of one case (NAME as in expected.json) for
             looking at a mismatch; `swift test` prints the case names

Needs numpy and Pillow (13.0.0 with libjpeg-turbo 3.2.0 made the committed goldens).
"""

import argparse
import hashlib
import io
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageFile, features

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Fixtures" / "jpeg_truncated"
SHARED = ROOT.parent / "shared"
EXPECTED = FIXTURES / "expected.json"
EOI = b"\xff\xd9"

# Progressive files of ../shared cut in CI (arithmetic-coded ones are not decoded here).
SHARED_PROGRESSIVE = [
    "jpeg/gray_progressive.jpg", "jpeg/progressive_420.jpg", "jpeg/progressive_422_odd_33x17.jpg",
    "jpeg/progressive_444.jpg", "jpeg/progressive_custom_scans_successive_approx.jpg",
    "jpeg/progressive_photo_451x179.jpg", "jpeg/progressive_restart_2_420.jpg",
    "jpeg/progressive_spectral_selection_only.jpg", "images/cats_and_dogs.jpg", "images/multi_objects.jpg",
]
# Shared files that end without EOI: decoded with EOI appended (= LOAD_TRUNCATED_IMAGES).
SHARED_MISSING_EOI = ["jpeg/bad/truncated_progressive_after_3_scans.jpg", "jpeg/bad/truncated_mid_scan.jpg",
                      "jpeg/bad/missing_eoi.jpg"]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- synthetic sources

def synthetic_rgb(width, height, seed):
    """Gradients, a few filled shapes and seeded noise: edges, flat areas and texture."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    r = 255 * x / max(width - 1, 1)
    g = 255 * y / max(height - 1, 1)
    b = 128 + 100 * np.sin(x / 5.0) * np.cos(y / 7.0)
    img = np.stack([r, g, b], axis=-1)
    img += rng.normal(0, 12, img.shape)
    im = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")
    d = ImageDraw.Draw(im)
    d.ellipse((width * 0.15, height * 0.2, width * 0.55, height * 0.75), fill=(230, 40, 40))
    d.rectangle((width * 0.6, height * 0.1, width * 0.9, height * 0.45), fill=(20, 200, 60))
    d.line((0, height - 1, width - 1, 0), fill=(255, 255, 255), width=2)
    d.polygon([(width * 0.5, height * 0.95), (width * 0.7, height * 0.55), (width * 0.95, height * 0.9)],
              fill=(40, 60, 220))
    return im


SOURCES = [
    # name, size, mode, Pillow save options
    ("progressive_420_75x53.jpg", (75, 53), "RGB", dict(quality=80, subsampling=2, progressive=True)),
    ("progressive_444_45x38.jpg", (45, 38), "RGB", dict(quality=85, subsampling=0, progressive=True)),
    ("progressive_422_50x29.jpg", (50, 29), "RGB", dict(quality=75, subsampling=1, progressive=True)),
    ("progressive_gray_61x43.jpg", (61, 43), "L", dict(quality=80, progressive=True)),
    ("progressive_restart_420_67x45.jpg", (67, 45), "RGB",
     dict(quality=80, subsampling=2, progressive=True, restart_marker_blocks=3)),
    ("baseline_restart_420_67x45.jpg", (67, 45), "RGB", dict(quality=80, subsampling=2, restart_marker_blocks=2)),
]


def cmd_fixtures(args):
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for i, (name, (w, h), mode, options) in enumerate(SOURCES):
        im = synthetic_rgb(w, h, seed=14 + i)
        if mode == "L":
            im = im.convert("L")
        buf = io.BytesIO()
        im.save(buf, "JPEG", **options)
        (FIXTURES / name).write_bytes(buf.getvalue())
        print(f"{name}: {len(buf.getvalue())} bytes")
    return 0


# ---------------------------------------------------------------- JPEG structure

def scan_data_end(data, pos):
    """Offset of the first marker (not RSTn, not stuffing) at or after pos, before its fill bytes."""
    n = len(data)
    while True:
        i = data.find(b"\xff", pos)
        if i < 0:
            return n
        j = i + 1
        while j < n and data[j] == 0xFF:
            j += 1
        if j >= n:
            return n
        if data[j] == 0x00 or 0xD0 <= data[j] <= 0xD7:
            pos = j + 1
            continue
        return i


def scans(data):
    """[(header_end, data_end)] of every SOS: where its entropy-coded data starts and ends."""
    out = []
    pos = 2
    while pos + 4 <= len(data):
        assert data[pos] == 0xFF, f"no marker at {pos}"
        while data[pos + 1] == 0xFF:
            pos += 1
        code = data[pos + 1]
        if code == 0xD9:
            break
        length = int.from_bytes(data[pos + 2:pos + 4], "big")
        end = pos + 2 + length
        if code == 0xDA:
            data_end = scan_data_end(data, end)
            out.append((end, data_end))
            end = data_end
        pos = end
    return out


def restart_markers(data, start, end):
    """Offsets of the RSTn markers' FF bytes inside [start, end)."""
    out = []
    i = data.find(b"\xff", start, end)
    while 0 <= i < end - 1:
        if 0xD0 <= data[i + 1] <= 0xD7:
            out.append(i)
        i = data.find(b"\xff", i + 1, end)
    return out


# ---------------------------------------------------------------- cases

def splice(data, offset, delete, insert):
    return data[:offset] + insert + data[offset + delete:]


def pillow_pixels(data, truncated=False):
    ImageFile.LOAD_TRUNCATED_IMAGES = truncated
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            im = Image.open(io.BytesIO(data))
            im.load()
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False
    assert im.mode in ("RGB", "L"), im.mode
    return im


def pillow_error(data):
    try:
        pillow_pixels(data)
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def case_entry(name, kind, source, source_bytes, offset, delete, insert, note):
    data = splice(source_bytes, offset, delete, insert)
    im = pillow_pixels(data)
    pixels = im.tobytes()
    a = np.asarray(im, dtype=np.float64).reshape(im.size[1], im.size[0], -1)
    entry = {
        "name": name, "kind": kind, "source": source, "note": note,
        "splice": {"offset": offset, "delete": delete, "insert": insert.hex()},
        "bytes": len(data), "sha256": sha256(data),
        "mode": im.mode, "width": im.size[0], "height": im.size[1],
        "pixels_sha256": sha256(pixels),
        "channel_means": [round(float(m), 3) for m in a.mean(axis=(0, 1))],
    }
    if kind in ("scan-cut", "mid-scan-cut", "missing-eoi"):
        # The same cut without EOI: Pillow raises by default; LOAD_TRUNCATED_IMAGES appends EOI.
        cut = data[:-2]
        entry["pillow_without_eoi"] = pillow_error(cut)
        same = pillow_pixels(cut, truncated=True).tobytes() == pixels
        assert same, f"{name}: LOAD_TRUNCATED_IMAGES differs from an appended EOI"
    return entry


def cut_cases(label, source, data, mid_scan):
    """One case per scan (cut after it + EOI); with mid_scan also cuts at 1/3 and 2/3 of each scan."""
    out = []
    found = scans(data)
    total = len(found)
    for k, (start, end) in enumerate(found, start=1):
        if mid_scan:
            for part in (1, 2):
                at = start + (end - start) * part // 3
                out.append(case_entry(f"{label} cut at {part}/3 of scan {k} of {total}", "mid-scan-cut", source,
                                      data, at, len(data) - at, EOI, f"scan {k} ends at byte {end}"))
        if k == total:
            break   # after the last scan the file is whole
        out.append(case_entry(f"{label} after scan {k} of {total}", "scan-cut", source, data, end, len(data) - end,
                              EOI, f"first {k} scans, then EOI"))
    return out


def restart_cases(label, source, data):
    """Damage to one RST marker in the first scan (and, for progressive files, in the last scan)."""
    out = []
    found = scans(data)
    targets = [0] if len(found) == 1 else [0, len(found) - 1]
    for s in targets:
        start, end = found[s]
        markers = restart_markers(data, start, end)
        assert len(markers) >= 4, f"{label}: scan {s + 1} has {len(markers)} restart markers"
        m = markers[2]                     # the third marker: RST2
        expected = data[m + 1] - 0xD0
        where = f"scan {s + 1}, RST{expected} at byte {m}"
        variants = [
            ("renumbered +1", 0xD0 + (expected + 1) % 8, "one of the next two: left for an empty interval"),
            ("renumbered +2", 0xD0 + (expected + 2) % 8, "one of the next two: left for an empty interval"),
            ("renumbered -1", 0xD0 + (expected - 1) % 8, "a prior one: skip to the next marker"),
            ("renumbered -2", 0xD0 + (expected - 2) % 8, "a prior one: skip to the next marker"),
            ("renumbered +4", 0xD0 + (expected + 4) % 8, "too far away: taken as the expected one"),
            ("replaced by FF 05", 0x05, "an invalid marker: skip to the next marker"),
            ("replaced by EOI", 0xD9, "the rest of the scan is empty; the file ends"),
        ]
        for what, code, note in variants:
            out.append(case_entry(f"{label} {where} {what}", "restart", source, data, m + 1, 1, bytes([code]), note))
        out.append(case_entry(f"{label} {where} removed", "restart", source, data, m, 2, b"",
                              "missing marker: the next one is found ahead"))
    return out


def all_cases():
    cases = []
    for name, *_ in SOURCES:
        data = (FIXTURES / name).read_bytes()
        label = name[:-4]
        if "progressive" in name:
            cases += cut_cases(label, name, data, mid_scan=True)
        if "restart" in name:
            cases += restart_cases(label, name, data)
    if SHARED.is_dir():
        for rel in SHARED_PROGRESSIVE:
            data = (SHARED / rel).read_bytes()
            cases += cut_cases(rel, "shared/" + rel, data, mid_scan=False)
        for rel in SHARED_MISSING_EOI:
            data = (SHARED / rel).read_bytes()
            cases.append(case_entry(f"{rel} with EOI appended", "missing-eoi", "shared/" + rel, data, len(data), 0,
                                    EOI, "the file as stored, then EOI"))
    else:
        print("../shared not found: its cases are left out", file=sys.stderr)
    return cases


def sources_table():
    out = {}
    for name, *_ in SOURCES:
        out[name] = sha256((FIXTURES / name).read_bytes())
    if SHARED.is_dir():
        for rel in SHARED_PROGRESSIVE + SHARED_MISSING_EOI:
            out["shared/" + rel] = sha256((SHARED / rel).read_bytes())
    return out


def no_simd_hashes(blobs):
    """SHA-256 of Pillow's pixels for each JPEG in blobs, decoded in a child process with
    JSIMD_FORCENONE=1 (libjpeg-turbo reads it once, when it first picks its SIMD code)."""
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, blob in enumerate(blobs):
            path = Path(tmp) / f"{i}.jpg"
            path.write_bytes(blob)
            paths.append(str(path))
        code = ("import sys, hashlib, warnings\nfrom PIL import Image\nwarnings.simplefilter('ignore')\n"
                "for p in sys.argv[1:]:\n    print(hashlib.sha256(Image.open(p).tobytes()).hexdigest())\n")
        env = dict(os.environ, JSIMD_FORCENONE="1")
        out = subprocess.run([sys.executable, "-c", code] + paths, env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def source_bytes(source):
    return ((SHARED / source[len("shared/"):]) if source.startswith("shared/") else (FIXTURES / source)).read_bytes()


def add_no_simd(cases):
    blobs = []
    for c in cases:
        sp = c["splice"]
        blobs.append(splice(source_bytes(c["source"]), sp["offset"], sp["delete"], bytes.fromhex(sp["insert"])))
    for c, h in zip(cases, no_simd_hashes(blobs)):
        c["pixels_sha256_no_simd"] = h
    return cases


def cmd_goldens(args):
    doc = {
        "about": "Pillow's pixels for splices of JPEG sources (see Tests/Scripts/jpeg_truncated_fixtures.py). "
                 "source: a file in Fixtures/jpeg_truncated, or shared/... in ../shared. A case's bytes are the "
                 "source with [offset, offset+delete) replaced by insert (hex); pixels_sha256 is the SHA-256 of "
                 "Pillow's RGB or L bytes, pixels_sha256_no_simd the same with libjpeg-turbo's SIMD code off.",
        "pillow": PIL.__version__, "libjpeg_turbo": features.version("libjpeg_turbo"),
        "sources": sources_table(),
        "cases": add_no_simd(all_cases()),
    }
    text = json.dumps(doc, indent=1) + "\n"
    if args.check:
        same = EXPECTED.read_text() == text
        print("expected.json is up to date" if same else "expected.json differs")
        return 0 if same else 1
    EXPECTED.write_text(text)
    kinds = {}
    for c in doc["cases"]:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    print(f"{len(doc['cases'])} cases {kinds} -> {EXPECTED.relative_to(ROOT)}")
    return 0


def cmd_dump(args):
    doc = json.loads(EXPECTED.read_text())
    case = next(c for c in doc["cases"] if c["name"] == args.name)
    data = source_bytes(case["source"])
    s = case["splice"]
    data = splice(data, s["offset"], s["delete"], bytes.fromhex(s["insert"]))
    pillow_pixels(data).save(args.out)
    if args.jpeg:
        Path(args.jpeg).write_bytes(data)
    print(f"{args.name}: {case['mode']} {case['width']}x{case['height']} -> {args.out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("fixtures")
    g = sub.add_parser("goldens")
    g.add_argument("--check", action="store_true")
    d = sub.add_parser("dump")
    d.add_argument("name")
    d.add_argument("out")
    d.add_argument("--jpeg", help="also write the spliced JPEG here")
    args = ap.parse_args()
    return {"fixtures": cmd_fixtures, "goldens": cmd_goldens, "dump": cmd_dump}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
