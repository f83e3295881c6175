"""Whisper's projection onto the vocabulary in 8 bits (ONNX Runtime, a graph written without the
onnx package), its agreement with float32, and its fallback to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.listen.recognize.whisper import projection as pj
from voicehost.listen.recognize.whisper.recognizer import WhisperRecognizer
from tests.test_whisper_second_look import clip


def _weights(width: int = 24, vocabulary: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.ascontiguousarray(rng.standard_normal((width, vocabulary)).astype(np.float32) * 0.5)


def test_weights_are_quantised_over_each_tokens_range_with_zero_exact() -> None:
    weights = _weights()
    weights[:, 7] = 0.0  # a token never used: no division by zero
    weights[:, 8] = np.abs(weights[:, 8])  # all positive: 0 still in the range
    q, scale, zero = pj.quantised(weights)
    assert q.dtype == zero.dtype == np.uint8 and q.shape == weights.shape and scale.shape == zero.shape == (300,)
    used = np.arange(300) != 7
    assert (q.max(0)[used] == 255).all() and (q.min(0)[used & (np.arange(300) != 8)] == 0).all()
    assert zero[8] == 0 and q[:, 7].tolist() == [zero[7]] * 24
    back = (q.astype(np.float32) - zero) * scale
    assert np.abs(back - weights).max() <= scale.max() / 2 + 1e-6


def test_smoothing_balances_large_hidden_dimensions_and_keeps_the_product() -> None:
    weights = _weights(width=4, vocabulary=50)
    sizes = np.array([1.0, 1.0, 16.0, 0.0])
    divisors = pj.smoothing(weights, sizes)
    assert divisors[3] == 1.0  # no size known: left alone
    largest = np.abs(weights).max(1)
    assert divisors[2] / divisors[0] == pytest.approx(4.0 * np.sqrt(largest[0] / largest[2]))
    hidden = np.random.default_rng(3).standard_normal((2, 4))
    balanced = (hidden / divisors) @ (weights * divisors[:, None])
    np.testing.assert_allclose(balanced, hidden @ weights, rtol=1e-5, atol=1e-6)
    assert (pj.smoothing(weights, None) == 1.0).all()


def test_the_written_graph_runs_in_onnx_runtime_and_agrees_with_float32() -> None:
    weights = _weights()
    sizes = np.ones(weights.shape[0])
    sizes[:3] = 5.0  # three large dimensions, as Whisper's hidden states have
    projection = pj.Projection(weights, sizes)
    assert projection.quantised, projection.reason
    hidden = np.random.default_rng(1).standard_normal((5, weights.shape[0])).astype(np.float32)
    hidden *= sizes.astype(np.float32)
    exact = pj.Projection(weights, exact=True)(hidden.copy())
    fast = projection(hidden)
    assert fast.shape == exact.shape == (5, weights.shape[1])
    np.testing.assert_allclose(np.exp(fast).sum(-1), 1.0, atol=1e-4)  # a log-softmax over every token
    assert np.abs(fast - exact).max() < 0.2
    assert (fast.argmax(-1) == exact.argmax(-1)).all()
    assert projection(hidden[:1]).shape == (1, weights.shape[1])  # any number of rows


def test_float32_when_asked_or_when_onnx_runtime_cannot_run_it(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = _weights()
    hidden = np.random.default_rng(2).standard_normal((3, weights.shape[0])).astype(np.float32)
    logits = (hidden.astype(np.float64) @ weights.astype(np.float64)).astype(np.float64)
    reference = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    monkeypatch.setenv(pj.ENV_SWITCH, "0")
    asked = pj.Projection(weights)
    assert not asked.quantised and asked.reason == "asked for float32"
    monkeypatch.delenv(pj.ENV_SWITCH)
    import onnxruntime

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no kernel for DynamicQuantizeMatMul\nsecond line")

    monkeypatch.setattr(onnxruntime, "InferenceSession", refuse)
    broken = pj.Projection(weights)
    assert not broken.quantised and broken.reason == "RuntimeError: no kernel for DynamicQuantizeMatMul"
    np.testing.assert_allclose(asked(hidden.copy()), reference, atol=1e-4)
    np.testing.assert_allclose(broken(hidden.copy()), reference, atol=1e-4)


@pytest.mark.parametrize(("said", "text"), [("cat", " Cat"), ("dog", " Dog"), ("bim", " Bim")])
def test_the_real_models_projection_reads_a_real_shout_as_float32_does(
    whisper: WhisperRecognizer, said: str, text: str
) -> None:
    """Each step of reading a committed shout's text: the 8-bit projection's best token is
    float32's, and the tokens that matter (the top 20) are within 0.17 nats of it (0.26 without the
    smoothing on "bim")."""
    engine = whisper.engine
    decoder = engine.decoder
    assert decoder.projection.quantised, decoder.projection.reason
    exact = pj.Projection(decoder.projection.projection, exact=True)
    segment = clip(said)
    cross = decoder.cross(engine.encode(whisper._isolated(segment.samples, segment)))
    row = list(engine.prefix)
    for token in engine.tokenizer.encode(text) + [engine.tokenizer.specials.end]:
        hidden = decoder._last_hidden([row], cross, None)
        fast, slow = decoder.projection(hidden)[0], exact(hidden.copy())[0]
        assert fast.argmax() == slow.argmax()
        top = np.argsort(slow)[-20:]
        assert np.abs(fast[top] - slow[top]).max() < 0.17
        row.append(token)


def test_the_recogniser_says_which_projection_it_runs_and_keeps_no_float_copy(whisper: WhisperRecognizer) -> None:
    assert "CTranslate2 int8 encoder, 8-bit projection" in whisper.description
    decoder = whisper.engine.decoder
    assert np.shares_memory(decoder.projection.projection, decoder.embedding)  # a view: 80 MB saved
