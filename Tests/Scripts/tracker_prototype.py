#!/usr/bin/env python3
"""Python prototype of `IoUTracker` (Sources/DetectorPostprocess/Tracking) for fast what-if runs on the
benchmarks: runs the tracker on the eleven shared sequences (MOT17 half-val with YOLOX-X
detections, MOT15 with Faster R-CNN) and scores them with the reference scripts
(../shared/reference/mot17_eval.py, mot_eval.py).

It mirrors the Swift tracker step by step (score window, relative split, Kalman filter, one
optimal assignment with the same admissibility rules and weights, counters and reporting), in
double precision where the Swift code uses Float for boxes, so a few close assignments differ.
Options that are not (or not yet) in the Swift tracker are plain keys of `DEFAULTS`.

    python3 Tests/Scripts/tracker_prototype.py                      # defaults, both benchmarks
    python3 Tests/Scripts/tracker_prototype.py --set gp=None --set hits_after_gap=2   # before the ground-plane gate
    python3 Tests/Scripts/tracker_prototype.py --set centre_weight=4 --set foot_weight=0 --set gp=None --set hits_after_gap=2   # issue 29's first pass
    python3 Tests/Scripts/tracker_prototype.py --set max_age_ms=1500 --set iou=0.25
    python3 Tests/Scripts/tracker_prototype.py --no-hota --only mot17

Needs numpy, scipy, motmetrics and trackeval (as the reference scripts do).
"""

import argparse
import configparser
import contextlib
import io
import json
import math
import os
import pathlib
import sys
import tempfile

import numpy as np
from scipy.optimize import linear_sum_assignment

HERE = pathlib.Path(__file__).resolve()
SHARED = pathlib.Path(os.environ.get("OBJDETECT_SHARED", HERE.parents[2].parent / "shared"))
MOT17 = ["MOT17-02", "MOT17-04", "MOT17-09", "MOT17-11"]
MOT15 = ["TUD-Campus", "TUD-Stadtmitte", "KITTI-17", "ETH-Sunnyday", "ADL-Rundle-6", "ETH-Bahnhof", "PETS09-S2L1"]

DEFAULTS = dict(
    iou=0.2, max_age_ms=1000.0, min_hits=3, hits_after_gap=1, high=0.65, low=0.1, new_track=0.85,
    low_weight=0.2, low_iou=0.5, score_weighted=True, hold_size=True, centre_weight=0.0,
    foot_weight=3.0,
    gate=0.25, gate_growth=1.0, height_ratio=1.4, ref_quantile=0.95, window=1000,
    # Ground-plane gate (see the section above load_dets); the Swift defaults.
    gp="gate2", gp_fit=True, gp_focal=1.5, gp_sx=0.2, gp_sy=0.08, gp_q=0.3, gp_gate=12.0,
    gp_weight=0.5, gp_min_lost=1, gp_hr=1.4, gp_logdet=False, gp_minfit=50, gp_r2=0.5, gp_lazy=True,
    gp_pos0=1.0, gp_vel0=1.0, gp_nosize=False, gp_keep_iou=False,
    # --- ideas under test (off by default) ---
    # Second stage: lost tracks (missed > 0) left unmatched vs. unmatched high detections, by
    # normalised distance of the bottom-centre points (no IoU needed).
    stage2=False, s2_radius=0.5, s2_growth=1.0, s2_height_ratio=1.3, s2_min_lost=1, s2_use_cov=False,
    s2_cov_k=3.0, s2_point="bottom",
    # Mahalanobis boost (BoostTrack's idea): weight += maha_boost * exp(-m2 / 2), m2 from the
    # Kalman centre variances.
    maha_boost=0.0,
    # BoostTrack shape similarity: weight += shape * exp(-(|dw|/maxw + |dh|/maxh)).
    shape_boost=0.0,
    # Another distance term, subtracted with weight dist_weight (None: none): "centre" (centres
    # over the predicted height), "bottom_mean" (feet over the mean of the two heights),
    # "bottom_wh" (feet, x over the width and y over the height), "top" (top centres over the height).
    dist_mode=None, dist_weight=3.0,
    # Score weighting with (score / reference)^score_power; a height gate for every match (None: only lost ones).
    score_power=1.0, all_height_ratio=None,
    # Reported box: "filtered" (Swift's default), "detection" or "mean" of the two.
    report="filtered",
    # A track's max age grows with how long it has been tracked: + age_gain x (last match - birth), up to age_cap ms.
    age_gain=0.0, age_cap=2000.0,
    # Area velocity multiplied by this before every prediction (1: SORT's filter).
    area_damping=1.0,
    # Height-change penalty: - height_penalty * ln(h_det / h_pred)^2.
    height_penalty=0.0,
    # Height gate for tracks matched in the previous update, from the detector's own height noise:
    # exp(k × q-quantile of |ln(detected / predicted height)| over the last matches), at least hg_min.
    height_adaptive=None, hg_q=0.9, hg_min=1.1, hg_window=1000,
    # Image border (size from seqinfo.ini): a lost track whose predicted box has less than
    # border_visible of its area inside the image is dropped; a lost track whose last detection
    # touched the border (within border_margin × its height) keeps at most border_age_ms.
    border_visible=None, border_margin=0.02, border_age_ms=None,
    # Hybrid-SORT's height-modulated IoU in the weight: IoU × (vertical overlap / vertical union)^hmiou.
    hmiou=0.0,
    # C-BIoU's buffered IoU for lost tracks: both boxes grown by cbiou × their size each side.
    cbiou=0.0,
    # A lost track's centre velocity multiplied by this before every prediction (1: constant
    # velocity through the whole gap).
    lost_velocity_damping=1.0,
    # Low-score detections may also continue confirmed tracks lost for at most this many updates
    # (0: only tracks matched in the previous update).
    low_lost_max=0,
    # OC-SORT's observation-centric recovery: tracks left unmatched vs. unmatched high detections
    # by IoU with the track's last detected box (not its prediction), at least ocr_iou.
    ocr=False, ocr_iou=0.3, ocr_all=False, ocr_height_ratio=None,
    # OC-SORT's observation-centric momentum: + ocm × (π/2 − |angle between the track's direction
    # over its last ocm_dt observations and the direction last observation → detection|) / π.
    ocm=0.0, ocm_dt=3, ocm_point="centre",
)


