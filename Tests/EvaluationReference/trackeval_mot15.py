#!/usr/bin/env python3
"""HOTA, DetA, AssA, LocA of MOT15 results from TrackEval (MotChallenge2DBox, BENCHMARK MOT15: no preprocessing but
the 'consider' flag), which mot_eval.py does not compute. Same TrackEval settings as mot17_eval.py otherwise.

Usage: python trackeval_mot15.py DATA RESULTS SEQ...   (DATA: shared/mot, with SEQ/gt.txt and SEQ/seqinfo.ini;
RESULTS: a folder with SEQ.txt). Prints {SEQ: {HOTA, DetA, AssA, LocA}, ..., "COMBINED_SEQ": {...}} as JSON.
Requirements: pip install numpy scipy && pip install --no-deps trackeval
"""
import configparser
import contextlib
import io
import json
import os
import sys
import tempfile

import numpy as np
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import trackeval
data, res_dir, seqs = sys.argv[1], sys.argv[2], sys.argv[3:]
with tempfile.TemporaryDirectory() as tmp:
    data_dir = os.path.join(tmp, "t", "data"); gt_root = os.path.join(tmp, "gt")
    os.makedirs(data_dir); os.makedirs(gt_root)
    lengths = {}
    for s in seqs:
        os.symlink(os.path.abspath(os.path.join(res_dir, s + ".txt")), os.path.join(data_dir, s + ".txt"))
        os.makedirs(os.path.join(gt_root, s, "gt"))
        os.symlink(os.path.abspath(os.path.join(data, s, "gt.txt")), os.path.join(gt_root, s, "gt", "gt.txt"))
        ini = configparser.ConfigParser(); ini.read(os.path.join(data, s, "seqinfo.ini"))
        lengths[s] = int(ini["Sequence"]["seqLength"])
    ec = {"USE_PARALLEL": False, "BREAK_ON_ERROR": True, "RETURN_ON_ERROR": False, "LOG_ON_ERROR": None, "PRINT_RESULTS": False,
          "PRINT_ONLY_COMBINED": False, "PRINT_CONFIG": False, "TIME_PROGRESS": False, "DISPLAY_LESS_PROGRESS": True,
          "OUTPUT_SUMMARY": False, "OUTPUT_EMPTY_CLASSES": False, "OUTPUT_DETAILED": False, "PLOT_CURVES": False}
    dc = {"GT_FOLDER": gt_root, "TRACKERS_FOLDER": tmp, "OUTPUT_FOLDER": os.path.join(tmp, "out"), "TRACKERS_TO_EVAL": ["t"],
          "CLASSES_TO_EVAL": ["pedestrian"], "BENCHMARK": "MOT15", "SPLIT_TO_EVAL": "train", "INPUT_AS_ZIP": False,
          "PRINT_CONFIG": False, "DO_PREPROC": True, "TRACKER_SUB_FOLDER": "data", "OUTPUT_SUB_FOLDER": "",
          "SEQ_INFO": lengths, "GT_LOC_FORMAT": "{gt_folder}/{seq}/gt/gt.txt", "SKIP_SPLIT_FOL": True}
    with contextlib.redirect_stdout(io.StringIO()):
        cfg = {"THRESHOLD": 0.5, "PRINT_CONFIG": False}
        out, _ = trackeval.Evaluator(ec).evaluate([trackeval.datasets.MotChallenge2DBox(dc)], [trackeval.metrics.HOTA(cfg)])
per = out["MotChallenge2DBox"]["t"]
print(json.dumps({k: {m: float(np.mean(per[k]["pedestrian"]["HOTA"][m])) for m in ["HOTA", "DetA", "AssA", "LocA"]} for k in seqs + ["COMBINED_SEQ"]}, indent=1))
