"""Files written whole beside the one they replace, then renamed over it (an atomic replacement)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def staging_file(folder: Path, *, prefix: str, suffix: str, like: Path | None = None) -> Path:
    """A new empty file in ``folder`` (the same file system as what it will replace, so the rename is
    atomic), with the permissions of ``like`` when that exists, else those of a file created as usual:
    ``mkstemp`` makes its file 0600, and a replaced pack manifest or business database kept them."""
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    os.close(handle)
    if like is not None and like.exists():
        mode = stat.S_IMODE(like.stat().st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(name, mode)
    return Path(name)
