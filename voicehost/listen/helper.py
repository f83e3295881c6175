"""A second recogniser in a process of its own, for the machine's second core.

The sounds of a race are judged one after the other, in onset order, and a shout's verdict waits
for the recognition of every sound judged before it. PocketSphinx and our NumPy Whisper decoder
keep Python's global interpreter lock while they work, so a second thread would not run beside
the listener (two threads recognising 16 clips took 0.95x the time of one, 2026-12-03); a second
process does. :class:`Helper` starts one at once (it loads its own models while the game begins,
a few seconds) and takes every other sound of a cluster from then on (:class:`~.pipeline.Listener`).

Its answers are the ones the listener's own recogniser would give (the same models, the same
inputs, no state carried between sounds), so only the timing changes. If the process cannot
start or dies, :meth:`Helper.submit` returns None from then on, the listener recognises
everything itself, and :attr:`Helper.failed` says why in one line.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Mapping, Sequence, TypeVar

from voicehost.listen.messages import Recognition, Recognizer, Segment

T = TypeVar("T")

ENV_VAR = "VOICEHOST_HELPER"
"""``off``: no helper process (everything is recognised in the listener's own thread)."""

PATIENCE = 20.0
"""Seconds to wait for one answer (a sound takes well under a second; a helper that is this late
is stuck, and the listener must not hang with it)."""
SHARE_WAIT = 1.0
"""Seconds the listener waits for the helper's share of a sound it recognises itself (PocketSphinx's
passes, a fraction of a second) before it decodes them itself: a busy machine may slow the niced
helper, and the game must not wait for it."""
NICE = 10
"""The helper process's scheduling niceness (higher: it yields to everything else)."""

_recognizer: Recognizer | None = None
"""The helper process's recogniser (set by :func:`_start`)."""
_failure: str | None = None
"""Why the helper process has no recogniser."""


def table_recognizer(lang: str, engine: str, model: Path | None, enrolled: Mapping[str, Path]) -> Recognizer:
    """The recogniser of a table (:func:`voicehost.models.engine.user_recognizer`) with the players'
    enrolment takes (player → folder) when it can use them: what ``make_listener`` builds for the
    listener, and :class:`Helper` again in its process."""
    from voicehost.models.engine import user_recognizer

    recognizer: Recognizer = user_recognizer(lang, engine, model)
    enrol = getattr(recognizer, "enrol", None)
    if enrolled and enrol is not None:
        enrol(dict(enrolled))
    return recognizer


def disabled() -> bool:
    """True when ``$VOICEHOST_HELPER`` is ``off``."""
    return os.environ.get(ENV_VAR, "").strip().lower() == "off"


def _start(build: Callable[[], Recognizer]) -> None:
    """The helper process's start: it never prints (a failure is told to the listener by
    :func:`_ready`) and leaves Ctrl-C to the listener's process, which stops it."""
    global _recognizer, _failure
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # stoppable even when started by a process ignoring it
    try:  # the helper only ever takes spare time: audio, speech and the listener itself come first
        os.nice(NICE)
    except OSError:
        pass
    try:
        _recognizer = build()
    except Exception as error:  # any failure to build: the listener goes on alone
        _failure = _reason(error)


def _ready() -> str:
    if _recognizer is None:
        raise RuntimeError(_failure or "no recogniser")
    return str(getattr(_recognizer, "description", _recognizer.name))


def _recognise(segment: Segment, phrases: Sequence[str], likely: Sequence[str]) -> Recognition:
    if _recognizer is None:
        raise RuntimeError(_failure or "no recogniser")
    if likely:
        return _recognizer.recognize(segment, phrases, likely)
    return _recognizer.recognize(segment, phrases)


def _second_parts(segment: Segment, phrases: Sequence[str]) -> object:
    if _recognizer is None:
        raise RuntimeError(_failure or "no recogniser")
    parts = getattr(_recognizer, "second_parts", None)
    return parts(segment, phrases) if parts is not None else None


class Helper:
    """One recogniser in a separate process, built there by ``build`` (a picklable callable:
    a module-level function or a :func:`functools.partial` of one)."""

    def __init__(self, build: Callable[[], Recognizer], patience: float = PATIENCE) -> None:
        self.failed: str | None = None
        """Why the helper stopped (None while it works)."""
        self.patience = patience
        """Seconds the listener waits for one answer before it stops the helper and recognises
        the sound itself."""
        self.share_wait = SHARE_WAIT
        """Seconds the listener waits for the helper's share of a sound it recognises itself."""
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_start, initargs=(build,)
        )
        self._ready: Future[str] = self._pool.submit(_ready)

    def ready(self, timeout: float | None = None) -> bool:
        """Whether the helper has its models (waiting up to ``timeout`` seconds; None: until it
        has them or failed)."""
        if self._pool is None:
            return False
        try:
            self._ready.result(timeout)
        except TimeoutError:
            return False
        except Exception as error:  # the process died or its recogniser did not build
            self._fail(f"the helper recogniser did not start: {_reason(error, remote=True)}")
            return False
        return True

    def submit(
        self, segment: Segment, phrases: Sequence[str], likely: Sequence[str] = ()
    ) -> Future[Recognition] | None:
        """Recognise ``segment`` in the helper process; None while it is still loading its models,
        or after it failed (the caller recognises the segment itself)."""
        return self._send(_recognise, segment, tuple(phrases), tuple(likely))

    def second_parts(self, segment: Segment, phrases: Sequence[str]) -> Future[object] | None:
        """Decode PocketSphinx's share of a sound the listener recognises itself (its hypothesis
        and phone loop: ``WhisperRecognizer.second_parts``) while the listener's Whisper works on
        it; None as :meth:`submit`."""
        return self._send(_second_parts, segment, tuple(phrases))

    def _send(self, work: Callable[..., T], *args: object) -> Future[T] | None:
        """``work(*args)`` in the helper process; None while it loads its models or after it failed."""
        if self._pool is None or not self.ready(0):
            return None
        try:
            return self._pool.submit(work, *args)
        except Exception as error:  # a broken pool refuses new work
            self._fail(f"the helper recogniser stopped: {_reason(error)}")
            return None

    def result(self, future: Future[T], wait: float | None = None) -> T | None:
        """The helper's answer, or None when it failed or took longer than :attr:`patience` (it is
        then not used again). ``wait``: seconds to wait instead, for work the caller can do itself
        as well; a helper that is only slower than that is not stopped."""
        if self._pool is None:  # it failed or was closed: what it had not answered is not waited for
            return None
        try:
            return future.result(self.patience if wait is None else wait)
        except TimeoutError:
            if wait is not None:
                return None
            self._fail(f"the helper recogniser stopped: no answer in {self.patience:g} s")
            return None
        except Exception as error:
            self._fail(f"the helper recogniser stopped: {_reason(error)}")
            return None

    def _fail(self, why: str) -> None:
        if self.failed is None:
            self.failed = why
        self.close()

    def close(self) -> None:
        """Stop the process now: its work is dropped, and a process still loading its models does
        not hold up the program's exit (Python waits for a pool's processes at exit)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        workers = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:  # SIGKILL: SIGTERM may be ignored (a parent's ignored signals are
            if worker.is_alive():  # inherited), and the helper keeps nothing worth saving
                worker.kill()


def _reason(error: BaseException, remote: bool = False) -> str:
    """One line for ``error`` (``remote``: raised by :func:`_ready` with the helper's own line)."""
    text = str(error).strip().splitlines()
    if remote and isinstance(error, RuntimeError) and text:
        return text[0]
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
