#!/usr/bin/env python3
"""The whole per-image pipeline of objdetect against MediaPipe's Python Tasks, same image, same model.

Usage (from the repository root, after `swift build -c release`; `pip install mediapipe`):
    python3 Tests/Benchmarks/detect_vs_mediapipe.py [--rounds 5] [--runs 30] [--threads 1|2]

Ours: `objdetect bench --what detect IMAGE --model M --threads T --json` (decode from memory,
preprocess, invoke, postprocess, in one process; the model prepared before the timer).
MediaPipe: `mp.Image.create_from_file(IMAGE)` (its own decoder) then `ObjectDetector.detect` for the
SSD (`objects`) and `FaceDetector.detect` for BlazeFace short range (`face-short`), which
ObjectDetector does not load; IMAGE mode, CPU, score threshold 0.5 as `objdetect` uses for `objects`.
MediaPipe's Python Tasks take no thread count: for `--threads 1` both sides are pinned to one core
(`sched_setaffinity` here, `taskset` for ours); for `--threads 2` neither is pinned and ours runs 2
threads. Rounds alternate ours / MediaPipe; each prints the median wall time per image of each side
and their ratio, and the last line per pair is the median ratio over the rounds.
"""
import argparse, json, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
MODELS = {"objects": "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite",
          "face-short": "face_detection_short_range.tflite"}
PAIRS = [("objects", "bus.jpg"), ("objects", "cats_and_dogs.jpg"), ("objects", "zidane.jpg"),
         ("face-short", "zidane.jpg"), ("face-short", "bus.jpg")]


def mediapipe_detector(name):
    import mediapipe as mp
    from mediapipe.tasks import python as mpt
    from mediapipe.tasks.python import vision
    base = mpt.BaseOptions(model_asset_path=os.path.join(SHARED, "models", MODELS[name]))
    if name == "objects":
        options = vision.ObjectDetectorOptions(base_options=base, score_threshold=0.5,
                                               running_mode=vision.RunningMode.IMAGE)
        return mp, vision.ObjectDetector.create_from_options(options)
    options = vision.FaceDetectorOptions(base_options=base, running_mode=vision.RunningMode.IMAGE)
    return mp, vision.FaceDetector.create_from_options(options)


def mediapipe_median_ms(mp, detector, path, runs):
    for _ in range(3):
        detector.detect(mp.Image.create_from_file(path))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        detector.detect(mp.Image.create_from_file(path))
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def ours_median_ms(binary, model, path, runs, threads):
    command = [binary, "bench", "--what", "detect", path, "--model", model, "--threads", str(threads),
               "--runs", str(runs), "--warmup", "3", "--json"]
    if threads == 1:
        command = ["taskset", "-c", "0"] + command
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "objdetect"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--threads", type=int, choices=[1, 2], default=1)
    args = ap.parse_args()
    if args.threads == 1:
        os.sched_setaffinity(0, {0})
    import mediapipe
    print(f"mediapipe {mediapipe.__version__}, {args.threads} thread(s), {args.rounds} rounds of {args.runs} runs")
    for model, image in PAIRS:
        path = os.path.join(SHARED, "images", image)
        mp, detector = mediapipe_detector(model)
        ratios = []
        for r in range(args.rounds):
            ours = ours_median_ms(args.binary, model, path, args.runs, args.threads)
            theirs = mediapipe_median_ms(mp, detector, path, args.runs)
            ratios.append(ours["median_ms"] / theirs)
            print(f"  {model:10} {image:18} round {r + 1}: objdetect {ours['median_ms']:6.2f} ms "
                  f"(decode {ours['decode_ms']:.2f}, inference {ours['inference_ms']:.2f}), "
                  f"MediaPipe {theirs:6.2f} ms, ratio {ours['median_ms'] / theirs:4.2f}x", flush=True)
        print(f"{model:10} {image:18} median ratio objdetect / MediaPipe: {statistics.median(ratios):4.2f}x", flush=True)
        detector.close()


if __name__ == "__main__":
    sys.exit(main())
