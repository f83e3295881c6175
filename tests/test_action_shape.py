"""One shape for actions (issue 15): in every game, ``t`` is each action's last field, required and
keyword-only (see the docstring of ``voicehost.rules.base.Game``)."""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

import pytest

from voicehost.rules.bam import actions as bam_actions
from voicehost.rules.bimbambum import actions as bimbambum_actions
from voicehost.rules.bimbamm import actions as bimbamm_actions

ACTIONS = [
    (module.__name__.split(".")[2], cls)
    for module in (bimbamm_actions, bimbambum_actions, bam_actions)
    for cls in get_args(module.Action)
]


def test_every_game_lists_its_actions() -> None:
    assert {game for game, _ in ACTIONS} == {"bimbamm", "bimbambum", "bam"}
    assert len(ACTIONS) == 9 + 5 + 4


@pytest.mark.parametrize(("game", "cls"), ACTIONS, ids=[f"{g}.{c.__name__}" for g, c in ACTIONS])
def test_t_is_the_last_field_required_and_keyword_only(game: str, cls: Any) -> None:
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    last = dataclasses.fields(cls)[-1]
    assert last.name == "t" and last.type in ("float", float)
    assert last.kw_only is True
    assert last.default is dataclasses.MISSING and last.default_factory is dataclasses.MISSING
    assert [f.name for f in dataclasses.fields(cls)].count("t") == 1
    with pytest.raises(TypeError):
        cls(*[None] * (len(dataclasses.fields(cls)) - 1))  # no t: refused
