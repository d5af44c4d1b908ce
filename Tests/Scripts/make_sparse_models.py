#!/usr/bin/env python3
"""Small .tflite models whose convolution weights are stored with TFLite sparsity (issue #27).

Each model is a detector-like block on a 1x64x64x32 float input:

    CONV_2D 3x3 32->64 RELU  ->  DEPTHWISE_CONV_2D 3x3 stride 2 RELU  ->
    CONV_2D 1x1 64->128 RELU6  ->  CONV_2D 1x1 128->12 (head)          ->  1x32x32x12

and every filter reaches its op the way TF's converter emits sparse float16 weights
(`EXPERIMENTAL_SPARSITY` with float16 quantization):

    float16 constant with SparsityParameters -> DENSIFY -> DEQUANTIZE -> CONV_2D / DEPTHWISE

Biases are dense float32.  Written here (no TF converter):

  conv_f16_csr          unstructured sparsity, about 70 % zeros: dimension 0 DENSE and the
                        others SPARSE_CSR for the 3x3 filters (nested CSR levels), DENSE,DENSE,
                        DENSE,SPARSE_CSR for the 1x1 filters
  conv_f16_block        block sparsity, about 65 % of the blocks zero: 1x4 blocks along the input
                        channels (block_map [3]) for the 3x3 and depthwise filters, a 4x1 block
                        along the output channels (block_map [0]) for the 1x1 conv and a 1x16
                        block for the head
  *_dense               the dense twin: the same float16 values stored dense, DEQUANTIZE -> CONV
  conv_i8_block         the block model fully quantized: int8 activations (ranges from the float
                        model), per-channel symmetric int8 filters stored in the same block form and
                        expanded by DENSIFY (int8) straight into CONV_2D / DEPTHWISE, int32 biases;
                        input q[i] = (i * 7919) % 255 - 128; expected: the reference kernels' output
                        (LiteRT's optimized kernels and XNNPACK are one step off in places)
  hybrid_i8_block       the same int8 filters (block form, DENSIFY) in hybrid convolutions: float
                        activations and biases (dynamic-range quantization); expected: the reference
                        kernels' output (LiteRT 2.3's XNNPACK delegate fails to prepare this model)
  fc_f32_block          FULLY_CONNECTED 256 -> 64 (RELU) on a 1x256 input whose float32 weights are
                        stored sparse in 1x4 blocks (33 % non-zero) and read directly, without
                        DENSIFY (what the converter emits for FULLY_CONNECTED); and its dense twin

Indices and segments use the smallest index vector type that holds them (uint8, uint16 or
int32), as the converter does.  For each sparse model the script runs LiteRT
(`ai_edge_litert`, default resolver with XNNPACK and the reference kernels) on a fixed input
and writes its output as little-endian float32 (`NAME.expected.f32`): XNNPACK's for the
conv models (its reference kernels agree within 1.5e-6), the reference kernels' for
fc_f32_block (LiteRT 2.3's XNNPACK delegate reads its sparse weights as dense and returns NaN).
The input is

    x[i] = float32((i * 7919) % 2001 - 1000) / float32(1000)     (i = flat index)

which the Swift tests compute exactly the same way (integer arithmetic, one correctly
rounded float32 division).

Usage (from the repository root):  python3 Tests/Scripts/make_sparse_models.py [--out DIR]
Needs numpy, flatbuffers and ai-edge-litert (2.3 made the committed files).
"""

import argparse
import sys
from pathlib import Path

import flatbuffers
import numpy as np

# Schema facts (tensorflow/lite/schema/schema.fbs): enum values and table field slots.
FLOAT32, FLOAT16, INT32, INT8 = 0, 1, 2, 9
OP_CONV_2D, OP_DEPTHWISE_CONV_2D, OP_DEQUANTIZE, OP_FULLY_CONNECTED, OP_DENSIFY = 3, 4, 6, 9, 124
OPT_CONV2D, OPT_DEPTHWISE, OPT_FULLY_CONNECTED = 1, 2, 8
ACT_NONE, ACT_RELU, ACT_RELU6 = 0, 1, 3
PAD_SAME = 0
DIM_DENSE, DIM_CSR = 0, 1
VEC_INT32, VEC_UINT16, VEC_UINT8 = 1, 2, 3
PLACEHOLDER_FOR_GREATER_OP_CODES = 127