class Axis:
    __slots__ = ("v", "r", "p00", "p01", "p11")

    def __init__(self, v, ps, rs):
        self.v, self.r, self.p00, self.p01, self.p11 = v, 0.0, ps * ps, 0.0, rs * rs

    def copy(self):
        a = Axis.__new__(Axis)
        a.v, a.r, a.p00, a.p01, a.p11 = self.v, self.r, self.p00, self.p01, self.p11
        return a

    def predict(self, q, rq):
        self.v += self.r
        self.p00 += 2 * self.p01 + self.p11 + q * q
        self.p01 += self.p11
        self.p11 += rq * rq

    def correct(self, z, ms):
        s = self.p00 + ms * ms
        if not (s > 0 and math.isfinite(s)):
            return
        kv, kr = self.p00 / s, self.p01 / s
        innov = z - self.v
        self.v += kv * innov
        self.r += kr * innov
        n11 = self.p11 - kr * self.p01
        self.p00 *= (1 - kv)
        self.p01 *= (1 - kv)
        self.p11 = max(n11, 0.0)


S10 = math.sqrt(10.0)


class Motion:
    __slots__ = ("cx", "cy", "a", "s")

    def __init__(self, box=None):
        if box is None:
            return
        x, y, w, h = box
        self.cx = Axis(x + w / 2, S10, 100.0)
        self.cy = Axis(y + h / 2, S10, 100.0)
        self.a = Axis(w * h, S10, 100.0)
        self.s = Axis(w / h, S10, 0.0)

    def copy(self):
        m = Motion()
        m.cx, m.cy, m.a, m.s = self.cx.copy(), self.cy.copy(), self.a.copy(), self.s.copy()
        return m

    def predict(self, hold):
        if hold or self.a.v + self.a.r <= 0:
            self.a.r = 0.0
        self.cx.predict(1.0, 0.1)
        self.cy.predict(1.0, 0.1)
        self.a.predict(1.0, 0.01)
        self.s.predict(1.0, 0.0)

    def correct(self, box):
        x, y, w, h = box
        self.cx.correct(x + w / 2, 1.0)
        self.cy.correct(y + h / 2, 1.0)
        self.a.correct(w * h, S10)
        self.s.correct(w / h, S10)

    def box(self):
        a = max(self.a.v, 1e-6)
        r = max(self.s.v, 1e-6)
        w = max(math.sqrt(a * r), 1e-3)
        h = max(math.sqrt(a / r), 1e-3)
        return (self.cx.v - w / 2, self.cy.v - h / 2, w, h)


class Track:
    __slots__ = ("id", "m", "hits", "missed", "last_ms", "streak", "last_det", "vel", "born", "obs")

    def __init__(self, box, now):
        self.id = None
        self.m = Motion(box)
        self.hits = 1
        self.missed = 0
        self.last_ms = now
        self.born = now
        self.streak = 1
        self.last_det = box
        self.obs = [box]


def quantile(window, q):
    if not window:
        return -math.inf
    n = len(window)
    rank = min(int(n * min(max(q, 0.0), 1.0)), n - 1)
    return float(np.partition(np.asarray(window, dtype=np.float32), rank)[rank])


def iou_matrix(a, b):
    ax2, ay2 = a[:, 0] + a[:, 2], a[:, 1] + a[:, 3]
    bx2, by2 = b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    iw = np.clip(np.minimum(ax2[:, None], bx2[None]) - np.maximum(a[:, 0][:, None], b[:, 0][None]), 0, None)
    ih = np.clip(np.minimum(ay2[:, None], by2[None]) - np.maximum(a[:, 1][:, None], b[:, 1][None]), 0, None)
    inter = iw * ih
    union = (a[:, 2] * a[:, 3])[:, None] + (b[:, 2] * b[:, 3])[None] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


