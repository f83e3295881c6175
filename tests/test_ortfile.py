"""The .ort → ONNX conversion that makes Moonshine three times faster (voicehost.listen.recognize.ortfile):
the protobuf rewrite on hand-built bytes, and the real Moonshine files converted by the real
onnxruntime, giving the same numbers as the files as they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.test_moonshine import ANIMALS, clip
from voicehost.listen.recognize import ortfile
from voicehost.listen.recognize.moonshine import MoonshineEngine, model_folder


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (lengths below 2**14 are enough here)."""
    length = len(payload)
    prefix = bytes([length]) if length < 0x80 else bytes([length & 0x7F | 0x80, length >> 7])
    return bytes([number << 3 | 2]) + prefix + payload


def names(graph: bytes) -> list[str]:
    """The names of ``graph`` and of every graph nested in it, depth first."""
    out: list[str] = []
    for number, kind, _, end, payload in ortfile._fields(graph):
        body = graph[payload:end]
        if number == 2 and kind == 2:
            out.append(body.decode())
        if number == 1 and kind == 2:  # a node
            for n, k, _, e, p in ortfile._fields(body):
                if n == 5 and k == 2:  # an attribute
                    for an, ak, _, ae, ap in ortfile._fields(body[p:e]):
                        if an in (6, 11) and ak == 2:
                            out.extend(names(body[p:e][ap:ae]))
    return out


def test_unnamed_subgraphs_get_names_and_everything_else_is_kept() -> None:
    weights = field(4, bytes(range(256)) * 2)  # a long field: a two-byte length
    branch = field(1, field(4, b"Identity")) + weights
    named = field(2, b"kept") + field(1, field(4, b"Relu"))
    node = field(4, b"If") + field(5, field(1, b"then_branch") + field(6, branch)) + field(5, field(11, named))
    model = bytes([8, 8]) + field(7, field(2, b"main") + field(1, node) + weights) + bytes([0x40, 0x01])
    out, count = ortfile.named_subgraphs(model)
    assert count == 1
    graph = next(out[p:e] for n, k, _, e, p in ortfile._fields(out) if n == 7)
    assert names(graph) == ["main", "subgraph_1", "kept"]
    assert out.startswith(bytes([8, 8])) and out.endswith(bytes([0x40, 0x01]))
    assert out.count(bytes(range(256)) * 2) == 2
    assert ortfile.named_subgraphs(out) == (out, 0)  # nothing left to name


def test_broken_bytes_are_a_value_error() -> None:
    with pytest.raises(ValueError):
        ortfile.named_subgraphs(field(7, b"\x0a\x05ab"))  # a nested length past the end
    with pytest.raises(ValueError):
        ortfile.named_subgraphs(bytes([0x0B]))  # wire type 3 (groups) is not used by ONNX


def test_the_real_decoder_converts_and_its_if_branches_are_named() -> None:
    data = ortfile.as_onnx(model_folder() / "decoder_model_merged.ort")
    assert ortfile.named_subgraphs(data)[1] == 0  # as_onnx already named them
    graph = next(data[p:e] for n, k, _, e, p in ortfile._fields(data) if n == 7)
    assert sum(name.startswith("subgraph_") for name in names(graph)) >= 2  # the If's two branches


@pytest.fixture(scope="module")
def engines() -> tuple[MoonshineEngine, MoonshineEngine]:
    converted = MoonshineEngine()
    with pytest.MonkeyPatch.context() as patch:

        def fails(path: Path) -> bytes:
            raise RuntimeError("no conversion")

        patch.setattr(ortfile, "as_onnx", fails)
        plain = MoonshineEngine()
    return converted, plain


def test_a_failed_conversion_falls_back_to_the_files_as_they_are(
    engines: tuple[MoonshineEngine, MoonshineEngine],
) -> None:
    converted, plain = engines
    assert converted.converted and "slower" not in converted.description
    assert not plain.converted and "slower" in plain.description


@pytest.mark.parametrize("text", ["cat", "bim bam bum"])
def test_converted_and_plain_give_the_same_numbers(engines: tuple[MoonshineEngine, MoonshineEngine], text: str) -> None:
    converted, plain = engines
    samples = clip(text).samples
    phrases = {p: (p,) for p in (*ANIMALS, "bim bam bum")}
    fast, fast_text = converted.ratios(samples, phrases)
    slow, slow_text = plain.ratios(samples, phrases)
    assert fast_text == slow_text
    assert fast.keys() == slow.keys()
    assert np.allclose([fast[p] for p in fast], [slow[p] for p in fast], atol=1e-3)