def fixed_input(shape):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return ((((i * 7919) % 2001) - 1000).astype(np.float32) / np.float32(1000)).reshape(shape)


# ----------------------------------------------------------------------------- sparsity

def blocked(w, block_map, block_sizes):
    """The (n+k)-dimensional view of `w` in which blocked dimension d is split into
    (w.shape[d] / b) outer indices at level d and b inner indices at level n + j."""
    n = w.ndim
    shape = []
    for d in range(n):
        shape += [w.shape[d] // block_sizes[block_map.index(d)], block_sizes[block_map.index(d)]] \
            if d in block_map else [w.shape[d]]
    a = w.reshape(shape)
    # Axis of each level in `a`: outer parts in dimension order, then the inner block parts.
    outer, inner, axis = [], {}, 0
    for d in range(n):
        outer.append(axis)
        if d in block_map:
            inner[block_map.index(d)] = axis + 1
            axis += 2
        else:
            axis += 1
    return a.transpose(outer + [inner[j] for j in range(len(block_map))])


def encode(w, block_map, block_sizes, formats):
    """TFLite sparse encoding of `w` (traversal order 0 ... n+k-1): the stored values and one
    (format, dense_size, segments, indices) entry per level."""
    a = blocked(w, block_map, block_sizes)
    levels = a.ndim
    assert len(formats) == levels
    segments = [[0] for _ in range(levels)]
    indices = [[] for _ in range(levels)]
    values = []

    def visit(level, sub):
        if level == levels:
            values.append(sub)
            return
        if formats[level] == DIM_DENSE:
            for i in range(a.shape[level]):
                visit(level + 1, sub[i])
        else:
            for i in range(a.shape[level]):
                if np.any(sub[i] != 0):
                    indices[level].append(i)
                    visit(level + 1, sub[i])
            segments[level].append(len(indices[level]))

    visit(0, a)
    meta = []
    for level in range(levels):
        if formats[level] == DIM_DENSE:
            meta.append((DIM_DENSE, a.shape[level], None, None))
        else:
            meta.append((DIM_CSR, 0, segments[level], indices[level]))
    return np.array(values, dtype=w.dtype), meta


def prune_elements(w, zero_fraction, rng):
    keep = rng.random(w.shape) >= zero_fraction
    return np.where(keep, w, np.float32(0))  # +0, as DENSIFY fills (w * 0 would leave -0)


def prune_blocks(w, block_map, block_sizes, zero_fraction, rng):
    """Zeroes whole blocks (of the given block map and sizes)."""
    a = blocked(w, block_map, block_sizes)
    n = w.ndim
    keep = rng.random(a.shape[:n]) >= zero_fraction
    mask = np.ones(a.shape, dtype=bool) & keep.reshape(keep.shape + (1,) * (a.ndim - n))
    # Back to the dense layout: invert `blocked` on the mask.
    dense_mask = np.zeros(w.shape, dtype=bool)
    it = np.ndindex(*a.shape)
    for idx in it:
        coord = list(idx[:n])
        for j, d in enumerate(block_map):
            coord[d] = coord[d] * block_sizes[j] + idx[n + j]
        dense_mask[tuple(coord)] = mask[idx]
    return np.where(dense_mask, w, np.float32(0))


# ----------------------------------------------------------------------------- flatbuffer

class ModelWriter:
    def __init__(self):
        self.buffers = [b""]
        self.tensors = []
        self.ops = []
        self.opcodes = []

    def buffer(self, data):
        self.buffers.append(bytes(data))
        return len(self.buffers) - 1

    def tensor(self, name, shape, ttype, data=None, sparsity=None, quant=None):
        """`quant`: (scales, zero points, quantized dimension) of an affine-quantized tensor."""
        self.tensors.append(dict(name=name, shape=list(shape), type=ttype,
                                 buffer=self.buffer(data) if data is not None else 0, sparsity=sparsity, quant=quant))
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, options=None):
        if code not in self.opcodes:
            self.opcodes.append(code)
        self.ops.append(dict(opcode=self.opcodes.index(code), inputs=inputs, outputs=outputs, options=options))

    @staticmethod
    def _ints(b, values, dtype=np.int32):
        return b.CreateNumpyVector(np.asarray(values, dtype=dtype))

    def _index_vector(self, b, values):
        values = np.asarray(values)
        top = int(values.max()) if values.size else 0
        kind, dtype = (VEC_UINT8, np.uint8) if top < 256 else (VEC_UINT16, np.uint16) if top < 65536 else (VEC_INT32, np.int32)
        vec = b.CreateNumpyVector(values.astype(dtype))
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, vec, 0)
        return kind, b.EndObject()

    def _sparsity(self, b, sp):
        order, block_map, meta = sp
        dims = []
        for fmt, dense_size, segments, indices in meta:
            if fmt == DIM_CSR:
                st, so = self._index_vector(b, segments)
                it, io = self._index_vector(b, indices)
            b.StartObject(6)
            b.PrependInt8Slot(0, fmt, 0)
            b.PrependInt32Slot(1, dense_size, 0)
            if fmt == DIM_CSR:
                b.PrependUint8Slot(2, st, 0)
                b.PrependUOffsetTRelativeSlot(3, so, 0)
                b.PrependUint8Slot(4, it, 0)
                b.PrependUOffsetTRelativeSlot(5, io, 0)
            dims.append(b.EndObject())
        b.StartVector(4, len(dims), 4)
        for d in reversed(dims):
            b.PrependUOffsetTRelative(d)
        dim_vec = b.EndVector()
        order_vec = self._ints(b, order)
        map_vec = self._ints(b, block_map)
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, order_vec, 0)
        b.PrependUOffsetTRelativeSlot(1, map_vec, 0)
        b.PrependUOffsetTRelativeSlot(2, dim_vec, 0)
        return b.EndObject()

    def _table_vector(self, b, offsets):
        b.StartVector(4, len(offsets), 4)
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    def serialize(self, inputs, outputs):
        b = flatbuffers.Builder(1 << 20)
        buffers = []
        for data in self.buffers:
            if data:
                b.StartVector(1, len(data), 16)
                b.head -= len(data)
                b.Bytes[b.head:b.head + len(data)] = data
                vec = b.EndVector()
            b.StartObject(1)
            if data:
                b.PrependUOffsetTRelativeSlot(0, vec, 0)
            buffers.append(b.EndObject())
        tensors = []
        for t in self.tensors:
            name = b.CreateString(t["name"])
            shape = self._ints(b, t["shape"])
            sp = self._sparsity(b, t["sparsity"]) if t["sparsity"] else None
            q = None
            if t["quant"]:
                scales, zero_points, axis = t["quant"]
                scale_vec = b.CreateNumpyVector(np.asarray(scales, dtype=np.float32))
                zp_vec = b.CreateNumpyVector(np.asarray(zero_points, dtype=np.int64))
                # QuantizationParameters: scale 2, zero_point 3, quantized_dimension 6.
                b.StartObject(7)
                b.PrependUOffsetTRelativeSlot(2, scale_vec, 0)
                b.PrependUOffsetTRelativeSlot(3, zp_vec, 0)
                b.PrependInt32Slot(6, axis, 0)
                q = b.EndObject()
            b.StartObject(7)
            b.PrependUOffsetTRelativeSlot(0, shape, 0)
            b.PrependInt8Slot(1, t["type"], 0)
            b.PrependUint32Slot(2, t["buffer"], 0)
            b.PrependUOffsetTRelativeSlot(3, name, 0)
            if q is not None:
                b.PrependUOffsetTRelativeSlot(4, q, 0)
            if sp is not None:
                b.PrependUOffsetTRelativeSlot(6, sp, 0)
            tensors.append(b.EndObject())
        ops = []
        for o in self.ops:
            ins, outs = self._ints(b, o["inputs"]), self._ints(b, o["outputs"])
            opt = None
            if o["options"]:
                kind, fields = o["options"]
                b.StartObject(8)
                for slot, width, value in fields:
                    (b.PrependInt32Slot if width == "i" else b.PrependInt8Slot)(slot, value, 0)
                opt = b.EndObject()
            b.StartObject(5)
            b.PrependUint32Slot(0, o["opcode"], 0)
            b.PrependUOffsetTRelativeSlot(1, ins, 0)
            b.PrependUOffsetTRelativeSlot(2, outs, 0)
            if opt is not None:
                b.PrependUint8Slot(3, o["options"][0], 0)
                b.PrependUOffsetTRelativeSlot(4, opt, 0)
            ops.append(b.EndObject())
        tensor_vec, op_vec = self._table_vector(b, tensors), self._table_vector(b, ops)
        in_vec, out_vec = self._ints(b, inputs), self._ints(b, outputs)
        sg_name = b.CreateString("main")
        b.StartObject(5)
        b.PrependUOffsetTRelativeSlot(0, tensor_vec, 0)
        b.PrependUOffsetTRelativeSlot(1, in_vec, 0)
        b.PrependUOffsetTRelativeSlot(2, out_vec, 0)
        b.PrependUOffsetTRelativeSlot(3, op_vec, 0)
        b.PrependUOffsetTRelativeSlot(4, sg_name, 0)
        subgraph = b.EndObject()
        codes = []
        for code in self.opcodes:
            b.StartObject(4)
            b.PrependInt8Slot(0, min(code, PLACEHOLDER_FOR_GREATER_OP_CODES), 0)
            b.PrependInt32Slot(2, 1, 0)
            b.PrependInt32Slot(3, code, 0)
            codes.append(b.EndObject())
        code_vec = self._table_vector(b, codes)
        sg_vec = self._table_vector(b, [subgraph])
        buf_vec = self._table_vector(b, buffers)
        desc = b.CreateString("objdetect sparse-weight test model (Tests/Scripts/make_sparse_models.py)")
        b.StartObject(5)
        b.PrependUint32Slot(0, 3, 0)
        b.PrependUOffsetTRelativeSlot(1, code_vec, 0)
        b.PrependUOffsetTRelativeSlot(2, sg_vec, 0)
        b.PrependUOffsetTRelativeSlot(3, desc, 0)
        b.PrependUOffsetTRelativeSlot(4, buf_vec, 0)
        b.Finish(b.EndObject(), file_identifier=b"TFL3")
        return bytes(b.Output())