class Tracker:
    def __init__(self, cfg, size=None):
        self.c = cfg
        self.size = size
        self.tracks = []
        self.next_id = 1
        self.updates = 0
        self.now = 0.0
        self.window = []
        self.wpos = 0
        self.hwin = []
        self.hpos = 0
        self.hlog = []

    def add_score(self, s):
        if len(self.window) < self.c["window"]:
            self.window.append(s)
        else:
            self.window[self.wpos] = s
        self.wpos = (self.wpos + 1) % self.c["window"]

    def update(self, dets, now):
        """dets: (n,5) array x,y,w,h,score. Returns list of (id, box, score)."""
        c = self.c
        self.now = now
        self.updates += 1
        limit = c["max_age_ms"] + 0.5
        ag, cap = c["age_gain"], c["age_cap"]
        W, H = self.size if self.size else (None, None)
        def at_border(b):
            m = c["border_margin"] * b[3]
            return b[0] <= m or b[1] <= m or b[0] + b[2] >= W - m or b[1] + b[3] >= H - m
        def lim(t):
            if c["border_age_ms"] is not None and W and t.missed > 0 and at_border(t.last_det):
                return min(limit, c["border_age_ms"] + 0.5)
            if ag <= 0:
                return limit
            return min(c["max_age_ms"] + ag * (t.last_ms - t.born), max(cap, c["max_age_ms"])) + 0.5
        self.tracks = [t for t in self.tracks if now - t.last_ms <= lim(t)]
        for t in self.tracks:
            t.m.a.r *= c["area_damping"]
            if t.missed > 0 and c["lost_velocity_damping"] != 1.0:
                t.m.cx.r *= c["lost_velocity_damping"]
                t.m.cy.r *= c["lost_velocity_damping"]
            t.m.predict(c["hold_size"] and t.missed > 0)
        if c["border_visible"] is not None and W:
            def visible(b):
                iw = max(0.0, min(b[0] + b[2], W) - max(b[0], 0.0))
                ih = max(0.0, min(b[1] + b[3], H) - max(b[1], 0.0))
                return iw * ih / max(b[2] * b[3], 1e-9)
            self.tracks = [t for t in self.tracks if t.missed == 0 or visible(t.m.box()) >= c["border_visible"]]
        n = len(dets)
        for s in dets[:, 4]:
            self.add_score(float(s))
        ref = quantile(self.window, c["ref_quantile"])
        if ref > 0:
            hs, ls, ns, scale = c["high"] * ref, c["low"] * ref, c["new_track"] * ref, 1 / ref
        else:
            hs, ls, ns, scale = -math.inf, -math.inf, -math.inf, 1.0
        scores = dets[:, 4] if n else np.zeros(0)
        is_high = scores >= hs
        is_low = (~is_high) & (scores >= ls)
        cand = np.nonzero(is_high | is_low)[0]
        det_track = [None] * n
        matched = [False] * len(self.tracks)
        self.associate(dets, cand, is_low, scale, matched, det_track)
        if c["stage2"]:
            self.stage2(dets, is_high, matched, det_track)
        if c["ocr"]:
            self.ocr(dets, is_high, matched, det_track)
        for d, ti in enumerate(det_track):
            if ti is None:
                continue
            t = self.tracks[ti]
            gap = t.missed
            box = tuple(dets[d, :4])
            if gap == 0:
                v = abs(math.log(box[3] / t.m.box()[3]))
                if len(self.hwin) < c["hg_window"]:
                    self.hwin.append(v)
                else:
                    self.hwin[self.hpos] = v
                self.hpos = (self.hpos + 1) % c["hg_window"]
            t.m.correct(box)
            t.last_det = box
            t.obs.append(box)
            if len(t.obs) > 8:
                del t.obs[0]
            t.hits += 1
            t.streak = t.streak + 1 if gap == 0 else 1
            t.missed = 0
            t.last_ms = now
        new_index = [None] * len(self.tracks)
        kept = []
        for i, t in enumerate(self.tracks):
            if not matched[i]:
                t.missed += 1
                if now - t.last_ms > lim(t):
                    continue
            new_index[i] = len(kept)
            kept.append(t)
        self.tracks = kept
        for d in range(n):
            if det_track[d] is not None:
                det_track[d] = new_index[det_track[d]]
        for d in np.nonzero(is_high)[0]:
            if det_track[d] is None and scores[d] >= ns:
                det_track[d] = len(self.tracks)
                self.tracks.append(Track(tuple(dets[d, :4]), now))
        self.last_det_track = det_track
        min_hits = c["min_hits"]
        warm = self.updates <= min_hits
        out = []
        for d, ti in enumerate(det_track):
            if ti is None:
                continue
            t = self.tracks[ti]
            needed = min(c["hits_after_gap"], min_hits) if t.id is not None else min_hits
            if not (t.streak >= needed or warm):
                continue
            if t.id is None:
                t.id = self.next_id
                self.next_id += 1
            if c["report"] == "detection":
                b = tuple(dets[d, :4])
            elif c["report"] == "mean":
                fb, db = t.m.box(), dets[d, :4]
                b = tuple((fb[k] + db[k]) / 2 for k in range(4))
            else:
                b = t.m.box()
            out.append((t.id, b, float(scores[d])))
        return out

    def associate(self, dets, cand, is_low, scale, matched, det_track):
        c = self.c
        T = len(self.tracks)
        if T == 0 or len(cand) == 0:
            return
        P = np.array([t.m.box() for t in self.tracks])
        D = dets[cand, :4]
        low = is_low[cand]
        iou = iou_matrix(P, D)
        if c["cbiou"]:
            b = c["cbiou"]
            def grow(X):
                return np.stack([X[:, 0] - b * X[:, 2], X[:, 1] - b * X[:, 3], X[:, 2] * (1 + 2 * b), X[:, 3] * (1 + 2 * b)], 1)
            lostm = np.array([t.missed > 0 for t in self.tracks])
            iou = np.where(lostm[:, None], iou_matrix(grow(P), grow(D)), iou)
        tent = np.array([t.id is None for t in self.tracks])
        lost = np.array([t.missed > 0 for t in self.tracks])
        adm = iou >= c["iou"]
        adm &= ~low[None] | (iou >= c["low_iou"])
        lostlong = np.array([t.missed > c["low_lost_max"] for t in self.tracks])
        adm &= ~(low[None] & (tent | lostlong)[:, None])
        pcx, pcy = P[:, 0] + P[:, 2] / 2, P[:, 1] + P[:, 3] / 2
        dcx, dcy = D[:, 0] + D[:, 2] / 2, D[:, 1] + D[:, 3] / 2
        dx, dy = dcx[None] - pcx[:, None], dcy[None] - pcy[:, None]
        d2 = dx * dx + dy * dy
        secs = np.array([max(0.0, self.now - t.last_ms) / 1000 for t in self.tracks])
        if c["height_ratio"] is not None:
            r = c["height_ratio"]
            lh = np.array([t.last_det[3] for t in self.tracks])
            dh = D[:, 3][None]
            ph = P[:, 3][:, None]
            bad = (dh > ph * r) | (ph > dh * r) | (dh > lh[:, None] * r) | (lh[:, None] > dh * r)
            adm &= ~(bad & lost[:, None])
        if c["all_height_ratio"] is not None:
            r = c["all_height_ratio"]
            dh = D[:, 3][None]
            ph = P[:, 3][:, None]
            adm &= ~((dh > ph * r) | (ph > dh * r))
        if c["height_adaptive"] is not None and len(self.hwin) >= 50:
            q = quantile(self.hwin, c["hg_q"])
            lr = max(c["height_adaptive"] * q, math.log(c["hg_min"]))
            self.hlog.append(lr)
            r = math.exp(lr)
            dh = D[:, 3][None]
            ph = P[:, 3][:, None]
            adm &= ~(~lost[:, None] & ((dh > ph * r) | (ph > dh * r)))
        if c["gate"] is not None:
            rad = P[:, 3] * (c["gate"] + c["gate_growth"] * secs)
            adm &= ~(lost[:, None] & (d2 > (rad * rad)[:, None]))
        ex2 = np.maximum((P[:, 0] + P[:, 2])[:, None], (D[:, 0] + D[:, 2])[None])
        ex1 = np.minimum(P[:, 0][:, None], D[:, 0][None])
        ey2 = np.maximum((P[:, 1] + P[:, 3])[:, None], (D[:, 1] + D[:, 3])[None])
        ey1 = np.minimum(P[:, 1][:, None], D[:, 1][None])
        diag = (ex2 - ex1) ** 2 + (ey2 - ey1) ** 2
        # The Swift score: IoU - centre_weight * d^2/c^2 (DIoU) - foot_weight * f^2/h^2.
        w = iou.copy()
        if c["hmiou"]:
            yt = np.maximum(P[:, 1][:, None], D[:, 1][None])
            yb = np.minimum((P[:, 1] + P[:, 3])[:, None], (D[:, 1] + D[:, 3])[None])
            yu = np.maximum((P[:, 1] + P[:, 3])[:, None], (D[:, 1] + D[:, 3])[None]) - np.minimum(P[:, 1][:, None], D[:, 1][None])
            w = w * (np.clip(yb - yt, 0, None) / np.maximum(yu, 1e-9)) ** c["hmiou"]
        if c["centre_weight"]:
            w -= c["centre_weight"] * np.where(diag > 0, d2 / np.maximum(diag, 1e-12), 0.0)
        if c["foot_weight"]:
            bdy = (D[:, 1] + D[:, 3])[None] - (P[:, 1] + P[:, 3])[:, None]
            w -= c["foot_weight"] * (dx * dx + bdy * bdy) / (P[:, 3] ** 2)[:, None]
        if c["dist_mode"] is None:
            pass
        elif c["dist_mode"] == "centre":
            w = w - c["dist_weight"] * d2 / (P[:, 3] ** 2)[:, None]
        elif c["dist_mode"] == "bottom_wh":
            bdy = (D[:, 1] + D[:, 3])[None] - (P[:, 1] + P[:, 3])[:, None]
            w = w - c["dist_weight"] * ((dx / P[:, 2][:, None]) ** 2 + (bdy / P[:, 3][:, None]) ** 2)
        elif c["dist_mode"] == "bottom_mean":
            bdy = (D[:, 1] + D[:, 3])[None] - (P[:, 1] + P[:, 3])[:, None]
            hm = (P[:, 3][:, None] + D[:, 3][None]) / 2
            w = w - c["dist_weight"] * (dx * dx + bdy * bdy) / (hm * hm)
        elif c["dist_mode"] == "top":
            tdy = D[:, 1][None] - P[:, 1][:, None]
            w = w - c["dist_weight"] * (dx * dx + tdy * tdy) / (P[:, 3] ** 2)[:, None]
        if c["height_penalty"]:
            lhr = np.log(D[:, 3][None] / P[:, 3][:, None])
            w = w - c["height_penalty"] * lhr * lhr
        if c["shape_boost"]:
            pw, ph = P[:, 2][:, None], P[:, 3][:, None]
            dw, dh = D[:, 2][None], D[:, 3][None]
            shape = np.exp(-(np.abs(pw - dw) / np.maximum(pw, dw) + np.abs(ph - dh) / np.maximum(ph, dh)))
            w = w + c["shape_boost"] * shape * (iou > 0)
        if c["maha_boost"]:
            sx = np.array([t.m.cx.p00 for t in self.tracks]) + 1.0
            sy = np.array([t.m.cy.p00 for t in self.tracks]) + 1.0
            m2 = dx * dx / sx[:, None] + dy * dy / sy[:, None]
            w = w + c["maha_boost"] * np.exp(-m2 / 2)
        if c["ocm"]:
            k = c["ocm_dt"]
            def pt(b):
                return (b[0] + b[2] / 2, b[1] + b[3] if c["ocm_point"] == "foot" else b[1] + b[3] / 2)
            dirs = []
            for t in self.tracks:
                if len(t.obs) >= 2:
                    a = pt(t.obs[max(0, len(t.obs) - 1 - k)]); b = pt(t.obs[-1])
                    vx, vy = b[0] - a[0], b[1] - a[1]
                    nrm = math.hypot(vx, vy)
                    dirs.append((vx / nrm, vy / nrm, 1.0) if nrm > 1e-6 else (0.0, 0.0, 0.0))
                else:
                    dirs.append((0.0, 0.0, 0.0))
            dirs = np.array(dirs)
            last = np.array([pt(t.obs[-1]) for t in self.tracks])
            dp = np.array([pt(b) for b in D])
            ux = dp[:, 0][None] - last[:, 0][:, None]; uy = dp[:, 1][None] - last[:, 1][:, None]
            un = np.hypot(ux, uy)
            cosv = (ux * dirs[:, 0][:, None] + uy * dirs[:, 1][:, None]) / np.maximum(un, 1e-6)
            ang = np.arccos(np.clip(cosv, -1, 1))
            valid = (dirs[:, 2][:, None] > 0) & (un > 1e-6)
            w = w + c["ocm"] * np.where(valid, (math.pi / 2 - np.abs(ang)) / math.pi, 0.0)
        w = np.where(low[None], w * c["low_weight"], w)
        if c["score_weighted"]:
            w = w * (np.maximum(dets[cand, 4] * scale, 0) ** c["score_power"])[None]
        w = np.maximum(w, 1e-4)
        self.solve(adm, w, cand, matched, det_track)

    def solve(self, adm, w, cand, matched, det_track, rows=None):
        rr = np.nonzero(adm.any(axis=1))[0]
        cc = np.nonzero(adm.any(axis=0))[0]
        if len(rr) == 0:
            return
        sub = np.where(adm[np.ix_(rr, cc)], -w[np.ix_(rr, cc)], 0.0)
        ri, ci = linear_sum_assignment(sub)
        for a, b in zip(ri, ci):
            if sub[a, b] < 0:
                r = rr[a] if rows is None else rows[rr[a]]
                matched[r] = True
                det_track[cand[cc[b]]] = r

    def ocr(self, dets, is_high, matched, det_track):
        c = self.c
        rows = [i for i, t in enumerate(self.tracks) if not matched[i] and (c["ocr_all"] or t.id is not None)]
        cand = np.array([d for d in np.nonzero(is_high)[0] if det_track[d] is None], dtype=int)
        if not rows or len(cand) == 0:
            return
        L = np.array([self.tracks[i].last_det for i in rows])
        D = dets[cand, :4]
        iou = iou_matrix(L, D)
        adm = iou >= c["ocr_iou"]
        if c["ocr_height_ratio"] is not None:
            r = c["ocr_height_ratio"]
            lh = L[:, 3][:, None]; dh = D[:, 3][None]
            adm &= (dh <= lh * r) & (lh <= dh * r)
        self.solve(adm, np.maximum(iou, 1e-4), cand, matched, det_track, rows=rows)

    def stage2(self, dets, is_high, matched, det_track):
        """Lost tracks left unmatched vs. unmatched high detections, by normalised distance."""
        c = self.c
        rows = [i for i, t in enumerate(self.tracks)
                if not matched[i] and t.id is not None and t.missed >= c["s2_min_lost"]]
        cand = np.array([d for d in np.nonzero(is_high)[0] if det_track[d] is None], dtype=int)
        if not rows or len(cand) == 0:
            return
        tr = [self.tracks[i] for i in rows]
        P = np.array([t.m.box() for t in tr])
        D = dets[cand, :4]
        if c["s2_point"] == "bottom":
            py, dy_ = P[:, 1] + P[:, 3], D[:, 1] + D[:, 3]
        else:
            py, dy_ = P[:, 1] + P[:, 3] / 2, D[:, 1] + D[:, 3] / 2
        dx = (D[:, 0] + D[:, 2] / 2)[None] - (P[:, 0] + P[:, 2] / 2)[:, None]
        dy = dy_[None] - py[:, None]
        secs = np.array([max(0.0, self.now - t.last_ms) / 1000 for t in tr])
        h = P[:, 3]
        if c["s2_use_cov"]:
            sx = np.array([t.m.cx.p00 for t in tr]) + 1.0
            sy = np.array([t.m.cy.p00 for t in tr]) + 1.0
            m2 = dx * dx / sx[:, None] + dy * dy / sy[:, None]
            adm = m2 <= c["s2_cov_k"] ** 2
            nd = np.sqrt(m2) / c["s2_cov_k"]
        else:
            rad = h * (c["s2_radius"] + c["s2_growth"] * secs)
            nd = np.sqrt(dx * dx + dy * dy) / rad[:, None]
            adm = nd <= 1
        r = c["s2_height_ratio"]
        lh = np.array([t.last_det[3] for t in tr])[:, None]
        dh = D[:, 3][None]
        adm &= (dh <= h[:, None] * r) & (h[:, None] <= dh * r) & (dh <= lh * r) & (lh <= dh * r)
        w = np.maximum(1 - nd, 1e-4)
        self.solve(adm, w, cand, matched, det_track, rows=rows)


