"""Whisper's text decoder in NumPy (float32), for scoring token sequences against encoded audio.

Pre-norm transformer: token embedding + learnt position, then per layer causal self-attention,
cross-attention to the encoder's output and a GELU feed-forward block, each behind a layer norm;
the output projection is the token embedding itself. The cross-attention keys and values depend
only on the audio, so :meth:`Decoder.cross` computes them once per segment and every candidate
sequence reuses them. Weight names are CTranslate2's (``decoder/layer_0/attention/linear_1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from voicehost.errors import ModelError


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


class Cache:
    """Self-attention keys and values of the tokens decoded so far (one row)."""

    def __init__(self, layers: int) -> None:
        self.keys: list[np.ndarray | None] = [None] * layers
        self.values: list[np.ndarray | None] = [None] * layers
        self.length = 0

    def extend(self, layer: int, keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Append the new positions' keys and values (…, heads, T, head_dim); return all of them."""
        old_k, old_v = self.keys[layer], self.values[layer]
        if old_k is not None and old_v is not None:
            keys = np.concatenate([old_k, keys], axis=-2)
            values = np.concatenate([old_v, values], axis=-2)
        self.keys[layer], self.values[layer] = keys, values
        return keys, values


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
        self._projection = np.ascontiguousarray(self.embedding.T)
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

    def hidden(self, tokens: np.ndarray, cross: Cross, cache: "Cache | None" = None) -> np.ndarray:
        """(batch, T, width) final hidden states for token rows ``tokens`` (batch, T).

        With ``cache`` (batch 1), ``tokens`` continue the tokens the cache has seen; the cache
        grows by them and only the new positions are computed."""
        batch, length = tokens.shape
        past = cache.length if cache is not None else 0
        if past + length > len(self.positions):
            raise ValueError(f"{past + length} tokens is more than the decoder's {len(self.positions)} positions")
        x = self.embedding[tokens] + self.positions[past : past + length]
        scale = float(1.0 / np.sqrt(self.width // self.heads))  # a Python float: a NumPy float64 would upcast
        causal = np.triu(np.full((length, past + length), -np.inf, dtype=np.float32), past + 1)
        for i, layer in enumerate(self.layers):
            q, k, v = (self._split(part) for part in np.split(layer.self_qkv(layer.self_norm(x)), 3, axis=-1))
            if cache is not None:
                k, v = cache.extend(i, k, v)
            scores = q @ k.swapaxes(-1, -2) * scale + causal
            x = x + layer.self_out(self._merge(_softmax(scores) @ v))
            q = self._split(layer.cross_q(layer.cross_norm(x)))
            attention = _softmax(q @ cross.keys[i].swapaxes(-1, -2) * scale)
            x = x + layer.cross_out(self._merge(attention @ cross.values[i]))
            x = x + layer.ffn_out(_gelu(layer.ffn_in(layer.ffn_norm(x))))
        if cache is not None:
            cache.length += length
        return self.final_norm(x)

    def cache(self) -> "Cache":
        """An empty self-attention cache for incremental decoding of one row."""
        return Cache(len(self.layers))

    def log_probs(self, hidden: np.ndarray) -> np.ndarray:
        """(N, vocabulary) next-token log probabilities for hidden states (N, width)."""
        logits = hidden @ self._projection
        top = logits.max(-1, keepdims=True)
        out: np.ndarray = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
        return out

    def next_log_probs(self, rows: list[list[int]], cross: Cross) -> np.ndarray:
        """(len(rows), vocabulary): the next-token distribution after each token row."""
        width = max(len(r) for r in rows)
        tokens = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            tokens[i, : len(row)] = row
        hidden = self.hidden(tokens, cross)
        last = hidden[np.arange(len(rows)), [len(r) - 1 for r in rows]]
        return self.log_probs(last)