# ----------------------------------------------------------------------------- models

def conv_options(stride, activation):
    # Conv2DOptions: padding 0, stride_w 1, stride_h 2, fused_activation_function 3.
    return OPT_CONV2D, [(0, "b", PAD_SAME), (1, "i", stride), (2, "i", stride), (3, "b", activation)]


def depthwise_options(stride, activation):
    # DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3, activation 4.
    return OPT_DEPTHWISE, [(0, "b", PAD_SAME), (1, "i", stride), (2, "i", stride), (3, "i", 1), (4, "b", activation)]


LAYERS = [
    # name, filter shape (OHWI; depthwise 1HWC), op, options, fan-in
    ("conv1", (64, 3, 3, 32), OP_CONV_2D, conv_options(1, ACT_RELU), 288),
    ("dw", (1, 3, 3, 64), OP_DEPTHWISE_CONV_2D, depthwise_options(2, ACT_RELU), 9),
    ("conv2", (128, 1, 1, 64), OP_CONV_2D, conv_options(1, ACT_RELU6), 64),
    ("head", (12, 1, 1, 128), OP_CONV_2D, conv_options(1, ACT_NONE), 128),
]

# Per layer: (block_map, block sizes, formats per level) for each sparsity form.
FORMS = {
    "csr": {
        "conv1": ([], [], [DIM_DENSE, DIM_CSR, DIM_CSR, DIM_CSR]),
        "dw": ([], [], [DIM_DENSE, DIM_CSR, DIM_CSR, DIM_CSR]),
        "conv2": ([], [], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR]),
        "head": ([], [], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR]),
    },
    "block": {
        "conv1": ([3], [4], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR, DIM_DENSE]),
        "dw": ([3], [4], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR, DIM_DENSE]),
        "conv2": ([0], [4], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR, DIM_DENSE]),
        "head": ([3], [16], [DIM_DENSE, DIM_DENSE, DIM_DENSE, DIM_CSR, DIM_DENSE]),
    },
}
ZERO_FRACTION = {"csr": 0.70, "block": 0.65}