# --- The ground-plane gate (Swift: GroundPlane.swift, `TrackerConfiguration.groundPlane`) ---
# gp: None (off) | "gate2" (the Swift default: gate every pair by the foot points' squared
# Mahalanobis distance on the learnt plane, then lost confirmed tracks vs. unmatched high
# detections by that distance alone) | "gate" (no second stage) | "stage2" (second stage only) |
# "score" (a - gp_weight x d^2 / gate term in the weight) | "ucmc" (that distance instead of IoU, as
# UCMCTrack). The plane is the least-squares line height = k (feet row - horizon) through the
# confident detections so far, trusted once R^2 >= gp_r2; gp_nosize takes the frame width from
# the detections' extent instead of seqinfo.ini.
# gp_lazy (the Swift default): once gp_minfit detections are in, a track keeps a ground filter only
# while the plane is trusted (a scene whose sizes do not follow their row pays no upkeep).
class Ground:
    def __init__(self, size):
        self.W, self.H = size if size else (None, None)
        self.n = 0; self.sy = self.sh = self.syy = self.syh = self.shh = 0.0; self.r2 = 0.0
        self.k = None; self.y0 = None; self.ext = 0.0
    def add(self, yf, h):
        self.n += 1; self.sy += yf; self.sh += h; self.syy += yf*yf; self.syh += yf*h; self.shh += h*h
    def refit(self, minfit):
        if self.n < minfit: return
        n = self.n; vy = self.syy/n - (self.sy/n)**2
        if vy <= 1e-6: return
        k = (self.syh/n - self.sy/n*self.sh/n)/vy
        if k <= 0.01: self.k = None; return
        b = self.sh/n - k*self.sy/n
        self.k, self.y0 = k, -b/k
        vh = self.shh/n - (self.sh/n)**2
        cov = self.syh/n - self.sy/n*self.sh/n
        self.r2 = cov*cov/(vy*vh) if vh > 0 else 0.0
    def hhat(self, yf, h, c):
        if not c["gp_fit"] or self.k is None: return h, 0.0
        hh = self.k*(yf - self.y0)
        if hh < 0.3*h: return 0.3*h, 0.0
        return hh, self.k
    def map(self, box, c):
        """foot point -> (X, Z) in person-height-ish units, and 2x2 measurement covariance."""
        x, y, w, h = box
        xf, yf = x + w/2, y + h
        if c["gp_nosize"]:
            Wd = max(self.ext, 1.0)
        else:
            Wd = self.W or 1000.0
        cx = Wd/2
        F = c["gp_focal"]*Wd
        hh, k = self.hhat(yf, h, c)
        X = (xf - cx)/hh; Z = F/hh
        # d/dyf of 1/hh = -k/hh^2 (0 when falling back to box height: then Z depends on h, treat y-noise via h)
        if k > 0:
            J = np.array([[1/hh, -(xf - cx)*k/hh**2], [0.0, -F*k/hh**2]])
            Rimg = np.diag([(c["gp_sx"]*w)**2, (c["gp_sy"]*h)**2])
        else:
            # depends on box height: dZ/dh = -F/h^2
            J = np.array([[1/hh, -(xf - cx)/hh**2], [0.0, -F/hh**2]])
            Rimg = np.diag([(c["gp_sx"]*w)**2, (c["gp_sy"]*h)**2])
        return np.array([X, Z]), J @ Rimg @ J.T

