"""A private PulseAudio daemon with virtual (null) sinks: a table without a sound card.

Used by the test suite and by anyone who wants to try voicehost's audio path on a machine
without sound hardware. It creates, in its own folder, so that several can run side by side:

- ``table``: a mono sink, the table speaker; its monitor records what the host said;
- ``mics``: an N-channel sink whose monitor is a virtual N-channel microphone (play a
  recorded session into ``vh_mics_play`` and voicehost hears it on ``vh_mics``);
- ``phones``: an N-channel sink, one channel per seat's private earphone;
- optionally a *virtual room* (:class:`RoomMic`): mono microphones that hear the table speaker
  after a chosen delay, each its own device, like USB headsets with different input latencies.

PortAudio (through ALSA's pulse plugin) sees them as the devices named in :data:`ALSA_DEVICES`.
Remixing is disabled, so channel k of a stream stays channel k of the sink.
The environment returned by :meth:`VirtualTable.env` must be in place *before* sounddevice is
imported (PortAudio reads it when it initialises), e.g. in a subprocess or at test-session start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.errors import AudioDeviceError

ALSA_DEVICES = {
    "vh_table": ("table", "table speaker (play)"),
    "vh_table_monitor": ("table.monitor", "what the table speaker played (record)"),
    "vh_mics": ("mics.monitor", "virtual multi-channel microphone (record)"),
    "vh_mics_play": ("mics", "feed the virtual microphones (play)"),
    "vh_phones": ("phones", "private earphones, one channel per seat (play)"),
    "vh_phones_monitor": ("phones.monitor", "what the earphones played (record)"),
}
"""ALSA device name → (PulseAudio sink/source, description)."""

_ALSA_MAPS = {
    1: "mono",
    2: "front-left,front-right",
    4: "front-left,front-right,rear-left,rear-right",
    6: "front-left,front-right,rear-left,rear-right,front-center,lfe",
    8: "front-left,front-right,rear-left,rear-right,front-center,lfe,side-left,side-right",
}
"""Channel maps ALSA's pulse plugin uses for N-channel streams (N in 1, 2, 4, 6, 8)."""


def channel_map(channels: int) -> str:
    """The sink channel map matching ALSA streams of ``channels`` channels (rounded up to 1/2/4/6/8)."""
    for n in sorted(_ALSA_MAPS):
        if channels <= n:
            return _ALSA_MAPS[n]
    raise AudioDeviceError(f"virtual devices support up to 8 channels, not {channels}")


def sink_channels(channels: int) -> int:
    """Channel count of the sink that serves ``channels`` seats."""
    return len(channel_map(channels).split(","))


@dataclass(frozen=True)
class RoomMic:
    """A virtual microphone in the virtual room: it hears the table speaker after ``delay``.

    Each room microphone is its own recording device ``vh_NAME`` (mono), fed by a PulseAudio
    loopback from the table speaker's monitor; ``vh_NAME_play`` plays straight into it (a player
    talking into that microphone). All room microphones are also the channels of one device,
    ``vh_room``, in the order given: recorded as one stream it shows their true relative delays.

    The loopback adds its own buffering, so the absolute delay is only roughly ``delay`` (and
    settles by a millisecond or two over the first seconds, alike for every room microphone);
    the *difference* between two room microphones matches the difference of their ``delay`` to
    within 0.1 ms (measured on PulseAudio 16.1), which is what latency calibration needs.
    """

    name: str
    """Short name: letters, digits and '_' (the devices are vh_NAME and vh_NAME_play)."""
    delay: float
    """Seconds from the table speaker to this microphone (the loopback's latency)."""


MAX_ROOM_MICS = 8
"""The room sink has one channel per microphone, at most 8 (the ALSA channel maps above)."""