# --large (benchmarks only, not committed): a late detector stage, weight-heavy (1.1 M weights)
# on a 1x20x20x128 input, to time prepare (densify) and the weight-bound layers.
LARGE_INPUT = (1, 20, 20, 128)
LARGE_LAYERS = [
    ("conv1", (512, 3, 3, 128), OP_CONV_2D, conv_options(1, ACT_RELU), 1152),
    ("dw", (1, 3, 3, 512), OP_DEPTHWISE_CONV_2D, depthwise_options(2, ACT_RELU), 9),
    ("conv2", (1024, 1, 1, 512), OP_CONV_2D, conv_options(1, ACT_RELU6), 512),
    ("head", (12, 1, 1, 1024), OP_CONV_2D, conv_options(1, ACT_NONE), 1024),
]


def weights(form, seed, layers=LAYERS):
    """float16 filters and float32 biases, pruned for `form`."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape, _, _, fan_in in layers:
        density = 1 - ZERO_FRACTION[form]
        w = rng.normal(0, np.sqrt(2 / fan_in / density), size=shape).astype(np.float32)
        block_map, sizes, _ = FORMS[form][name]
        w = prune_blocks(w, block_map, sizes, ZERO_FRACTION[form], rng) if block_map \
            else prune_elements(w, ZERO_FRACTION[form], rng)
        bias = rng.normal(0, 0.1, size=shape[0] if name != "dw" else shape[3]).astype(np.float32)
        out[name] = (w.astype(np.float16), bias)
    return out


def build(form, params, sparse, layers=LAYERS, input_shape=(1, 64, 64, 32)):
    m = ModelWriter()
    x = m.tensor("input", input_shape, FLOAT32)
    h, stats = x, []
    spatial = input_shape[1]
    for name, shape, code, options, _ in layers:
        w16, bias = params[name]
        if sparse:
            block_map, sizes, formats = FORMS[form][name]
            values, meta = encode(w16, block_map, sizes, formats)
            order = list(range(len(formats)))
            ws = m.tensor(f"{name}/filter_sparse", shape, FLOAT16, values.tobytes(), sparsity=(order, block_map, meta))
            wd = m.tensor(f"{name}/filter_f16", shape, FLOAT16)
            m.op(OP_DENSIFY, [ws], [wd])
            stats.append((name, values.size, w16.size, int(np.count_nonzero(w16))))
        else:
            wd = m.tensor(f"{name}/filter_f16", shape, FLOAT16, w16.tobytes())
        wf = m.tensor(f"{name}/filter", shape, FLOAT32)
        m.op(OP_DEQUANTIZE, [wd], [wf])
        b = m.tensor(f"{name}/bias", bias.shape, FLOAT32, bias.tobytes())
        if name == "dw":
            spatial //= 2
        channels = shape[3] if code == OP_DEPTHWISE_CONV_2D else shape[0]
        y = m.tensor(f"{name}/out", (1, spatial, spatial, channels), FLOAT32)
        m.op(code, [h, wf, b], [y], options)
        h = y
    return m.serialize([x], [h]), stats


def quantize_filters(params):
    """Per-channel symmetric int8 filters (channel = output channel; depthwise: dimension 3)."""
    out = {}
    for name, shape, code, _, _ in LAYERS:
        w = params[name][0].astype(np.float32)
        axis = 3 if code == OP_DEPTHWISE_CONV_2D else 0
        other = tuple(d for d in range(4) if d != axis)
        scale = np.maximum(np.abs(w).max(axis=other), 1e-8) / 127
        shaped = scale.reshape([-1 if d == axis else 1 for d in range(4)])
        q = np.clip(np.round(w / shaped), -127, 127).astype(np.int8)
        out[name] = (q, scale.astype(np.float32), axis)
    return out


INT8_INPUT_SCALE, INT8_INPUT_ZERO = 2 / 255, 0


def int8_input(shape):
    """The int8 models' fixed input: q[i] = (i * 7919) % 255 - 128."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((i * 7919) % 255) - 128).astype(np.int8).reshape(shape)


