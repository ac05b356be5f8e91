"""Rendering a pack's SQLite business.sql for MySQL, and loading it into MariaDB as an administrator."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace

import MySQLdb
import pytest

from tests.services import TEST_BUSINESS_DATABASE, require
from tests.tools.conftest import TINY_PACK
from tools.scenarios.loader import build_business_sqlite
from tools.scenarios.mysql_business import load_business_into_mysql, mysql_statements
from tools.scenarios.pack import PACKS_DIR, PackError, SqlStatement, read_pack, shipped_pack_names

DATABASE = TEST_BUSINESS_DATABASE
ADMIN_URL = f"mysql://root@127.0.0.1:3306/{DATABASE}"


def test_it_widens_text_keys_and_numbers_integer_primary_keys():
    statements = dict(mysql_statements(read_pack(TINY_PACK)))

    assert statements[2].startswith("CREATE TABLE deploys (version VARCHAR(255) PRIMARY KEY, service TEXT NOT NULL")
    assert statements[8].startswith(
        "CREATE TABLE orders (id INT PRIMARY KEY AUTO_INCREMENT, order_no VARCHAR(255) NOT NULL UNIQUE, "
        "status VARCHAR(255) NOT NULL, amount DECIMAL(10, 2), created_at TEXT NOT NULL)"
    )
    assert statements[15] == "CREATE INDEX orders_status ON orders(status)"


def test_it_keeps_the_line_of_every_statement():
    assert [line for line, _ in mysql_statements(read_pack(TINY_PACK))] == [2, 8, 15, 17, 18, 19]


def test_it_names_the_line_of_a_statement_it_cannot_render():
    pack = read_pack(TINY_PACK)
    # SQLite would have refused this already; sqlglot must still fail with the line, not a traceback.
    broken = replace(pack, statements=[*pack.statements, SqlStatement(30, "SELECT 'unterminated")])

    with pytest.raises(PackError) as raised:
        mysql_statements(broken)

    assert (raised.value.file, raised.value.line) == (TINY_PACK / "business.sql", 30)
    assert raised.value.message.startswith("cannot read the statement")


def test_it_renders_only_statements_the_pack_check_accepts():
    pack = read_pack(TINY_PACK)
    # A pack changed after read_pack: the MySQL load checks again rather than trusting it.
    tampered = replace(pack, statements=[*pack.statements, SqlStatement(31, "DROP TABLE auth_user;")])

    with pytest.raises(PackError) as raised:
        mysql_statements(tampered)

    assert (raised.value.line, raised.value.message) == (
        31,
        "only CREATE TABLE, CREATE INDEX and INSERT statements are allowed, not DROP",
    )


def table_rows(cursor, table: str) -> int:
    cursor.execute(f"SELECT COUNT(*) FROM `{table}`")
    return cursor.fetchone()[0]


@pytest.mark.service
@pytest.mark.parametrize(
    "pack_root", [TINY_PACK, *(PACKS_DIR / name for name in shipped_pack_names())], ids=lambda path: path.name
)
def test_it_loads_every_pack_into_mariadb_with_the_rows_of_sqlite(pack_root, tmp_path):
    require("mariadb")
    pack = read_pack(pack_root)
    embedded = tmp_path / "business.sqlite3"
    build_business_sqlite(pack, embedded)

    load_business_into_mysql(pack, ADMIN_URL)

    with (
        closing(MySQLdb.connect(host="127.0.0.1", user="root", database=DATABASE)) as mariadb,
        closing(sqlite3.connect(embedded)) as sqlite,
    ):
        cursor = mariadb.cursor()
        for table in pack.business_tables:
            assert table_rows(cursor, table) == table_rows(sqlite.cursor(), table), table


@pytest.mark.service
def test_it_drops_only_the_tables_the_pack_creates(tiny_pack):
    require("mariadb")
    # A pack table whose name, quoted carelessly, would also name the bystander in the DROP.
    (tiny_pack / "business.sql").write_text('CREATE TABLE "odd`, `bystander" (id INTEGER);\n')
    with closing(MySQLdb.connect(host="127.0.0.1", user="root", database=DATABASE)) as mariadb:
        cursor = mariadb.cursor()
        cursor.execute("CREATE TABLE IF NOT EXISTS bystander (id INT)")
        try:
            load_business_into_mysql(read_pack(tiny_pack), ADMIN_URL)

            cursor.execute("SHOW TABLES LIKE '%bystander'")
            assert sorted(name for (name,) in cursor.fetchall()) == ["bystander", "odd`, `bystander"]
        finally:
            cursor.execute("DROP TABLE IF EXISTS bystander, `odd``, ``bystander`")


@pytest.mark.service
def test_it_names_the_line_mariadb_refuses_and_leaves_the_live_tables_as_they_were(tiny_pack):
    require("mariadb")
    load_business_into_mysql(read_pack(TINY_PACK), ADMIN_URL)
    live = live_tables()
    sql = tiny_pack / "business.sql"
    # Distinct keys to SQLite (binary comparison), one key to MariaDB's case-insensitive collation.
    sql.write_text(sql.read_text() + "\nINSERT INTO deploys VALUES ('V2.3.1', 'checkout-service', 'now', 'upper');\n")
    pack = read_pack(tiny_pack)

    with pytest.raises(PackError) as raised:
        load_business_into_mysql(pack, ADMIN_URL)

    assert "Duplicate entry 'V2.3.1'" in raised.value.message
    assert sql.read_text().splitlines()[raised.value.line - 1].startswith("INSERT INTO deploys VALUES ('V2.3.1'")
    # Loaded aside, never swapped in: the tables and rows of the load before, and nothing left aside.
    assert live_tables() == live


@pytest.mark.service
def test_a_load_replaces_the_tables_at_once_and_leaves_nothing_aside(tiny_pack):
    require("mariadb")
    load_business_into_mysql(read_pack(TINY_PACK), ADMIN_URL)
    sql = tiny_pack / "business.sql"
    sql.write_text(sql.read_text() + "\nINSERT INTO deploys VALUES ('v9.9.9', 'checkout-service', 'now', 'new');\n")

    load_business_into_mysql(read_pack(tiny_pack), ADMIN_URL)

    tables = live_tables()
    assert tables["deploys"] == live_tables_of(TINY_PACK)["deploys"] + 1
    assert not [name for name in tables if name.startswith("superbiz_")]


def live_tables() -> dict[str, int]:
    """Every table of the test business database, with its row count."""
    with closing(MySQLdb.connect(host="127.0.0.1", user="root", database=DATABASE)) as mariadb:
        cursor = mariadb.cursor()
        cursor.execute("SHOW TABLES")
        return {name: table_rows(cursor, name) for (name,) in cursor.fetchall()}


def live_tables_of(pack_root) -> dict[str, int]:
    load_business_into_mysql(read_pack(pack_root), ADMIN_URL)
    return live_tables()


@pytest.mark.service
def test_a_live_table_named_in_another_case_is_another_table_and_stays(tiny_pack):
    """MariaDB on Linux keeps table names as written: ``Deploys`` is not the pack's ``deploys``."""
    require("mariadb")
    with closing(MySQLdb.connect(host="127.0.0.1", user="root", database=DATABASE)) as mariadb:
        cursor = mariadb.cursor()
        cursor.execute("DROP TABLE IF EXISTS deploys")
        cursor.execute("CREATE TABLE IF NOT EXISTS `Deploys` (id INT)")
        try:
            load_business_into_mysql(read_pack(TINY_PACK), ADMIN_URL)

            tables = live_tables()
            assert "Deploys" in tables and tables["deploys"] > 0
            assert not [name for name in tables if name.startswith("superbiz_")]
        finally:
            cursor.execute("DROP TABLE IF EXISTS `Deploys`")