class GKF:
    """Constant-velocity Kalman on the ground: state X, Z, vX, vZ."""
    def __init__(self, z, R, c):
        self.x = np.array([z[0], z[1], 0.0, 0.0])
        self.P = np.zeros((4, 4)); self.P[:2, :2] = R + np.eye(2)*c["gp_pos0"]**2*0
        self.P[2, 2] = self.P[3, 3] = c["gp_vel0"]**2
        self.t = None
    def predict(self, dt, q):
        if dt <= 0: return
        F = np.eye(4); F[0, 2] = F[1, 3] = dt
        G = np.array([[dt*dt/2, 0], [0, dt*dt/2], [dt, 0], [0, dt]])
        self.x = F @ self.x
        self.P = F @ self.P @ F.T + G @ G.T * q*q
    def correct(self, z, R):
        S = self.P[:2, :2] + R
        K = self.P[:, :2] @ np.linalg.inv(S)
        self.x = self.x + K @ (z - self.x[:2])
        self.P = (np.eye(4) - K @ np.hstack([np.eye(2), np.zeros((2, 2))])) @ self.P

class GroundTracker(Tracker):
    def __init__(self, cfg, size=None):
        BoxTracker.__init__(self, cfg, size)
        self.g = Ground(size)
        self.last_now = None
    def update(self, dets, now):
        c = self.c
        dt = 0.0 if self.last_now is None else (now - self.last_now)/1000
        self.last_now = now
        if c["gp"]:
            for t in self.tracks:
                if not hasattr(t, "g"): continue
                t.g.predict(dt, c["gp_q"])
        out = BoxTracker.update(self, dets, now)
        if c["gp"]:
            # feed the fit with confident detections, then update/create ground filters
            ref = quantile(self.window, c["ref_quantile"])
            for d in range(len(dets)):
                self.g.ext = max(self.g.ext, dets[d, 0] + dets[d, 2]) if c["gp_nosize"] else self.g.ext
                if dets[d, 4] >= c["new_track"]*ref:
                    self.g.add(dets[d, 1] + dets[d, 3], dets[d, 3])
            self.g.refit(c["gp_minfit"])
            # gp_lazy (the Swift tracker): once the fit has its minimum count, filters are kept
            # only while the plane is trusted
            trusted = self.g.k is not None and (c["gp_r2"] <= 0 or self.g.r2 >= c["gp_r2"])
            if c["gp_lazy"] and not trusted and self.g.n >= c["gp_minfit"]:
                for t in self.tracks:
                    if hasattr(t, "g"): del t.g
                return out
            for d, ti in enumerate(self.last_det_track):
                if ti is None: continue
                t = self.tracks[ti]
                z, R = self.g.map(tuple(dets[d, :4]), c)
                if not hasattr(t, "g"):
                    t.g = GKF(z, R, c)
                else:
                    t.g.correct(z, R)
        return out
    def gmaha(self, rows, D):
        c = self.c
        out = np.full((len(rows), len(D)), np.inf)
        if c["gp_r2"] > 0 and (self.g.k is None or self.g.r2 < c["gp_r2"]):
            return out
        ms = [self.g.map(tuple(b), c) for b in D]
        for i, t in enumerate(rows):
            if not hasattr(t, "g"): continue
            for j, (z, R) in enumerate(ms):
                S = t.g.P[:2, :2] + R
                v = z - t.g.x[:2]
                try:
                    d2 = float(v @ np.linalg.solve(S, v))
                except np.linalg.LinAlgError:
                    continue
                if c["gp_logdet"]:
                    d2 += math.log(max(np.linalg.det(S), 1e-12))
                out[i, j] = d2
        return out
    def associate(self, dets, cand, is_low, scale, matched, det_track):
        c = self.c
        if c["gp"] in ("gate", "gate2") and len(self.tracks) and len(cand):
            self._gm = self.gmaha(self.tracks, dets[cand, :4])
        if c["gp"] == "ucmc" and len(self.tracks) and len(cand):
            self._gm = self.gmaha(self.tracks, dets[cand, :4])
            low = is_low[cand]
            T = len(self.tracks)
            tent = np.array([t.id is None for t in self.tracks])
            lostlong = np.array([t.missed > c["low_lost_max"] for t in self.tracks])
            self._admbase = ~(low[None] & (tent | lostlong)[:, None])
            sw = np.where(low, c["low_weight"], 1.0)
            if c["score_weighted"]:
                sw = sw * np.maximum(dets[cand, 4] * scale, 0)
            self._sw = np.broadcast_to(sw[None], (T, len(cand)))
        if c["gp"] in ("score", "both") and len(self.tracks) and len(cand):
            self._gm = self.gmaha(self.tracks, dets[cand, :4])
        BoxTracker.associate(self, dets, cand, is_low, scale, matched, det_track)
        if c["gp"] in ("stage2", "both", "gate2"):
            self.gstage2(dets, scale, matched, det_track)
    def solve(self, adm, w, cand, matched, det_track, rows=None):
        c = self.c
        if rows is None and c["gp"] in ("gate", "gate2") and hasattr(self, "_gm") and self._gm.shape == w.shape:
            gm = self._gm
            del self._gm
            adm = adm & ~(np.isfinite(gm) & (gm > c["gp_gate"]))
        if rows is None and c["gp"] == "ucmc" and hasattr(self, "_gm") and self._gm.shape == w.shape:
            gm = self._gm
            del self._gm
            g = np.isfinite(gm) & (gm <= c["gp_gate"])
            adm = (adm & ~np.isfinite(gm)) | (g & self._admbase) if c["gp_keep_iou"] else np.where(np.isfinite(gm), g & self._admbase, adm)
            w = np.where(np.isfinite(gm), np.maximum(1 - gm/c["gp_gate"], 1e-4) * self._sw, w)
        if rows is None and c["gp"] in ("score", "both") and hasattr(self, "_gm") and self._gm.shape == w.shape:
            gm = self._gm
            w = w - c["gp_weight"]*np.where(np.isfinite(gm), gm, 0.0)/c["gp_gate"]
            w = np.maximum(w, 1e-4)
            del self._gm
        return BoxTracker.solve(self, adm, w, cand, matched, det_track, rows)
    def gstage2(self, dets, scale, matched, det_track):
        c = self.c
        ref = quantile(self.window, c["ref_quantile"])
        hs = c["high"]*ref
        rows = [i for i, t in enumerate(self.tracks) if not matched[i] and t.id is not None and t.missed >= c["gp_min_lost"] and hasattr(t, "g")]
        cand = np.array([d for d in range(len(dets)) if det_track[d] is None and dets[d, 4] >= hs], dtype=int)
        if not rows or len(cand) == 0: return
        tr = [self.tracks[i] for i in rows]
        D = dets[cand, :4]
        gm = self.gmaha(tr, D)
        adm = gm <= c["gp_gate"]
        r = c["gp_hr"]
        P = np.array([t.m.box() for t in tr])
        lh = np.array([t.last_det[3] for t in tr])[:, None]
        dh = D[:, 3][None]; ph = P[:, 3][:, None]
        adm &= (dh <= ph*r) & (ph <= dh*r) & (dh <= lh*r) & (lh <= dh*r)
        w = np.maximum(1 - gm/c["gp_gate"], 1e-4)
        BoxTracker.solve(self, adm, w, cand, matched, det_track, rows=rows)