@dataclass
class VirtualTable:
    """A running private PulseAudio daemon; use as a context manager."""

    root: Path
    """Folder for the socket, configuration and log (created)."""
    seats: int = 4
    """Channels of the 'mics' and 'phones' sinks (rounded up to 1, 2, 4, 6 or 8)."""
    rate: int = 48000
    """Sample rate of the sinks, Hz."""
    room: tuple[RoomMic, ...] = ()
    """Microphones of the virtual room (none by default)."""
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def socket(self) -> Path:
        """The daemon's native-protocol socket."""
        return self.root / "native"

    def env(self) -> dict[str, str]:
        """Environment variables that point PulseAudio clients and ALSA at this daemon."""
        return {
            "PULSE_SERVER": f"unix:{self.socket}",
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "XDG_RUNTIME_DIR": str(self.root / "run"),
        }

    def start(self, timeout: float = 15.0) -> "VirtualTable":
        """Write the configuration, start the daemon and wait until it answers."""
        if not shutil.which("pulseaudio"):
            raise AudioDeviceError("pulseaudio is not installed; fix: sudo apt-get install pulseaudio pulseaudio-utils")
        self._write_config()
        env = {**os.environ, **self.env(), "PULSE_CONFIG": str(self.root / "config/pulse/daemon.conf")}
        args = [
            "pulseaudio",
            "-n",
            "-F",
            str(self.root / "table.pa"),
            "--daemonize=no",
            "--use-pid-file=no",
            "--exit-idle-time=-1",
            f"--log-target=file:{self.root / 'pulse.log'}",
        ]
        self.process = subprocess.Popen(
            args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AudioDeviceError(
                    f"pulseaudio exited with status {self.process.returncode}; see {self.root / 'pulse.log'}"
                )
            if self._answers(env):
                return self
            time.sleep(0.05)
        self.stop()
        raise AudioDeviceError(f"pulseaudio did not answer within {timeout:.0f} s; see {self.root / 'pulse.log'}")

    def stop(self) -> None:
        """Stop the daemon (waits at most a few seconds)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.process = None

    def __enter__(self) -> "VirtualTable":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answers(self, env: dict[str, str]) -> bool:
        if not self.socket.exists():
            return False
        result = subprocess.run(["pactl", "info"], env=env, capture_output=True, timeout=5)
        return result.returncode == 0

    @property
    def devices(self) -> dict[str, tuple[str, str]]:
        """ALSA device name → (PulseAudio sink/source, description), room microphones included."""
        devices = dict(ALSA_DEVICES)
        if self.room:
            devices["vh_room"] = ("room.monitor", "every room microphone as one device (record)")
        for mic in self.room:
            devices[f"vh_{mic.name}"] = (f"room_{mic.name}", f"room microphone {mic.name} (record)")
            devices[f"vh_{mic.name}_play"] = (f"room_{mic.name}_in", f"talk into room microphone {mic.name} (play)")
        return devices

    def _check_room(self) -> None:
        names = [mic.name for mic in self.room]
        if len(names) > MAX_ROOM_MICS:
            raise AudioDeviceError(f"a virtual room has at most {MAX_ROOM_MICS} microphones, not {len(names)}")
        if len(set(names)) != len(names):
            raise AudioDeviceError(f"room microphone names must differ: {', '.join(names)}")
        for mic in self.room:
            if not mic.name.replace("_", "").isalnum() or not mic.name.isascii():
                raise AudioDeviceError(f"room microphone name {mic.name!r}: use letters, digits and '_'")
            if not 0.001 <= mic.delay <= 2.0:
                raise AudioDeviceError(f"room microphone {mic.name}: delay {mic.delay} s is outside 0.001 to 2 s")

    def _room_modules(self) -> str:
        """The room sink (one channel per microphone), and per microphone: a mono sink feeding
        its channel, a loopback from the table's monitor into it, and a mono source reading it."""
        if not self.room:
            return ""
        positions = channel_map(len(self.room)).split(",")
        lines = [
            f"load-module module-null-sink sink_name=room rate={self.rate} channels={len(positions)} "
            f"channel_map={','.join(positions)} sink_properties=device.description=voicehost-room\n"
        ]
        for mic, position in zip(self.room, positions):
            lines.append(
                f"load-module module-remap-sink sink_name=room_{mic.name}_in master=room channels=1 "
                f"channel_map=mono master_channel_map={position} remix=no\n"
                f"load-module module-loopback source=table.monitor sink=room_{mic.name}_in "
                f"latency_msec={mic.delay * 1000:.0f} source_dont_move=true sink_dont_move=true\n"
                f"load-module module-remap-source source_name=room_{mic.name} master=room.monitor channels=1 "
                f"channel_map=mono master_channel_map={position} remix=no\n"
            )
        return "".join(lines)

    def _write_config(self) -> None:
        self._check_room()
        for sub in ("config/pulse", "config/alsa", "run"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        n = sink_channels(self.seats)
        cmap = channel_map(self.seats)
        (self.root / "table.pa").write_text(
            (
                f"load-module module-native-protocol-unix auth-anonymous=1 socket={self.socket}\n"
                f"load-module module-null-sink sink_name=table rate={self.rate} channels=1 channel_map=mono "
                "sink_properties=device.description=voicehost-table\n"
                f"load-module module-null-sink sink_name=mics rate={self.rate} channels={n} channel_map={cmap} "
                "sink_properties=device.description=voicehost-mics\n"
                f"load-module module-null-sink sink_name=phones rate={self.rate} channels={n} channel_map={cmap} "
                "sink_properties=device.description=voicehost-phones\n"
            )
            + self._room_modules()
            + "set-default-sink table\n"
            "set-default-source mics.monitor\n"
        )
        (self.root / "config/pulse/daemon.conf").write_text(
            "enable-remixing = no\nremixing-use-all-sink-channels = no\nflat-volumes = no\n"
            f"default-sample-rate = {self.rate}\nexit-idle-time = -1\n"
        )
        (self.root / "config/alsa/asoundrc").write_text(
            "".join(
                f'pcm.{name} {{ type pulse; device "{target}"; hint {{ show on; description "voicehost {desc}" }} }}\n'
                for name, (target, desc) in self.devices.items()
            )
        )
