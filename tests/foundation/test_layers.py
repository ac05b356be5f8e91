"""The import contracts of ``.importlinter`` hold, and they would catch a break.

Apps depend one way, alerts → diagnosis → tracing → tools → config (the diagram opens docs/architecture.md); no
package or module imports itself through others; the run lifecycle is a chain (submission → dispatch →
task → execution → services); the graph runs without Django. import-linter and grimp
are development requirements (requirements-dev.txt).
"""

from __future__ import annotations

import copy
from pathlib import Path

import grimp
import pytest
from importlinter import api
from importlinter.application import use_cases
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".importlinter"
CONTRACT_TYPES = {"layers": LayersContract, "acyclic_siblings": AcyclicSiblingsContract, "forbidden": ForbiddenContract}


@pytest.fixture(scope="module")
def configuration() -> dict:
    return api.read_configuration(str(CONFIG))


@pytest.fixture(scope="module")
def import_graph(configuration) -> grimp.ImportGraph:
    """The graph exactly as import-linter builds it for these contracts (no cache written)."""
    options = configuration["session_options"]
    return grimp.build_graph(
        *options["root_packages"],
        include_external_packages=options.get("include_external_packages") == "True",
        exclude_type_checking_imports=options.get("exclude_type_checking_imports") == "True",
        cache_dir=None,
    )


def check(configuration: dict, contract_id: str, graph: grimp.ImportGraph) -> bool:
    """Whether the contract ``contract_id`` of ``.importlinter`` is kept on (a copy of: checking removes the
    ignored imports) ``graph``."""
    [options] = [c for c in configuration["contracts_options"] if c["id"] == contract_id]
    contract = CONTRACT_TYPES[options["type"]](options["name"], configuration["session_options"], options)
    return contract.check(copy.deepcopy(graph), verbose=False).kept


def test_every_import_contract_is_kept(capsys):
    passed = use_cases.lint_imports(config_filename=str(CONFIG), cache_dir=None, no_logo=True)

    report = capsys.readouterr().out
    assert passed is use_cases.SUCCESS, f"an import contract is broken (see docs/architecture.md):\n{report}"
    assert "0 broken" in report


def test_the_contracts_cover_the_layers_cycles_and_the_graph(configuration):
    contracts = {c["id"]: c for c in configuration["contracts_options"]}

    assert set(contracts) == {"layers", "acyclic", "lifecycle", "graph-without-django", "sqlite-process-stdlib"}
    assert contracts["layers"]["layers"] == ["alerts", "diagnosis", "tracing", "tools", "config"]
    assert contracts["lifecycle"]["layers"] == [
        f"diagnosis.{link}" for link in ("submission", "dispatch", "tasks", "execution", "services")
    ]
    assert sorted(contracts["acyclic"]["ancestors"]) == ["alerts", "config", "diagnosis", "tools", "tracing"]


def test_no_module_imports_itself_through_others(import_graph):
    """Stricter than the sibling contract: no cycle between modules at all, with nothing ignored."""
    cycles = [
        import_graph.find_shortest_chain(importer=imported, imported=importer)
        for importer in sorted(import_graph.modules)
        if not import_graph.is_module_squashed(importer)
        for imported in sorted(import_graph.find_modules_directly_imported_by(importer))
        if import_graph.chain_exists(importer=imported, imported=importer)
    ]

    assert cycles == []


@pytest.mark.parametrize(
    ("contract_id", "importer", "imported"),
    [
        ("layers", "config.urls", "diagnosis.views"),
        ("layers", "diagnosis.services", "alerts.receivers"),
        ("layers", "diagnosis.models", "alerts.models"),
        ("layers", "tools.models", "diagnosis.models"),
        ("layers", "tracing.admin", "diagnosis.selectors"),
        ("layers", "tools.admin", "tracing.admin"),
        ("acyclic", "diagnosis.services", "diagnosis.dispatch"),
        ("acyclic", "tools.registry", "tools.harness"),
        ("lifecycle", "diagnosis.services", "diagnosis.dispatch"),
        ("lifecycle", "diagnosis.progress", "diagnosis.submission"),
        ("graph-without-django", "diagnosis.graph.router", "django"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(configuration, import_graph, contract_id, importer, imported):
    broken = copy.deepcopy(import_graph)
    broken.add_import(importer=importer, imported=imported)

    assert check(configuration, contract_id, import_graph)
    assert not check(configuration, contract_id, broken)
