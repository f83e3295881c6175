"""The table config: loading, validation with file/line/field, atomic saving, device checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.audio.devices import DeviceInfo
from voicehost.host.table import (
    PHONE,
    Channel,
    Seat,
    Table,
    TableDeviceError,
    TableError,
    check_devices,
    dumps_table,
    load_table,
    match_device,
    parse_table,
    save_table,
)

GOOD = """\
[table]
speaker = "vh_table"

[[seat]]
name = "Anna"
input = { device = "vh_mics", channel = 1 }
output = { device = "vh_phones", channel = 1 }
latency = 0.0

[[seat]]
name = "Ben"
input = { device = "vh_mics", channel = 2 }
output = { device = "vh_phones", channel = 2 }

[[seat]]
name = "Cem"
latency = 0.0125
[seat.input]
device = 4
channel = 1
"""


def devices(*specs: tuple[str, int, int]) -> list[DeviceInfo]:
    """A device list as PortAudio would give it: (name, input channels, output channels)."""
    return [DeviceInfo(i, name, "ALSA", ins, outs, 48000.0) for i, (name, ins, outs) in enumerate(specs)]


MACHINE = devices(
    ("vh_table", 0, 1), ("vh_mics", 8, 0), ("vh_phones", 0, 8), ("USB headset A", 1, 2), ("USB headset B", 1, 2)
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_the_documented_layout(tmp_path: Path) -> None:
    """The documented example loads: seats in order, inline and sub-table channels, default latency 0."""
    table = load_table(write(tmp_path, GOOD))
    assert table.speaker == "vh_table"
    assert table.names == ("Anna", "Ben", "Cem")
    assert table.seats[0] == Seat("Anna", Channel("vh_mics", 1), Channel("vh_phones", 1), 0.0)
    assert table.seats[1].latency == 0.0
    assert table.seats[2].input == Channel(4, 1) and table.seats[2].output is None
    assert table.seats[2].latency == pytest.approx(0.0125)
    assert table.source == tmp_path / "table.toml"


def test_input_devices_group_seats_for_one_stream_each(tmp_path: Path) -> None:
    """Seats are grouped by input device in order of first use (one sounddevice stream per device)."""
    table = load_table(write(tmp_path, GOOD))
    groups = table.input_devices
    assert list(groups) == ["vh_mics", 4]
    assert [s.name for s in groups["vh_mics"]] == ["Anna", "Ben"]
    inputs = table.live_inputs()
    assert [(i.device, i.seats, i.channel_of()) for i in inputs] == [
        ("vh_mics", ("Anna", "Ben"), (0, 1)),
        (4, ("Cem",), (0,)),
    ]


def test_private_outputs_only_when_every_seat_has_an_earphone(tmp_path: Path) -> None:
    """Private cards need an earphone for every seat; one seat without makes it table-cards mode."""
    table = load_table(write(tmp_path, GOOD))
    assert not table.private_outputs
    everyone = Table(None, tuple(Seat(s.name, s.input, Channel("vh_phones", k)) for k, s in enumerate(table.seats, 1)))
    assert everyone.private_outputs


def test_single_microphone_when_every_seat_shares_one_channel() -> None:
    """All seats on one channel is the single-microphone table; a shared pair is reported as such."""
    one = Channel("USB mic", 1)
    single = Table(None, (Seat("A", one), Seat("B", one), Seat("C", one)))
    assert single.single_microphone
    assert [tuple(s.name for s in g) for g in single.shared_inputs] == [("A", "B", "C")]
    mixed = Table(None, (Seat("A", one), Seat("B", one), Seat("C", Channel("USB mic", 2))))
    assert not mixed.single_microphone
    assert [tuple(s.name for s in g) for g in mixed.shared_inputs] == [("A", "B")]


def test_seat_lookup_ignores_case_and_names_the_table(tmp_path: Path) -> None:
    """table.seat('anna') finds Anna; an unknown name is a one-line error naming the file."""
    table = load_table(write(tmp_path, GOOD))
    assert table.seat("anna").name == "Anna"
    with pytest.raises(TableError, match=r"table.toml: 'Dora' has no seat"):
        table.seat("Dora")


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    """A saved table loads back equal, including names needing escapes and index devices."""
    table = Table(
        5,
        (
            Seat('Zoë "Z"', Channel("USB headset A", 1), Channel("USB headset A", 2), 0.0),
            Seat("Ben\\Jr", Channel(7, 3), None, 0.023456789),
        ),
    )
    path = save_table(table, tmp_path / "out.toml")
    loaded = load_table(path)
    assert loaded.speaker == 5
    assert loaded.seats[0] == table.seats[0]
    assert loaded.seats[1].input == Channel(7, 3)
    assert loaded.seats[1].latency == pytest.approx(0.02346, abs=1e-5)
    assert not list(tmp_path.glob(".*.part"))


def test_save_without_speaker_leaves_the_default(tmp_path: Path) -> None:
    """A table without a speaker saves as a comment and loads back as the default output (None)."""
    table = Table(None, (Seat("Anna", Channel("vh_mics", 1)),))
    text = dumps_table(table)
    assert "# speaker" in text
    assert parse_table(text) == table


def test_save_replaces_atomically_and_refuses_bad_folders(tmp_path: Path) -> None:
    """Saving over an existing file replaces it whole; a missing folder is a clear error."""
    path = write(tmp_path, GOOD)
    save_table(Table(None, (Seat("Dora", Channel("vh_mics", 5)),)), path)
    assert load_table(path).names == ("Dora",)
    with pytest.raises(Exception, match="does not exist"):
        save_table(Table(None, (Seat("Dora", Channel("vh_mics", 5)),)), tmp_path / "nope" / "t.toml")


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ("channel = 2 }\noutput", "channel = 0 }\noutput"),
            r"table.toml:12: seat 2 input.channel: must be a whole number from 1",
        ),
        (
            ("channel = 2 }\noutput", "channel = true }\noutput"),
            r"table.toml:12: seat 2 input.channel: must be a whole number",
        ),
        (("channel = 2 }\n\n", "channel = 2 }\n\n[[seat]]\nname = 'X'\n\n"), r"table.toml:15: seat 3: has no input"),
        (("latency = 0.0125", "latency = 12.5"), r"table.toml:17: seat 3 latency: 12.5 s is too large: write seconds"),
        (("latency = 0.0125", "latency = -0.01"), r"table.toml:17: seat 3 latency: -0.01 s is negative"),
        (("latency = 0.0125", "latency = 'soon'"), r"table.toml:17: seat 3 latency: must be a number of seconds"),
        (('name = "Ben"', 'name = "anna"'), r"table.toml:11: seat 2 name: 'anna' already sits at seat 1"),
        (('name = "Ben"', 'name = "Ben: the tall"'), r"table.toml:11: seat 2 name: .*cannot contain"),
        (('name = "Ben"', 'name = ""'), r"table.toml:11: seat 2 name: must be the player's name"),
        (('name = "Ben"', 'nmae = "Ben"'), r"table.toml:11: seat 2 nmae: unknown field"),
        (("[table]", "[tabel]"), r"table.toml:1: unknown section 'tabel'"),
        (("[table]", '[["]"]]'), r"table.toml:1: unknown section '\]'"),  # crashed (IndexError) until 2026-12-02
        (('speaker = "vh_table"', "speakers = 1"), r"table.toml:2: \[table\] speakers: unknown field"),
        (('speaker = "vh_table"', "speaker = -1"), r"table.toml:2: \[table\] speaker: device index -1 is negative"),
        (
            ('{ device = "vh_mics", channel = 1 }', '{ devise = "vh_mics", channel = 1 }'),
            r"table.toml:6: seat 1 input.devise: unknown field",
        ),
        (('{ device = "vh_mics", channel = 1 }', "{ channel = 1 }"), r"table.toml:6: seat 1 input: has no device"),
        (('{ device = "vh_mics", channel = 1 }', '"vh_mics"'), r"table.toml:6: seat 1 input: must look like"),
        (
            ('output = { device = "vh_phones", channel = 2 }', 'output = { device = "vh_phones", channel = 1 }'),
            r"table.toml:13: seat 2 output: vh_phones channel 1 is already seat 1's earphone",
        ),
        (("device = 4", "device = 4.5"), r"table.toml:19: seat 3 input.device: must be a device index or name"),
        (('name = "Cem"', 'name = "Cem"\nname = "Dora"'), r"table.toml:17: not valid TOML"),
    ],
)
def test_bad_configs_name_file_line_and_field(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    """Each mistake is one TableError naming the file, the line and the field, with what is wrong."""
    old, new = change
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    with pytest.raises(TableError, match=message):
        load_table(write(tmp_path, text))


def test_table_without_seats_is_refused(tmp_path: Path) -> None:
    """A config with no [[seat]] says to add one per player."""
    with pytest.raises(TableError, match=r"no seats: add a \[\[seat\]\] section"):
        load_table(write(tmp_path, "[table]\nspeaker = 1\n"))


def test_missing_or_unreadable_file_is_one_clear_error(tmp_path: Path) -> None:
    """A missing file suggests setup-table; a folder or binary file is refused plainly."""
    with pytest.raises(TableError, match="no such file.*setup-table"):
        load_table(tmp_path / "none.toml")
    with pytest.raises(TableError, match="is a folder"):
        load_table(tmp_path)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(TableError, match="UTF-8"):
        load_table(binary)


def test_check_devices_accepts_a_machine_that_has_everything(tmp_path: Path) -> None:
    """Every device and channel present: no error; Cem on a second device without latency is fine (0.0125 set)."""
    table = load_table(write(tmp_path, GOOD.replace("device = 4", 'device = "headset A"')))
    assert check_devices(table, MACHINE) == []


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ('device = "vh_mics", channel = 1', 'device = "vh_mic_x", channel = 1'),
            r"Anna's microphone: no input device matches 'vh_mic_x' \(available: 1: vh_mics",
        ),
        (
            ('device = "vh_mics", channel = 2', 'device = "vh_mics", channel = 9'),
            r"Ben's microphone: 'vh_mics' has 8 input channel\(s\); channel 9 does not exist",
        ),
        (
            ('device = "vh_phones", channel = 2', 'device = "vh_phones", channel = 12'),
            r"Ben's earphone: 'vh_phones' has 8 output channel\(s\); channel 12 does not exist",
        ),
        (('speaker = "vh_table"', 'speaker = "hdmi"'), r"table speaker: no output device matches 'hdmi'"),
        (
            ("device = 4", 'device = "headset"'),
            r"Cem's microphone: input device 'headset' is ambiguous: USB headset A, USB headset B",
        ),
        (("device = 4", "device = 1"), r"Cem's microphone: 1 and 'vh_mics' \(Anna's\) are the same device 'vh_mics'"),
    ],
)
def test_check_devices_refuses_what_cannot_work(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    """Unknown/ambiguous devices, channels beyond the device, one device named two ways:
    TableDeviceError naming the seat."""
    table = load_table(write(tmp_path, GOOD.replace(*change, 1)))
    with pytest.raises(TableDeviceError, match=message):
        check_devices(table, MACHINE)


def test_check_devices_warns_about_a_single_microphone() -> None:
    """All players on one channel works, with a warning saying races cannot be ranked."""
    one = Channel("USB headset A", 1)
    warnings = check_devices(Table(None, (Seat("A", one), Seat("B", one))), MACHINE)
    assert len(warnings) == 1
    assert "single microphone" in warnings[0] and "who shouted first" in warnings[0]


def test_check_devices_warns_about_shared_channels_and_unmeasured_latency() -> None:
    """Two of three sharing a channel, and seats on two devices with no latency: one warning each."""
    a, b = Channel("USB headset A", 1), Channel("USB headset B", 1)
    warnings = check_devices(Table(None, (Seat("A", a), Seat("B", a), Seat("C", b))), MACHINE)
    assert any("A and B share USB headset A channel 1" in w for w in warnings)
    assert any("2 input devices but no latencies" in w and "setup-table" in w for w in warnings)


def test_check_devices_warns_when_one_device_has_two_latencies() -> None:
    """Channels of one device share a clock: different latencies on them are flagged."""
    table = Table(None, (Seat("A", Channel("vh_mics", 1), None, 0.0), Seat("B", Channel("vh_mics", 2), None, 0.004)))
    warnings = check_devices(table, MACHINE)
    assert any("different latencies" in w and "B 4.0 ms" in w for w in warnings)


def test_match_device_prefers_exact_names_and_indexes() -> None:
    """'vh_table' matches exactly even though 'vh_table_monitor' contains it; '3' is an index."""
    machine = devices(("vh_table", 0, 1), ("vh_table_monitor", 1, 0), ("vh_table_x", 0, 1), ("USB", 1, 1))
    assert match_device("vh_table", machine, output=True).index == 0
    assert match_device("3", machine, output=False).name == "USB"
    with pytest.raises(TableDeviceError, match="ambiguous"):
        match_device("table", machine, output=True)


PHONES = """\
[table]
speaker = "vh_table"