class GroundTrack(Track):
    """A track that can carry a ground-plane filter (`g`)."""


Track = GroundTrack
BoxTracker = Tracker
Tracker = GroundTracker


def load_dets(path):
    rows = np.loadtxt(path, delimiter=",", ndmin=2)
    frames = {}
    last = int(rows[:, 0].max())
    for f in range(1, last + 1):
        frames[f] = np.zeros((0, 5))
    order = np.argsort(rows[:, 0], kind="stable")
    rows = rows[order]
    fs = rows[:, 0].astype(int)
    for f in np.unique(fs):
        frames[f] = rows[fs == f][:, 2:7]
    return frames, last


def frame_rate(seq_dir):
    ini = configparser.ConfigParser()
    ini.read(os.path.join(seq_dir, "seqinfo.ini"))
    return float(ini["Sequence"]["frameRate"])


def image_size(seq_dir):
    ini = configparser.ConfigParser()
    ini.read(os.path.join(seq_dir, "seqinfo.ini"))
    try:
        return float(ini["Sequence"]["imWidth"]), float(ini["Sequence"]["imHeight"])
    except KeyError:
        return None


def fmt(v):
    return ("%.3f" % v).rstrip("0").rstrip(".")


def run_sequence(cfg, det_path, fps, out_path, size=None):
    frames, last = load_dets(det_path)
    tr = Tracker(cfg, size)
    lines = []
    for off in range(last):
        f = off + 1
        ts = max(round(off * 1000 / fps), off)
        for tid, b, s in sorted(tr.update(frames[f], float(ts)), key=lambda o: o[0]):
            lines.append(f"{f},{tid},{fmt(b[0])},{fmt(b[1])},{fmt(b[2])},{fmt(b[3])},{fmt(s)},-1,-1,-1\n")
    with open(out_path, "w") as fh:
        fh.writelines(lines)


