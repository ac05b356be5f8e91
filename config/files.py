"""Files written whole beside the one they replace, then renamed over it (an atomic replacement)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def staging_file(target: Path, *, prefix: str, suffix: str) -> Path:
    """A new empty file beside ``target`` (the same file system, so renaming it over ``target`` is atomic),
    with the permissions of ``target`` when it exists, else those of a file created as usual: ``mkstemp``
    makes its file 0600, and a replaced pack manifest or business database kept them."""
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    os.close(handle)
    if target.exists():
        mode = stat.S_IMODE(target.stat().st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(name, mode)
    return Path(name)
