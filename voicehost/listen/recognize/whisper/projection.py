"""Whisper's projection onto the vocabulary in 8 bits, through ONNX Runtime.

Every search step multiplies its rows' final hidden states by the transposed token embedding
(width × 51,864 for tiny.en) and takes a log-softmax over the vocabulary. In NumPy that is 14-16 ms
of CPU for 10 rows, 15-20% of recognition, and it is bound by memory: 80 MB of float32 weights
read per step (README, item 57). ONNX Runtime's ``DynamicQuantizeMatMul`` (com.microsoft) reads
them as 20 MB of uint8, one scale and zero point per token, quantising the hidden states to uint8
per call; its ``LogSoftmax`` follows: about 4 ms for the same rows.

Two choices keep it close to float32 (measured on 977 real search rows of the committed clips,
the error of the 20 most likely tokens of each row):

* uint8 weights, not int8: on x86 CPUs without VNNI ONNX Runtime multiplies uint8 by int8 with
  ``vpmaddubsw``, whose 16-bit pair sums can saturate; uint8 × uint8 is widened first and cannot.
* smoothing: the hidden states have a few dimensions 4-5 times larger than the median (the final
  layer norm's gain), and weights of one scale per token lose the small ones. Each dimension ``d``
  is divided by ``s_d`` and the weights' row multiplied by it, ``s_d = sqrt(a_d / w_d)`` (``a_d``
  the dimension's expected size, ``w_d`` its largest weight; SmoothQuant's balance): the product
  is the same, both sides quantise better. Error of the top 20 tokens, mean / max: 0.19 / 0.54
  nats plain, **0.12 / 0.32** smoothed (int8 weights: 0.24 / 0.57, 7-bit 0.44 / 1.1); the top
  token the same as float32's in 99.1% of rows.

The graph is written here at the protobuf wire level (field numbers from onnx.proto3), so neither
the ``onnx`` package nor a protobuf schema is needed at run time. :class:`Projection` falls back
to NumPy in float32 when ONNX Runtime cannot run the graph, or when ``VOICEHOST_WHISPER_8BIT=0``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from voicehost.listen.recognize.ortfile import _encode_varint, _message

ENV_SWITCH = "VOICEHOST_WHISPER_8BIT"
"""``0`` turns the 8-bit projection off (NumPy float32, as before it)."""

_FLOAT, _UINT8 = 1, 2
"""TensorProto.DataType."""
_ATTRIBUTE_INT = 2
"""AttributeProto.AttributeType.INT."""


def _varint_field(field: int, value: int) -> bytes:
    return _encode_varint(field << 3) + _encode_varint(value)


def _text(field: int, value: str) -> bytes:
    return _message(field, value.encode())


def _node(op: str, inputs: list[str], outputs: list[str], domain: str = "", axis: int | None = None) -> bytes:
    """NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7."""
    body = b"".join(_text(1, name) for name in inputs) + b"".join(_text(2, name) for name in outputs)
    body += _text(3, op) + _text(4, op)
    if axis is not None:  # AttributeProto: name 1, i 3, type 20
        attribute = _text(1, "axis") + _varint_field(3, axis & (2**64 - 1))  # int64, two's complement
        body += _message(5, attribute + _varint_field(20, _ATTRIBUTE_INT))
    if domain:
        body += _text(7, domain)
    return _message(1, body)


def _tensor(field: int, name: str, kind: int, array: np.ndarray) -> bytes:
    """TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian)."""
    body = b"".join(_varint_field(1, size) for size in array.shape) + _varint_field(2, kind) + _text(8, name)
    raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return _message(field, body + _message(9, raw))


def _value_info(field: int, name: str, kind: int, dims: list[str]) -> bytes:
    """ValueInfoProto name 1, type 2 → TypeProto tensor_type 1 → elem_type 1, shape 2 → dim 1 →
    dim_param 2."""
    shape = b"".join(_message(1, _text(2, dim)) for dim in dims)
    tensor_type = _varint_field(1, kind) + _message(2, shape)
    return _message(field, _text(1, name) + _message(2, _message(1, tensor_type)))


def quantised(projection: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(width, vocabulary) float weights → uint8 weights, and per column a scale and a zero point
    (the column's range, 0 included, over 0..255)."""
    low = np.minimum(projection.min(0), 0.0)
    high = np.maximum(projection.max(0), 0.0)
    scale = ((high - low) / 255).astype(np.float32)
    scale[scale == 0] = 1.0
    zero = np.clip(np.round(-low / scale), 0, 255).astype(np.uint8)
    weight = np.clip(np.round(projection / scale) + zero, 0, 255).astype(np.uint8)
    return weight, scale, zero


