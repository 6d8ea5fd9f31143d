#!/usr/bin/env python3
"""Refresh the window's translation source from the code: pyside6-lupdate over ui/desk/.

    .venv/bin/python tools/update_translations.py            # update desk_en.ts in place
    .venv/bin/python tools/update_translations.py --ts OUT   # write another .ts (tests)

Spanish is the source language (``self.tr("...")``, ``QCoreApplication.translate``);
new strings arrive in ``resources/i18n/desk_en.ts`` as unfinished entries for a person
to translate (Qt Linguist: ``.venv/bin/pyside6-linguist resources/i18n/desk_en.ts``),
strings no longer in the code are dropped. The set-up compiles the .ts into its .qm.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "resources" / "i18n" / "desk_en.ts"
DESK = ROOT / "ui" / "desk"  # ui/cli/ speaks JSON and the catalogue, not Qt


def sources() -> list[Path]:
    """Every Python file of the window (ui/desk/; the command line is its sibling)."""
    return [p for p in sorted(DESK.rglob("*.py")) if "__pycache__" not in p.parts]


def lupdate() -> list[str]:
    import PySide6

    folder = Path(PySide6.__file__).resolve().parent
    for candidate in (folder / "lupdate", folder / "lupdate.exe"):
        if candidate.is_file():
            return [str(candidate)]
    script = Path(sys.executable).parent / "pyside6-lupdate"
    if script.is_file():
        return [str(script)]
    raise SystemExit("pyside6-lupdate not found: run tools/bootstrap.py first")


def update(ts: Path) -> None:
    ts.parent.mkdir(parents=True, exist_ok=True)
    files = [str(p) for p in sources()]
    cmd = [*lupdate(), "-silent", "-no-obsolete", "-locations", "none"]
    cmd += ["-source-language", "es_ES", "-target-language", "en_GB", *files, "-ts", str(ts)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"lupdate failed: {done.stderr.strip()[-500:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ts", type=Path, default=TS, help="the .ts file to write")
    update(parser.parse_args(argv).ts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