[[seat]]
name = "Anna"
input = { device = "vh_mics", channel = 1 }

[[seat]]
name = "Ben"
input = "phone"

[[seat]]
name = "Cem"
input = "Phone"
"""


def test_phone_seats_load_and_save(tmp_path: Path) -> None:
    """input = "phone" (any case) seats a player on their phone: no channel, a private ear, saved back as written."""
    table = load_table(write(tmp_path, PHONES))
    assert [(s.name, s.by_phone) for s in table.seats] == [("Anna", False), ("Ben", True), ("Cem", True)]
    assert table.seats[1] == Seat("Ben", PHONE)
    assert [s.name for s in table.phone_seats] == ["Ben", "Cem"]
    assert [s.name for s in table.microphone_seats] == ["Anna"]
    assert list(table.input_devices) == ["vh_mics"]
    assert [i.seats for i in table.live_inputs()] == [("Anna",)]
    assert not table.single_microphone and not table.private_outputs
    with pytest.raises(TableError, match="Ben joins by phone"):
        table.seat("Ben").channel
    text = dumps_table(table)
    assert 'name = "Ben"\ninput = "phone"\n' in text
    assert parse_table(text) == table
    everyone = Table(None, (Seat("Anna", Channel("vh_mics", 1), Channel("vh_phones", 1)), Seat("Ben", PHONE)))
    assert everyone.private_outputs


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ('input = "phone"', 'input = "phone"\noutput = { device = "vh_phones", channel = 2 }'),
            r"table.toml:11: seat 2 output: a player on a phone hears their private lines on the phone: remove output",
        ),
        (
            ('input = "phone"', 'input = "phone"\nlatency = 0.02'),
            r"table.toml:11: seat 2 latency: a phone's delay is measured with clicks at every game: remove latency",
        ),
        (
            ('input = "phone"', 'input = "mobile"'),
            r"table.toml:10: seat 2 input: must look like \{ device = \"vh_mics\", channel = 1 \} "
            r"or be \"phone\" .*not 'mobile'",
        ),
        (('input = "phone"', "input = true"), r"table.toml:10: seat 2 input: must look like .* or be \"phone\""),
        (('input = "phone"', "input = { phone = true }"), r"table.toml:10: seat 2 input.phone: unknown field"),
        (
            ('name = "Cem"\ninput = "Phone"', 'name = "ben"\ninput = "phone"'),
            r"table.toml:13: seat 3 name: 'ben' already sits at seat 2",
        ),
    ],
)
def test_bad_phone_seats_name_file_line_and_field(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    """A phone seat with an earphone, a latency or a misspelt input is one TableError naming file, line and field."""
    old, new = change
    assert old in PHONES
    with pytest.raises(TableError, match=message):
        load_table(write(tmp_path, PHONES.replace(old, new, 1)))


def test_check_devices_passes_over_phone_seats(tmp_path: Path) -> None:
    """Phone seats need no device here; a lone microphone seat among phones is not a 'single microphone'."""
    table = load_table(write(tmp_path, PHONES))
    assert check_devices(table, MACHINE) == []
    two = Table(
        None,
        (Seat("A", Channel("USB headset A", 1)), Seat("B", Channel("USB headset B", 1), None, 0.003), Seat("C", PHONE)),
    )
    assert check_devices(two, MACHINE) == []
