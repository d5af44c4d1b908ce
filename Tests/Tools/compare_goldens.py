#!/usr/bin/env python3
"""Runs `objdetect run` on every golden case of the given models and prints, per output,
the worst absolute error, the tolerance max(1e-4*max(1,|golden|max), builtin spread) and
pass/fail. Dev tool only (needs numpy); the CI check is the Swift conformance test."""
import json, os, subprocess, sys, tempfile
import numpy as np

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
BIN = sys.argv[1]
models = sys.argv[2:]
root = os.path.join(SHARED, "goldens", "tensors")
for stem in models:
    for case in sorted(os.listdir(os.path.join(root, stem))):
        d = os.path.join(root, stem, case)
        m = json.load(open(os.path.join(d, "manifest.json")))
        args = [BIN, "run", os.path.join(SHARED, m["model"]), "--output-dir"]
        out = tempfile.mkdtemp()
        args.append(out)
        for t in m["inputs"]:
            spec = os.path.join(d, t["file"])
            if t["shape"] != t["model_shape"]:
                spec += ":" + "x".join(str(v) for v in t["shape"])
            args += ["--input", spec]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            print(stem, case, "FAILED", r.stderr.strip()); continue
        for t in m["outputs"]:
            g = np.fromfile(os.path.join(d, t["file"]), dtype=t["dtype"]).astype(np.float64)
            o = np.fromfile(os.path.join(out, "output_%d.bin" % t["position"]), dtype=t["dtype"]).astype(np.float64)
            if g.shape != o.shape:
                print(stem, case, t["position"], "shape mismatch", g.shape, o.shape); continue
            err = np.abs(g - o).max() if g.size else 0
            tol = max(1e-4 * max(1, np.abs(g).max() if g.size else 0), t["builtin_spread"]["max_abs_diff"])
            rel = err / max(1, np.abs(g).max())
            print("%-40s %-14s out%d max_err %.3g tol %.3g rel %.2e %s" % (stem, case, t["position"], err, tol, rel, "ok" if err <= tol else "FAIL"))