def build_int8(form, params, sparse, ranges):
    """The conv block fully quantized (int8 activations, per-channel int8 filters through DENSIFY,
    int32 biases), with the activation ranges `ranges` (from the float model)."""
    m = ModelWriter()
    in_scale, in_zero = INT8_INPUT_SCALE, INT8_INPUT_ZERO
    x = m.tensor("input", (1, 64, 64, 32), INT8, quant=([in_scale], [in_zero], 0))
    h, spatial = x, 64
    qf = quantize_filters(params)
    for name, shape, code, options, _ in LAYERS:
        q, scales, axis = qf[name]
        wq = (list(scales), [0] * len(scales), axis)
        if sparse:
            block_map, sizes, formats = FORMS[form][name]
            values, meta = encode(q, block_map, sizes, formats)
            ws = m.tensor(f"{name}/filter_sparse", shape, INT8, values.tobytes(),
                          sparsity=(list(range(len(formats))), block_map, meta), quant=wq)
            wt = m.tensor(f"{name}/filter", shape, INT8, quant=wq)
            m.op(OP_DENSIFY, [ws], [wt])
        else:
            wt = m.tensor(f"{name}/filter", shape, INT8, q.tobytes(), quant=wq)
        bias = np.round(params[name][1] / (in_scale * scales)).astype(np.int32)
        b = m.tensor(f"{name}/bias", bias.shape, INT32, bias.tobytes(), quant=(list(in_scale * scales), [0] * len(scales), 0))
        if name == "dw":
            spatial //= 2
        lo, hi = ranges[name]
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        out_scale = (hi - lo) / 255
        out_zero = int(np.clip(np.round(-128 - lo / out_scale), -128, 127))
        channels = shape[3] if code == OP_DEPTHWISE_CONV_2D else shape[0]
        y = m.tensor(f"{name}/out", (1, spatial, spatial, channels), INT8, quant=([out_scale], [out_zero], 0))
        m.op(code, [h, wt, b], [y], options)
        h, in_scale, in_zero = y, out_scale, out_zero
    return m.serialize([x], [h])


