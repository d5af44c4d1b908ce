"""Debug helper, never a test dependency: runs the official interpreter (ai-edge-litert,
reference kernels) on MediaPipe-style preprocessed inputs (OpenCV 4.11 warpPerspective,
as described in shared/goldens/detections/README.md) and dumps the raw outputs, so the
Swift decoders can be checked end to end against the MediaPipe detection goldens:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install ai-edge-litert numpy pillow \
        opencv-python-headless==4.11.0.86
    /tmp/venv/bin/python Tests/Tools/detection_dump.py [OUT_DIR, default /tmp/detdump]
    DETECTION_DUMP_DIR=/tmp/detdump swift test --filter EndToEndDumpTests
"""
import json, os, sys
from pathlib import Path
import numpy as np, cv2
from PIL import Image
from ai_edge_litert import interpreter as litert

# OpenCV 5.x's warpPerspective no longer computes MediaPipe's fixed-point warp (see the
# detections README); mediapipe's wheel pulls opencv-contrib-python 5.x, so check.
if not cv2.__version__.startswith('4.11'):
    sys.exit(f'OpenCV 4.11 is needed (MediaPipe-exact warp), found {cv2.__version__}')

SHARED = Path(__file__).resolve().parent.parent.parent / 'shared'
ARGS = [a for a in sys.argv[1:] if not a.startswith('--')]
OUT = Path(ARGS[0]) if ARGS else Path('/tmp/detdump')

def load_rgb(p):
    with Image.open(p) as im:
        return np.ascontiguousarray(np.asarray(im.convert('RGB'), dtype=np.uint8))

def run(model, tensor):
    it = litert.Interpreter(model_path=str(model), num_threads=1,
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]['index'], tensor)
    it.invoke()
    return [it.get_tensor(d['index']) for d in it.get_output_details()]

def face_input(rgb, n):
    h, w = rgb.shape[:2]
    s = max(w, h)
    m = np.array([[s / n, 0, (w - s) / 2], [0, s / n, (h - s) / 2], [0, 0, 1]], dtype=np.float64)
    out = cv2.warpPerspective(rgb, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return (out.astype(np.float32) * np.float32(2.0 / 255.0) - np.float32(1.0))[None]

def ssd_input(rgb):
    h, w = rgb.shape[:2]
    m = np.array([[w / 300, 0, 0], [0, h / 300, 0], [0, 0, 1]], dtype=np.float64)
    out = cv2.warpPerspective(rgb, m, (300, 300), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    return out[None]

def dump(kind, name, outputs, w, h, index):
    d = OUT / kind / name
    d.mkdir(parents=True, exist_ok=True)
    for i, o in enumerate(outputs):
        np.ascontiguousarray(o.astype('<f4')).tofile(d / f'output_{i}.bin')
    index.setdefault(kind, []).append({'name': name, 'width': w, 'height': h,
                                       'shapes': [list(map(int, o.shape)) for o in outputs]})

index = {}
images = sorted((SHARED / 'images/png').glob('*.png'))
for p in images:
    rgb = load_rgb(p)
    h, w = rgb.shape[:2]
    dump('face_short', p.stem, run(SHARED / 'models/face_detection_short_range.tflite', face_input(rgb, 128)), w, h, index)
    dump('face_full', p.stem, run(SHARED / 'models/face_detection_full_range.tflite', face_input(rgb, 192)), w, h, index)
    dump('ssd', p.stem, run(SHARED / 'models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite', ssd_input(rgb)), w, h, index)
for p in sorted((SHARED / 'sequences/pan_cats_and_dogs').glob('frame_*.png')):
    rgb = load_rgb(p)
    h, w = rgb.shape[:2]
    dump('ssd_video', p.stem, run(SHARED / 'models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite', ssd_input(rgb)), w, h, index)
def yolo_input(rgb, detail):
    """The YOLO reference's steps 2-3 (reference/detection_goldens.py)."""
    _, in_h, in_w, _ = detail['shape']
    resized = np.asarray(Image.fromarray(rgb).resize((int(in_w), int(in_h)), Image.BILINEAR))
    if detail['dtype'] == np.float32:
        return (resized.astype(np.float32) / np.float32(255.0))[None]
    if detail['dtype'] == np.uint8:
        return resized[None].copy()
    scale, zero_point = detail['quantization']
    q = np.round(resized.astype(np.float64) / 255.0 / scale + zero_point)
    return np.clip(q, -128, 127).astype(np.int8)[None]

if '--no-yolo' not in sys.argv:
    for stem in ['yolov5n-int8', 'yolov5n-fp16', 'yolov8n_int8', 'yolov8n_full_integer_quant']:
        it = litert.Interpreter(model_path=str(SHARED / f'models/{stem}.tflite'), num_threads=1,
                                experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        ind, outd = it.get_input_details()[0], it.get_output_details()[0]
        for p in images:
            rgb = load_rgb(p)
            it.set_tensor(ind['index'], yolo_input(rgb, ind))
            it.invoke()
            raw = it.get_tensor(outd['index'])
            if outd['dtype'] != np.float32:   # step 5: dequantize in float32
                scale, zp = outd['quantization']
                raw = (raw.astype(np.float32) - np.float32(zp)) * np.float32(scale)
            dump(stem, p.stem, [raw], rgb.shape[1], rgb.shape[0], index)

(OUT / 'index.json').write_text(json.dumps(index, indent=1))
print('ok', {k: len(v) for k, v in index.items()})