def sequence_dirs():
    out = {}
    for s in MOT17:
        d = SHARED / "mot17" / s
        out[s] = (d / "det" / "det.txt", d, "mot17")
    for s in MOT15:
        d = SHARED / "mot" / s
        out[s] = (d / "det.txt", d, "mot15")
    return out


def evaluate(cfg, only=None, hota=True, keep=None):
    sys.path.insert(0, str(SHARED / "reference"))
    with contextlib.redirect_stderr(io.StringIO()):
        import mot17_eval
        import mot_eval
        import motmetrics as mm
    seqs = sequence_dirs()
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        todo = [s for s in seqs if only is None or seqs[s][2] == only or s in only.split(",")]
        for s in todo:
            det, d, _ = seqs[s]
            run_sequence(cfg, det, frame_rate(d), os.path.join(out_dir, s + ".txt"), image_size(d))
        m17 = [s for s in todo if seqs[s][2] == "mot17"]
        if m17:
            with contextlib.redirect_stderr(io.StringIO()):
                r = mot17_eval.evaluate([(s, str(seqs[s][1]), os.path.join(out_dir, s + ".txt")) for s in m17], hota=hota)
            result["mot17"] = r
        m15 = [s for s in todo if seqs[s][2] == "mot15"]
        if m15:
            handler = mm.metrics.create()
            names = [n for n, _ in mot_eval.METRICS]
            accs = [mot_eval.accumulate(str(seqs[s][1] / "gt.txt"), os.path.join(out_dir, s + ".txt"), 0.5, 1.0) for s in m15]
            summary = handler.compute_many(accs, metrics=names, names=m15, generate_overall=True)
            result["mot15"] = {"sequences": {s: mot_eval.row_to_dict(summary.loc[s]) for s in m15},
                               "combined": mot_eval.row_to_dict(summary.loc["OVERALL"])}
    return result


