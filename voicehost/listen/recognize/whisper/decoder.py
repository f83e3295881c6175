"""Whisper's text decoder in NumPy (float32), for scoring token sequences against encoded audio.

Pre-norm transformer: token embedding + learnt position, then per layer causal self-attention,
cross-attention to the encoder's output and a GELU feed-forward block, each behind a layer norm;
the output projection is the token embedding itself (in 8 bits where ONNX Runtime runs it:
:mod:`.projection`). The cross-attention keys and values depend
only on the audio, so :meth:`Decoder.cross` computes them once per segment and every candidate
sequence reuses them; a search step's rows extend the last step's by one token, so their
self-attention keys and values are kept (:class:`Prefixes`) and only the new token is computed
(analysis of 347 tuning segments: 18% less CPU, scores within 3e-5 nats of a full recomputation).
Weight names are CTranslate2's (``decoder/layer_0/attention/linear_1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from voicehost.errors import ModelError
from voicehost.listen.recognize.whisper.projection import Projection


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    out: np.ndarray = ((x - mean) / np.sqrt(var + 1e-5)) * gamma + beta
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26, absolute error under 1.5e-7)."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = np.sign(x) * (1.0 - poly * np.exp(-x * x))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its exact (erf) form, as Whisper was trained."""
    out: np.ndarray = 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))
    return out


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    out: np.ndarray = e / e.sum(-1, keepdims=True)
    return out


@dataclass(frozen=True)
class _Linear:
    weight_t: np.ndarray
    """(inputs, outputs), contiguous."""
    bias: np.ndarray | None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = x.reshape(-1, x.shape[-1]) @ self.weight_t
        if self.bias is not None:
            y += self.bias
        out: np.ndarray = y.reshape(*x.shape[:-1], self.weight_t.shape[1])
        return out


@dataclass(frozen=True)
class _Norm:
    gamma: np.ndarray
    beta: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return _layer_norm(x, self.gamma, self.beta)


@dataclass(frozen=True)
class _Layer:
    self_norm: _Norm
    self_qkv: _Linear
    self_out: _Linear
    cross_norm: _Norm
    cross_q: _Linear
    cross_kv: _Linear
    cross_out: _Linear
    ffn_norm: _Norm
    ffn_in: _Linear
    ffn_out: _Linear