def smoothing(projection: np.ndarray, sizes: np.ndarray | None) -> np.ndarray:
    """Per hidden dimension the divisor ``s_d = sqrt(a_d / w_d)`` (mean 1) for expected sizes
    ``sizes`` (``a_d``) of the hidden states, ``w_d`` the dimension's largest weight; ones without
    ``sizes``."""
    width = projection.shape[0]
    if sizes is None:
        return np.ones(width, np.float32)
    weights = np.abs(projection).max(1)
    ok = (sizes > 0) & (weights > 0) & np.isfinite(sizes)
    out = np.ones(width, np.float64)
    out[ok] = np.sqrt(sizes[ok] / weights[ok])
    out /= out[ok].mean() if ok.any() else 1.0
    out[~ok] = 1.0
    return out.astype(np.float32)


def graph(projection: np.ndarray, divisors: np.ndarray) -> bytes:
    """A serialised ONNX model: ``hidden`` (rows, width) float → ``log_probs`` (rows, vocabulary)
    through ``hidden / divisors`` and uint8 weights quantised from ``divisors × projection``
    (width, vocabulary), held as constants."""
    weight, scale, zero = quantised(projection * divisors[:, None])
    body = _node("Div", ["hidden", "divisors"], ["smoothed"])
    body += _node("DynamicQuantizeMatMul", ["smoothed", "weight", "scale", "zero"], ["logits"], "com.microsoft")
    body += _node("LogSoftmax", ["logits"], ["log_probs"], axis=-1)
    body += _text(2, "whisper_projection")
    body += _tensor(5, "divisors", _FLOAT, divisors.astype(np.float32))
    body += _tensor(5, "weight", _UINT8, weight)
    body += _tensor(5, "scale", _FLOAT, scale)
    body += _tensor(5, "zero", _UINT8, zero)
    body += _value_info(11, "hidden", _FLOAT, ["rows", "width"])
    body += _value_info(12, "log_probs", _FLOAT, ["rows", "vocabulary"])
    opsets = _message(8, _varint_field(2, 17)) + _message(8, _text(1, "com.microsoft") + _varint_field(2, 1))
    return _varint_field(1, 8) + opsets + _text(2, "voicehost") + _message(7, body)


def _float_log_probs(hidden: np.ndarray, projection: np.ndarray) -> np.ndarray:
    logits: np.ndarray = hidden @ projection
    logits -= logits.max(-1, keepdims=True)  # in place: the (N, 51,864) arrays dominate the cost
    logits -= np.log(np.exp(logits).sum(-1, keepdims=True))
    return logits


class Projection:
    """Next-token log probabilities from final hidden states: 8-bit through ONNX Runtime when it
    runs, else float32 in NumPy (``exact`` forces that). ``sizes``: the hidden dimensions'
    expected sizes, for the smoothing (see the module's docstring)."""

    def __init__(self, projection: np.ndarray, sizes: np.ndarray | None = None, exact: bool = False) -> None:
        self.projection = projection
        """(width, vocabulary) float32: contiguous when NumPy multiplies by it (a transposed view is
        60% slower there); as given otherwise (Whisper's decoder gives a view of its embedding:
        80 MB not copied)."""
        self._session: Any = None
        self.reason = ""
        """Why the 8-bit path is not used ("" when it is)."""
        if exact or os.environ.get(ENV_SWITCH, "").strip() == "0":
            self.reason = "asked for float32"
            self.projection = np.ascontiguousarray(projection)
            return
        try:
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            model = graph(projection, smoothing(projection, sizes))
            session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
            probe = session.run(None, {"hidden": np.zeros((1, projection.shape[0]), np.float32)})[0]
            if probe.shape != (1, projection.shape[1]) or not np.isfinite(probe).all():
                raise ValueError(f"the 8-bit projection gave {probe.shape} for one row")
            self._session = session
        except Exception as exc:  # any ONNX Runtime failure: NumPy gives the same answers, slower
            self.reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            self.projection = np.ascontiguousarray(projection)

    @property
    def quantised(self) -> bool:
        return self._session is not None

    def __call__(self, hidden: np.ndarray) -> np.ndarray:
        """(N, vocabulary) log probabilities for hidden states (N, width)."""
        if self._session is None:
            return _float_log_probs(hidden, self.projection)
        out: np.ndarray = self._session.run(None, {"hidden": np.ascontiguousarray(hidden, dtype=np.float32)})[0]
        return out
