#!/usr/bin/env python3
"""Peak memory of objdetect on small hostile files (issue 14's resource limits).

Builds each file in a temporary folder, runs the release CLI under `/usr/bin/time -v` and
prints the exit status, the first stderr line and the peak RSS ("Maximum resident set size")
next to the limit that applies. Usage (after `swift build -c release`):

    python3 Tests/Scripts/hostile_rss.py [path/to/objdetect]

Needs ../shared/models (the detector with metadata whose ZIP is replaced).
"""
import os, struct, subprocess, sys, tempfile, zlib, zipfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/objdetect")
shared = os.path.join(os.path.dirname(root), "shared")


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width, height, idat):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def zeros_zlib(count, raw=False):
    c = zlib.compressobj(9, zlib.DEFLATED, -15 if raw else 15)
    block = bytes(1 << 20)
    out = [c.compress(block) for _ in range(count >> 20)]
    return b"".join(out) + c.flush()


def zip_member(prefix, name, payload, claimed):
    """A ZIP appended to `prefix` (absolute offsets) with one deflated member."""
    n = name.encode()
    sizes = struct.pack("<III", 0, len(payload), claimed)
    local = struct.pack("<IHHHHH", 0x04034B50, 20, 0, 8, 0, 0) + sizes + struct.pack("<HH", len(n), 0) + n
    offset = len(prefix)
    central = (struct.pack("<IHHHHHH", 0x02014B50, 20, 20, 0, 8, 0, 0) + sizes
               + struct.pack("<HHHHHII", len(n), 0, 0, 0, 0, 0, offset) + n)
    start = offset + len(local) + len(payload)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), start, 0)
    return prefix + local + payload + central + end


def measure(label, args, limit, stdin_path=None, hostile=None):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    r = subprocess.run(["/usr/bin/time", "-v", cli] + args, stdin=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    lines = r.stderr.splitlines()
    peak = next(int(l.split(":")[1]) for l in lines if "Maximum resident set size" in l)
    status = next(l.split(":")[-1].strip() for l in lines if "Exit status" in l)
    message = next((l for l in lines if l.startswith("objdetect")), "")
    size = os.path.getsize(stdin_path or hostile or args[1])
    print(f"{label}\n  input {size:,} bytes, limit {limit}, exit {status}, peak RSS {peak / 1024:.1f} MiB\n  {message[:200]}")


with tempfile.TemporaryDirectory() as d:
    p = lambda name: os.path.join(d, name)
    img = p("image.ppm")
    open(img, "wb").write(b"P6\n32 32\n255\n" + bytes(32 * 32 * 3))
    measure("baseline: a 32x32 PPM", ["detect", img, "--model", "face-short"], "-")

    open(p("huge.png"), "wb").write(png(60000, 60000, zlib.compress(b"\0\0")))
    measure("PNG header 60000x60000", ["detect", p("huge.png")], "100,000,000 pixels")

    open(p("claims.png"), "wb").write(png(10000, 10000, zlib.compress(bytes(1024))))
    measure("PNG header 10000x10000 (at the pixel limit), 1 KiB of image data",
            ["detect", p("claims.png")], "inflate output 125,016,596 bytes (rows + 25% + 4 KiB)")

    open(p("bomb.png"), "wb").write(png(10000, 10000, zeros_zlib(1 << 30)))
    measure("PNG 10000x10000 whose image data inflates to 1 GiB (a deflate bomb)",
            ["detect", p("bomb.png")], "inflate output 125,016,596 bytes (119.2 MiB)")

    model = os.path.join(shared, "models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
    data = open(model, "rb").read()
    start = min(i.header_offset for i in zipfile.ZipFile(model).infolist())
    names = [i.filename for i in zipfile.ZipFile(model).infolist()]
    open(p("bomb.tflite"), "wb").write(zip_member(data[:start], names[0], zeros_zlib(1 << 30, raw=True), 64 << 20))
    measure(f"detector whose ZIP member {names[0]} claims 64 MiB and inflates to 1 GiB",
            ["detect", img, "--model", p("bomb.tflite")], "64 MiB (ZipArchive.maxEntrySize)", hostile=p("bomb.tflite"))

    open(p("huge.ppm"), "wb").write(b"P6\n60000 60000\n255\n" + bytes(1 << 20))
    measure("stdin PPM frame header 60000x60000", ["-", "--mode", "stream", "--model", "face-short"],
            "100,000,000 pixels", p("huge.ppm"))

    open(p("big.ppm"), "wb").write(b"P6\n10000 10000\n255\n" + bytes(1 << 20))
    measure("stdin PPM frame 10000x10000 RGB (300,000,019 bytes by its header)",
            ["-", "--mode", "stream", "--model", "face-short"], "256 MiB a frame", p("big.ppm"))

    with open(p("endless.jpg"), "wb") as f:
        f.write(bytes([0xFF, 0xD8, 0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]))
        for _ in range(320):
            f.write(bytes(1 << 20))
    measure("stdin JPEG scan that never ends (320 MiB)", ["-", "--mode", "stream", "--model", "face-short"],
            "256 MiB a frame", p("endless.jpg"))
    measure("the same with --max-frame-mb 64", ["-", "--mode", "stream", "--model", "face-short", "--max-frame-mb", "64"],
            "64 MiB a frame", p("endless.jpg"))