class Prefixes:
    """Self-attention keys and values of the token rows decoded by the last
    :meth:`Decoder.next_log_probs` call: a row of the next call that extends one of them by a token
    computes only its new position (a search's rows grow by one token a step). Use one per
    segment: the keys and values hold nothing of the audio, but a row is known by its tokens only."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, ...], tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]] = {}
        """Row → per layer its keys and values (heads, length, head_dim)."""


@dataclass(frozen=True)
class Cross:
    """The encoder's keys and values for every decoder layer (one segment's audio)."""

    keys: tuple[np.ndarray, ...]
    """Per layer: (heads, frames, head_dim)."""
    values: tuple[np.ndarray, ...]


class Decoder:
    """Whisper's decoder from a CTranslate2 Whisper model's variables."""

    def __init__(self, variables: Mapping[str, np.ndarray]) -> None:
        try:
            self.heads = int(variables["decoder/num_heads"])
            self.embedding = np.ascontiguousarray(variables["decoder/embeddings/weight"], dtype=np.float32)
            self.positions = np.asarray(variables["decoder/position_encodings/encodings"], dtype=np.float32)
            self.final_norm = self._norm(variables, "decoder/layer_norm")
            count = 0
            while f"decoder/layer_{count}/ffn/linear_0/weight" in variables:
                count += 1
            self.layers = tuple(self._layer(variables, f"decoder/layer_{i}/") for i in range(count))
        except KeyError as exc:
            raise ModelError(f"the Whisper model has no variable {exc}: not a CTranslate2 Whisper model") from None
        if not self.layers:
            raise ModelError("the Whisper model has no decoder layers")
        self.width = self.embedding.shape[1]
        sizes = np.abs(self.final_norm.gamma) + np.abs(self.final_norm.beta)  # the hidden states' scale
        self.projection = Projection(self.embedding.T, sizes)
        self.vocabulary = self.embedding.shape[0]

    @staticmethod
    def _linear(v: Mapping[str, np.ndarray], name: str) -> _Linear:
        bias = v.get(name + "/bias")
        return _Linear(
            np.ascontiguousarray(np.asarray(v[name + "/weight"], dtype=np.float32).T),
            None if bias is None else np.asarray(bias, dtype=np.float32),
        )

    @staticmethod
    def _norm(v: Mapping[str, np.ndarray], name: str) -> _Norm:
        return _Norm(np.asarray(v[name + "/gamma"], dtype=np.float32), np.asarray(v[name + "/beta"], dtype=np.float32))

    def _layer(self, v: Mapping[str, np.ndarray], p: str) -> _Layer:
        return _Layer(
            self._norm(v, p + "self_attention/layer_norm"),
            self._linear(v, p + "self_attention/linear_0"),
            self._linear(v, p + "self_attention/linear_1"),
            self._norm(v, p + "attention/layer_norm"),
            self._linear(v, p + "attention/linear_0"),
            self._linear(v, p + "attention/linear_1"),
            self._linear(v, p + "attention/linear_2"),
            self._norm(v, p + "ffn/layer_norm"),
            self._linear(v, p + "ffn/linear_0"),
            self._linear(v, p + "ffn/linear_1"),
        )

    def _split(self, x: np.ndarray) -> np.ndarray:
        """(..., T, D) → (..., heads, T, D / heads)."""
        return x.reshape(*x.shape[:-1], self.heads, -1).swapaxes(-2, -3)

    def _merge(self, x: np.ndarray) -> np.ndarray:
        return x.swapaxes(-2, -3).reshape(*x.shape[:-3], x.shape[-2], -1)

    def cross(self, encoded: np.ndarray) -> Cross:
        """Keys and values of the encoder output ``encoded`` (frames, width) for every layer."""
        keys, values = [], []
        for layer in self.layers:
            kv = layer.cross_kv(encoded)
            keys.append(self._split(kv[:, : self.width]))
            values.append(self._split(kv[:, self.width :]))
        return Cross(tuple(keys), tuple(values))

    def hidden(self, tokens: np.ndarray, cross: Cross) -> np.ndarray:
        """(batch, T, width) final hidden states for token rows ``tokens`` (batch, T)."""
        return self._forward(tokens, cross)[0]

    def _forward(
        self, tokens: np.ndarray, cross: Cross, past: tuple[list[np.ndarray], list[np.ndarray]] | None = None
    ) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """Hidden states (batch, T, width) of ``tokens`` (batch, T), and per layer the keys and values
        of every position (batch, heads, P + T, head_dim). ``past``: per layer the keys and values
        of P positions before them (each (batch, heads, P, head_dim)): ``tokens`` continue those."""
        batch, length = tokens.shape
        before = past[0][0].shape[-2] if past is not None else 0
        if before + length > len(self.positions):
            raise ValueError(f"{before + length} tokens is more than the decoder's {len(self.positions)} positions")
        x = self.embedding[tokens] + self.positions[before : before + length]
        scale = float(1.0 / np.sqrt(self.width // self.heads))  # a Python float: a NumPy float64 would upcast
        causal = np.triu(np.full((length, before + length), -np.inf, dtype=np.float32), before + 1)
        keys: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for i, layer in enumerate(self.layers):
            q, k, v = (self._split(part) for part in np.split(layer.self_qkv(layer.self_norm(x)), 3, axis=-1))
            if past is not None:
                k = np.concatenate([past[0][i], k], axis=-2)
                v = np.concatenate([past[1][i], v], axis=-2)
            keys.append(k)
            values.append(v)
            scores = q @ k.swapaxes(-1, -2) * scale
            if length > 1:
                scores = scores + causal
            x = x + layer.self_out(self._merge(_softmax(scores) @ v))
            q = self._split(layer.cross_q(layer.cross_norm(x)))
            attention = _softmax(q @ cross.keys[i].swapaxes(-1, -2) * scale)
            x = x + layer.cross_out(self._merge(attention @ cross.values[i]))
            x = x + layer.ffn_out(_gelu(layer.ffn_in(layer.ffn_norm(x))))
        return self.final_norm(x), keys, values

    def log_probs(self, hidden: np.ndarray) -> np.ndarray:
        """(N, vocabulary) next-token log probabilities for hidden states (N, width): 8-bit weights
        through ONNX Runtime where it runs, float32 NumPy otherwise (:mod:`.projection`)."""
        return self.projection(hidden)

    def next_log_probs(self, rows: list[list[int]], cross: Cross, known: Prefixes | None = None) -> np.ndarray:
        """(len(rows), vocabulary): the next-token distribution after each token row.

        With ``known``, a row that extends a row of the previous call by one token computes only
        that token (from the stored keys and values); ``known`` then holds this call's rows."""
        return self.log_probs(self._last_hidden(rows, cross, known))

    def _last_hidden(self, rows: list[list[int]], cross: Cross, known: Prefixes | None) -> np.ndarray:
        """(len(rows), width): the final hidden state of each row's last token."""
        out = np.zeros((len(rows), self.width), dtype=np.float32)
        stored: dict[tuple[int, ...], tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]] = {}
        groups: dict[int, list[int]] = {}
        fresh: list[int] = []
        for n, row in enumerate(rows):
            if known is not None and len(row) > 1 and tuple(row[:-1]) in known.rows:
                groups.setdefault(len(row), []).append(n)
            else:
                fresh.append(n)
        for members in groups.values():
            assert known is not None
            parents = [known.rows[tuple(rows[n][:-1])] for n in members]
            past = (
                [np.stack([p[0][i] for p in parents]) for i in range(len(self.layers))],
                [np.stack([p[1][i] for p in parents]) for i in range(len(self.layers))],
            )
            tokens = np.array([[rows[n][-1]] for n in members], dtype=np.int64)
            hidden, keys, values = self._forward(tokens, cross, past)
            out[members] = hidden[:, -1]
            for j, n in enumerate(members):
                stored[tuple(rows[n])] = (tuple(k[j] for k in keys), tuple(v[j] for v in values))
        if fresh:
            width = max(len(rows[n]) for n in fresh)
            tokens = np.zeros((len(fresh), width), dtype=np.int64)
            for j, n in enumerate(fresh):
                tokens[j, : len(rows[n])] = rows[n]
            hidden, keys, values = self._forward(tokens, cross)
            for j, n in enumerate(fresh):
                size = len(rows[n])
                out[n] = hidden[j, size - 1]
                if known is not None:
                    stored[tuple(rows[n])] = (
                        tuple(k[j, :, :size] for k in keys),
                        tuple(v[j, :, :size] for v in values),
                    )
        if known is not None:
            known.rows = stored
        return out
