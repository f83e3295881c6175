"""ONNX Runtime sessions for ``.ort`` model files, made fast by a conversion to ONNX in memory.

An ``.ort`` file is loaded as saved: ONNX Runtime applies no graph optimisation to it. Moonshine's
``.ort`` files keep their weights as int8 with a scale, and the graph turns them into floats on
every call: the decoder spends 50 ms of each step casting, scaling and transposing its 32,768 × 416
embedding (2026-12-03, one core). Loaded as an ``.ort`` file, saved back as ONNX (ONNX Runtime does
that itself, with optimisations off) and loaded again, the same graph has those constant
subgraphs folded once, at load: 10 ms a step, the same log probabilities to 1e-4.

ONNX Runtime writes the branches of an ``If`` node without a graph name, which its own ONNX
loader then rejects; :func:`named_subgraphs` names them at the protobuf wire level, so neither the
``onnx`` package nor a protobuf schema is needed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Iterator

MODEL_GRAPH = 7
"""ModelProto.graph."""
GRAPH_NODE, GRAPH_NAME = 1, 2
"""GraphProto.node, GraphProto.name."""
NODE_ATTRIBUTE = 5
"""NodeProto.attribute."""
ATTRIBUTE_GRAPHS = (6, 11)
"""AttributeProto.g and AttributeProto.graphs."""
LENGTH_DELIMITED = 2


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _fields(data: bytes) -> Iterator[tuple[int, int, int, int, int]]:
    """(field number, wire type, start of the field, end of the field, start of its payload)."""
    at = 0
    while at < len(data):
        start = at
        key, at = _varint(data, at)
        kind = key & 7
        payload = at
        if kind == 0:
            _, at = _varint(data, at)
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        elif kind == LENGTH_DELIMITED:
            length, payload = _varint(data, at)
            at = payload + length
        else:
            raise ValueError(f"unsupported protobuf wire type {kind}")
        if at > len(data):
            raise ValueError("truncated protobuf field")
        yield key >> 3, kind, start, at, payload


def _message(field: int, payload: bytes) -> bytes:
    return _encode_varint(field << 3 | LENGTH_DELIMITED) + _encode_varint(len(payload)) + payload


def _rewrite(data: bytes, children: dict[int, Any]) -> bytes:
    """``data`` with each length-delimited field whose number is in ``children`` replaced by
    ``children[number](its payload)``; every other field is copied byte for byte."""
    out = []
    for field, kind, start, end, payload in _fields(data):
        if kind == LENGTH_DELIMITED and field in children:
            out.append(_message(field, children[field](data[payload:end])))
        else:
            out.append(data[start:end])
    return b"".join(out)


def named_subgraphs(model: bytes) -> tuple[bytes, int]:
    """The serialised ONNX ``model`` with a name ("subgraph_N") for every graph that has none, and
    how many were named."""
    count = 0

    def graph(data: bytes) -> bytes:
        nonlocal count
        named = any(
            field == GRAPH_NAME and kind == LENGTH_DELIMITED and end > payload
            for field, kind, _, end, payload in _fields(data)
        )
        body = _rewrite(data, {GRAPH_NODE: node})
        if named:
            return body
        count += 1
        kept = b"".join(
            body[start:end]
            for field, kind, start, end, _ in _fields(body)
            if not (field == GRAPH_NAME and kind == LENGTH_DELIMITED)
        )
        return _message(GRAPH_NAME, f"subgraph_{count}".encode()) + kept

    def node(data: bytes) -> bytes:
        return _rewrite(data, {NODE_ATTRIBUTE: attribute})

    def attribute(data: bytes) -> bytes:
        return _rewrite(data, {number: graph for number in ATTRIBUTE_GRAPHS})

    out = _rewrite(model, {MODEL_GRAPH: graph})
    return out, count


def as_onnx(path: Path) -> bytes:
    """The ``.ort`` file at ``path`` as a serialised ONNX model (ONNX Runtime's own conversion,
    optimisations off, then :func:`named_subgraphs`). Raises what ONNX Runtime raises, or
    ValueError for a file it wrote that is not protobuf."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3  # errors only: the conversion is ours, not the user's business
    with tempfile.TemporaryDirectory(prefix="voicehost-ort-") as folder:
        target = Path(folder) / "model.onnx"
        options.optimized_model_filepath = str(target)
        onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        data = target.read_bytes()
    return named_subgraphs(data)[0]


def session(path: Path, options: Any) -> tuple[Any, bool]:
    """An inference session for the ``.ort`` file at ``path``: converted to ONNX (see the module's
    docstring) when that works, else the file as it is; and whether it was converted. Raises
    what ONNX Runtime raises when the file itself does not load."""
    import onnxruntime

    try:
        return onnxruntime.InferenceSession(as_onnx(path), options, providers=["CPUExecutionProvider"]), True
    except Exception:  # any failure of the conversion: the file as it is, slower but the same numbers
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]), False