def short(m):
    s = "%.1f / %.1f" % (100 * m["MOTA"], 100 * m["IDF1"])
    if "HOTA" in m:
        s += " / %.1f" % (100 * m["HOTA"])
    return s + " / %d" % m["num_switches"]


def parse_value(v):
    if v in ("None", "none"):
        return None
    if v in ("True", "true"):
        return True
    if v in ("False", "false"):
        return False
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--set", action="append", default=[], help="key=value (see DEFAULTS)")
    p.add_argument("--only", help="mot17, mot15 or comma-separated sequence names")
    p.add_argument("--no-hota", action="store_true")
    p.add_argument("--json", help="write the full scores here")
    p.add_argument("--keep", help="keep the result files in this folder")
    p.add_argument("--quiet", action="store_true", help="only the combined rows")
    a = p.parse_args()
    cfg = dict(DEFAULTS)
    for kv in a.set:
        k, v = kv.split("=", 1)
        if k not in cfg:
            sys.exit(f"unknown key {k}")
        cfg[k] = parse_value(v)
    r = evaluate(cfg, a.only, not a.no_hota, a.keep)
    tag = " ".join(a.set) or "defaults"
    for bench in ("mot17", "mot15"):
        if bench not in r:
            continue
        if not a.quiet:
            for s, m in r[bench]["sequences"].items():
                print(f"  {s:15s} {short(m)}")
        print(f"{bench} combined {short(r[bench]['combined'])}   [{tag}]")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"cfg": cfg, "result": r}, fh)


if __name__ == "__main__":
    main()
