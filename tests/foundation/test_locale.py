"""The interface catalogues under locale/: the Chinese one translates every string, and the compiled .mo
files shipped beside the .po files are what those .po files compile to (nobody forgot `make messages`)."""

from __future__ import annotations

import gettext
import subprocess

import pytest

from tests.conftest import ROOT
from tests.services import require

LOCALE = ROOT / "locale"
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def test_it_ships_english_and_chinese_for_the_templates_and_the_scripts():
    assert {str(path.relative_to(LOCALE)) for path in CATALOGUES} == {
        "en/LC_MESSAGES/django.po",
        "en/LC_MESSAGES/djangojs.po",
        "zh_Hans/LC_MESSAGES/django.po",
        "zh_Hans/LC_MESSAGES/djangojs.po",
    }


@pytest.mark.parametrize("po", [path for path in CATALOGUES if "zh_Hans" in path.parts], ids=lambda path: path.name)
def test_the_chinese_catalogues_translate_every_string(po):
    require("gettext")

    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po)], capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
    assert "untranslated" not in result.stderr and "fuzzy" not in result.stderr, result.stderr


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: f"{path.parts[-3]}-{path.name}")
def test_the_shipped_mo_is_the_compiled_po(po, tmp_path):
    require("gettext")
    compiled = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(po)], check=True)

    with compiled.open("rb") as fresh, po.with_suffix(".mo").open("rb") as shipped:
        assert gettext.GNUTranslations(shipped)._catalog == gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
