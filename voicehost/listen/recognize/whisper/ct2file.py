"""Read the tensors of a CTranslate2 model file (``model.bin``) into NumPy arrays.

The format (CTranslate2 ≥ 3, binary version 5 and 6): a header (version, spec name, revision),
then each variable as name, rank, dimensions, data type and raw little-endian bytes, then aliases
(one name standing for another variable). Only what a Whisper model uses is read.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from voicehost.errors import ModelError

_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
"""CTranslate2's DataType enum → NumPy (bfloat16 is not used by the shipped model)."""
VERSIONS = (5, 6)
"""Binary versions this reader understands."""


class _Reader:
    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.pos, self.path = data, 0, path

    def number(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ModelError(f"{self.path}: the model file ends early (at byte {self.pos})")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return int(value)

    def text(self) -> str:
        size = self.number("<H")
        raw = self.data[self.pos : self.pos + size - 1]
        self.pos += size
        return raw.decode("utf-8", errors="replace")

    def array(self, dtype: type, shape: list[int], size: int) -> np.ndarray:
        if self.pos + size > len(self.data):
            raise ModelError(f"{self.path}: the model file ends early (at byte {self.pos})")
        count = size // np.dtype(dtype).itemsize
        out: np.ndarray = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos).reshape(shape)
        self.pos += size
        return out


def read_variables(path: Path) -> tuple[str, dict[str, np.ndarray]]:
    """(spec name, variables by name) of the CTranslate2 model file ``path``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read the model file {path}: {exc.strerror or exc}") from None
    reader = _Reader(data, path)
    version = reader.number("<I")
    if version not in VERSIONS:
        raise ModelError(f"{path}: CTranslate2 model format version {version} is not supported (only {VERSIONS})")
    spec = reader.text()
    reader.number("<I")  # revision
    variables: dict[str, np.ndarray] = {}
    for _ in range(reader.number("<I")):
        name = reader.text()
        shape = [reader.number("<I") for _ in range(reader.number("<B"))]
        code = reader.number("<B")
        size = reader.number("<I")
        if code not in _DTYPES:
            raise ModelError(f"{path}: variable {name} has data type {code}, which this reader does not know")
        variables[name] = reader.array(_DTYPES[code], shape, size)
    for _ in range(reader.number("<I")):
        alias, target = reader.text(), reader.text()
        if target in variables:
            variables[alias] = variables[target]
    return spec, variables