def build_hybrid(form, params):
    """The block with float activations and int8 filters (per-channel, symmetric) through DENSIFY
    into hybrid CONV_2D / DEPTHWISE_CONV_2D (dynamic-range quantization), float32 biases."""
    m = ModelWriter()
    x = m.tensor("input", (1, 64, 64, 32), FLOAT32)
    h, spatial = x, 64
    qf = quantize_filters(params)
    for name, shape, code, options, _ in LAYERS:
        q, scales, axis = qf[name]
        wq = (list(scales), [0] * len(scales), axis)
        block_map, sizes, formats = FORMS[form][name]
        values, meta = encode(q, block_map, sizes, formats)
        ws = m.tensor(f"{name}/filter_sparse", shape, INT8, values.tobytes(),
                      sparsity=(list(range(len(formats))), block_map, meta), quant=wq)
        wt = m.tensor(f"{name}/filter", shape, INT8, quant=wq)
        m.op(OP_DENSIFY, [ws], [wt])
        b = m.tensor(f"{name}/bias", (len(scales),), FLOAT32, params[name][1].tobytes())
        if name == "dw":
            spatial //= 2
        channels = shape[3] if code == OP_DEPTHWISE_CONV_2D else shape[0]
        y = m.tensor(f"{name}/out", (1, spatial, spatial, channels), FLOAT32)
        m.op(code, [h, wt, b], [y], options)
        h = y
    return m.serialize([x], [h])


