#!/usr/bin/env python3
"""Writes seed inputs of the fuzz targets that need their seeds cut out of shared files
(run_all.sh calls it; the seeds go to Tests/Fuzz/out/seeds, never into the project).

  extract_seeds.py zlib PNG_FOLDER OUT   IDAT streams: mode byte 1 + zlib, mode byte 2 + raw deflate
  extract_seeds.py zip MODEL_FOLDER OUT  the ZIP archives appended to .tflite files
  extract_seeds.py cli README OUT        objdetect command lines of README, NUL-separated
  extract_seeds.py jpeg JPEG_FOLDER OUT  the small JPEGs as they are, the others re-encoded at
                                         most 32 pixels a side with the same progression,
                                         subsampling and restart interval (fast to decode)
"""
import io
import os
import shlex
import struct
import sys


def idat_stream(data):
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, stream = 8, b""
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            stream += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return stream or None


def main(mode, source, out):
    count = 0
    if mode == "zlib":
        for name in sorted(n for n in os.listdir(source) if os.path.isfile(os.path.join(source, n))):
            with open(os.path.join(source, name), "rb") as f:
                stream = idat_stream(f.read())
            if stream and len(stream) <= 65000:
                for tag, body in ((1, stream), (2, stream[2:])):
                    with open(os.path.join(out, "%s.%d" % (name, tag)), "wb") as f:
                        f.write(bytes([tag]) + body)
                    count += 1
    elif mode == "zip":
        for name in sorted(n for n in os.listdir(source) if os.path.isfile(os.path.join(source, n))):
            with open(os.path.join(source, name), "rb") as f:
                data = f.read()
            start = data.find(b"PK\x03\x04")
            if start >= 0 and b"PK\x05\x06" in data[start:]:
                with open(os.path.join(out, name + ".zip"), "wb") as f:
                    f.write(data[start:])
                count += 1
    elif mode == "jpeg":
        from PIL import Image, JpegImagePlugin
        for name in sorted(n for n in os.listdir(source) if n.endswith(".jpg")):
            path = os.path.join(source, name)
            with open(path, "rb") as f:
                data = f.read()
            try:
                im = Image.open(io.BytesIO(data))
                im.load()
                small = im.size[0] * im.size[1] <= 16384
            except Exception:  # what Pillow cannot decode (12-bit, arithmetic, lossless) stays as it is
                im, small = None, len(data) <= 30000
            if not small and im is not None:
                options = {"quality": 75, "progressive": bool(im.info.get("progressive")),
                           "subsampling": max(0, JpegImagePlugin.get_sampling(im))}
                if b"\xff\xdd" in data:
                    options["restart_marker_blocks"] = 2
                thumb = im.copy()
                thumb.thumbnail((32, 32))
                out_bytes = io.BytesIO()
                try:
                    thumb.save(out_bytes, "JPEG", **options)
                except Exception:
                    continue
                data = out_bytes.getvalue()
            elif not small:
                continue
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            count += 1
    elif mode == "cli":
        with open(source) as f:
            lines = [l.strip() for l in f if l.strip().startswith("objdetect ")]
        for i, line in enumerate(lines):
            try:
                words = shlex.split(line.split(" | ")[0].split(" > ")[0])[1:]
            except ValueError:
                continue
            with open(os.path.join(out, "line%03d" % i), "wb") as f:
                f.write(b"\0".join(w.encode() for w in words))
            count += 1
    print("%d seeds in %s" % (count, out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