def make_hybrid(out):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    data = build_hybrid("block", weights("block", 27 + 1))
    path = out / "hybrid_i8_block.tflite"
    path.write_bytes(data)
    x = fixed_input((1, 64, 64, 32))
    outs = {}
    # LiteRT 2.3's XNNPACK delegate fails to prepare this model ("failed to delegate CONV_2D"):
    # the built-in kernels run it.
    for label, resolver in (("reference", OpResolverType.BUILTIN_REF), ("builtin", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)):
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=resolver, num_threads=1)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs[label] = it.get_tensor(it.get_output_details()[0]["index"]).copy()
    spread = float(np.abs(outs["reference"] - outs["builtin"]).max())
    print(f"  hybrid_i8_block: max |y| {np.abs(outs['reference']).max():.4f}, builtin vs reference {spread:.3g}", file=sys.stderr)
    outs["reference"].astype("<f4").tofile(out / "hybrid_i8_block.expected.f32")
    print(f"hybrid_i8_block: {len(data)} bytes")


def float_ranges(form, params, out):
    """Each layer's output range in the float model with the int8 filters' values."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    qf = quantize_filters(params)
    deq = {n: ((q.astype(np.float32) * s.reshape([-1 if d == a else 1 for d in range(4)])).astype(np.float16), params[n][1])
           for n, (q, s, a) in qf.items()}
    data, _ = build(form, deq, sparse=False)
    path = out / "_float_for_ranges.tflite"
    path.write_bytes(data)
    it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    x = (int8_input((1, 64, 64, 32)).astype(np.float32) - INT8_INPUT_ZERO) * INT8_INPUT_SCALE
    it.set_tensor(it.get_input_details()[0]["index"], x.astype(np.float32))
    it.invoke()
    ranges = {}
    for d in it.get_tensor_details():
        if d["name"].endswith("/out"):
            y = it.get_tensor(d["index"])
            ranges[d["name"].split("/")[0]] = (float(y.min()), float(y.max()))
    path.unlink()
    return ranges


def make_int8(out):
    form = "block"
    params = weights(form, 27 + 1)
    ranges = float_ranges(form, params, out)
    sparse, dense = build_int8(form, params, True, ranges), build_int8(form, params, False, ranges)
    (out / "conv_i8_block.tflite").write_bytes(sparse)
    (out / "conv_i8_block_dense.tflite").write_bytes(dense)
    x = int8_input((1, 64, 64, 32))
    a, b = run_litert(out / "conv_i8_block.tflite", x), run_litert(out / "conv_i8_block_dense.tflite", x)
    ref = a["reference"].astype(np.int32)
    for label, y in list(a.items()) + [("dense " + k, v) for k, v in b.items()]:
        print(f"  conv_i8_block {label}: range [{y.min()}, {y.max()}], max |y - reference| "
              f"{np.abs(y.astype(np.int32) - ref).max()}", file=sys.stderr)
    a["reference"].tofile(out / "conv_i8_block.expected.i8")
    print(f"conv_i8_block: {len(sparse)} bytes (dense twin {len(dense)})")


def build_fc(w, bias, sparse):
    """FULLY_CONNECTED whose float32 weights are stored sparse in 1x4 blocks and read directly
    (no DENSIFY): what the converter emits for FULLY_CONNECTED, whose LiteRT kernel takes them."""
    m = ModelWriter()
    x = m.tensor("input", (1, w.shape[1]), FLOAT32)
    if sparse:
        formats = [DIM_DENSE, DIM_CSR, DIM_DENSE]
        values, meta = encode(w, [1], [4], formats)
        wt = m.tensor("fc/weights", w.shape, FLOAT32, values.tobytes(), sparsity=([0, 1, 2], [1], meta))
    else:
        wt = m.tensor("fc/weights", w.shape, FLOAT32, w.tobytes())
    b = m.tensor("fc/bias", bias.shape, FLOAT32, bias.tobytes())
    y = m.tensor("fc/out", (1, w.shape[0]), FLOAT32)
    # FullyConnectedOptions: fused_activation_function 0.
    m.op(OP_FULLY_CONNECTED, [x, wt, b], [y], (OPT_FULLY_CONNECTED, [(0, "b", ACT_RELU)]))
    return m.serialize([x], [y])


def run_litert(path, x):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    outs = {}
    for label, resolver in (("xnnpack", OpResolverType.AUTO), ("reference", OpResolverType.BUILTIN_REF),
                            ("builtin", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)):
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=resolver, num_threads=1)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs[label] = it.get_tensor(it.get_output_details()[0]["index"]).copy()
    return outs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "Fixtures" / "sparse"))
    ap.add_argument("--large", metavar="DIR", help="instead write the larger benchmark models (conv_f16_*_large*.tflite) to DIR")
    args = ap.parse_args()
    if args.large:
        out = Path(args.large)
        out.mkdir(parents=True, exist_ok=True)
        for seed, form in enumerate(("csr", "block")):
            params = weights(form, seed + 127, LARGE_LAYERS)
            for sparse, suffix in ((True, ""), (False, "_dense")):
                data, _ = build(form, params, sparse, LARGE_LAYERS, LARGE_INPUT)
                (out / f"conv_f16_{form}_large{suffix}.tflite").write_bytes(data)
                run_litert(out / f"conv_f16_{form}_large{suffix}.tflite", fixed_input(LARGE_INPUT))
                print(f"conv_f16_{form}_large{suffix}: {len(data)} bytes")
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    x = fixed_input((1, 64, 64, 32))
    for seed, form in enumerate(("csr", "block")):
        params = weights(form, seed + 27)
        name = f"conv_f16_{form}"
        sparse_bytes, stats = build(form, params, sparse=True)
        dense_bytes, _ = build(form, params, sparse=False)
        (out / f"{name}.tflite").write_bytes(sparse_bytes)
        (out / f"{name}_dense.tflite").write_bytes(dense_bytes)
        sparse_out = run_litert(out / f"{name}.tflite", x)
        dense_out = run_litert(out / f"{name}_dense.tflite", x)
        ref = sparse_out["xnnpack"]
        for label, y in list(sparse_out.items()) + [("dense " + k, v) for k, v in dense_out.items()]:
            print(f"  {name} {label}: shape {y.shape}, max |y| {np.abs(y).max():.4f}, "
                  f"max |y - xnnpack| {np.abs(y - ref).max():.3g}", file=sys.stderr)
        ref.astype("<f4").tofile(out / f"{name}.expected.f32")
        stored = sum(s[1] for s in stats)
        total = sum(s[2] for s in stats)
        nonzero = sum(s[3] for s in stats)
        print(f"{name}: {len(sparse_bytes)} bytes (dense twin {len(dense_bytes)}), {stored} stored values "
              f"of {total} ({nonzero} non-zero, density {nonzero / total:.1%}); "
              + ", ".join(f"{n} {s}/{t}" for n, s, t, _ in stats))
    make_fc(out)
    make_int8(out)
    make_hybrid(out)


def make_fc(out):
    rng = np.random.default_rng(1027)
    w = rng.normal(0, np.sqrt(2 / 256 / 0.35), size=(64, 256)).astype(np.float32)
    w = prune_blocks(w, [1], [4], 0.65, rng)
    bias = rng.normal(0, 0.1, size=64).astype(np.float32)
    sparse, dense = build_fc(w, bias, True), build_fc(w, bias, False)
    (out / "fc_f32_block.tflite").write_bytes(sparse)
    (out / "fc_f32_block_dense.tflite").write_bytes(dense)
    x = fixed_input((1, 256))
    a, b = run_litert(out / "fc_f32_block.tflite", x), run_litert(out / "fc_f32_block_dense.tflite", x)
    for label, y in list(a.items()) + [("dense " + k, v) for k, v in b.items()]:
        print(f"  fc_f32_block {label}: max |y| {np.abs(y).max():.4f}, max |y - dense reference| {np.abs(y - b['reference']).max():.3g}", file=sys.stderr)
    # LiteRT 2.3's XNNPACK delegate takes this FULLY_CONNECTED and reads the sparse buffer as if
    # it were dense (NaN or garbage); its built-in kernels densify. Expected: the reference kernels.
    a["reference"].astype("<f4").tofile(out / "fc_f32_block.expected.f32")
    print(f"fc_f32_block: {len(sparse)} bytes (dense twin {len(dense)}), density {np.count_nonzero(w) / w.size:.1%}")


if __name__ == "__main__":
    main()
