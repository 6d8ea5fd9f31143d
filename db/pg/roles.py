"""Database roles of the visitor file on a PostgreSQL server (Decreto 58/2006, art. 20.4:
confidential and kept whole; arts. 154-155: one server for the operating unit): four
NOLOGIN groups per file named from a prefix, each table's rights in :data:`RIGHTS`. The
purge is reached through a NOINHERIT gate: an admitted login deletes only in the store's
purge (``SET LOCAL ROLE``; PostgreSQL 15 has no per-grant INHERIT). docs/postgresql.md."""

from __future__ import annotations

import argparse
import hashlib
import logging
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import unique
from typing import Any

import psycopg

from admission.codes import Code
from admission.errors import StoreError

log = logging.getLogger("admission.db.pg.roles")
Conn = psycopg.Connection[Any]

GROUPS = {g: f"_admission_{g}" for g in ("owner", "desk", "inspector", "purge", "purger")}
OWNER, PURGE, PURGER = GROUPS["owner"], GROUPS["purge"], GROUPS["purger"]
_PREFIX = re.compile(r"^[a-z][a-z0-9_]{0,39}$")  # + the longest suffix < 63 bytes (NAMEDATALEN)


@unique
class PgRoleCode(Code):
    """Why a desk's login may not do something on the server, or roles cannot be set."""

    SCHEMA_OLDER = "PG_SCHEMA_OLDER"  # migrations pending and this login may not run them
    PURGE_NOT_ALLOWED = "PG_PURGE_NOT_ALLOWED"  # the login is not admitted to the purge
    ROLES_REFUSED = "PG_ROLES_REFUSED"  # the server refused to create or grant the roles
    ROLE_UNKNOWN = "PG_ROLE_UNKNOWN"  # no such login, or not a group of a visitor file


@dataclass(frozen=True, slots=True)
class RoleNames:
    """The group roles of one visitor file (``purger``: the gate of the purge)."""

    prefix: str
    owner: str = field(init=False, repr=False, compare=False)
    desk: str = field(init=False, repr=False, compare=False)
    inspector: str = field(init=False, repr=False, compare=False)
    purge: str = field(init=False, repr=False, compare=False)
    purger: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _PREFIX.match(self.prefix):
            raise ValueError("a role prefix is 1-40 of a-z, 0-9, _ and starts with a letter")
        for group, suffix in GROUPS.items():
            object.__setattr__(self, group, self.prefix + suffix)

    @property
    def groups(self) -> tuple[str, ...]:
        return (self.owner, self.desk, self.inspector, self.purge, self.purger)

    @property
    def users(self) -> tuple[str, str, str]:
        """The groups that use the tables (not the owner, not the gate)."""
        return (self.desk, self.inspector, self.purge)

    @classmethod
    def of_owner(cls, owner: str) -> RoleNames | None:
        """The names whose owner group is ``owner``; None: not an owner group's name."""
        prefix = owner.removesuffix(OWNER)
        return cls(prefix) if prefix != owner and _PREFIX.match(prefix) else None


_HEAD = ("UPDATE (next)",)  # counters: rows limited by POLICIES

# Every table of db/pg/migrations and what each group may do beyond reading (all read all:
# the store opens keys, settings and chain; an unlisted table is the owner's alone). The
# desk deletes nothing of the file but rewritten name_tokens and the register's replica
# (a snapshot swap, art. 20.2).
RIGHTS: dict[str, dict[str, tuple[str, ...]]] = {
    "schema_migrations": {},
    "database_meta": {},
    "data_keys": {},  # a new data key version is stored by the owner (rotation)
    "counters": {"desk": _HEAD, "inspector": _HEAD, "purge": _HEAD},
    "settings": {"desk": ("INSERT", "UPDATE"), "inspector": ("INSERT",)},  # see POLICIES
    "visitors": {"desk": ("INSERT", "UPDATE"), "purge": ("DELETE",)},
    "name_tokens": {"desk": ("INSERT", "DELETE")},  # rewritten with the name
    "visits": {"desk": ("INSERT",), "purge": ("DELETE",)},
    "observations": {"desk": ("INSERT", "UPDATE"), "purge": ("DELETE",)},
    "cards": {
        "desk": ("INSERT", "UPDATE (status, print_count, void_reason)"),
        "purge": ("UPDATE (visit_id)", "DELETE"),
    },
    "card_events": {"desk": ("INSERT",)},
    "bans": {"desk": ("INSERT", "UPDATE"), "purge": ("DELETE",)},
    "staff": {"desk": ("INSERT", "UPDATE")},
    "audit": {"desk": ("INSERT",), "inspector": ("INSERT",), "purge": ("INSERT",)},
    "audit_refs": {"desk": ("INSERT", "UPDATE"), "purge": ("INSERT", "UPDATE", "DELETE")},
    "admissions": {"desk": ("INSERT",)},
    "accounts": {"desk": ("INSERT", "UPDATE")},
    "vouchers": {"desk": ("INSERT", "UPDATE"), "purge": ("DELETE",)},
    "registry_snapshot": {"desk": ("INSERT", "UPDATE", "DELETE")},
    "registry_entry": {"desk": ("INSERT", "DELETE")},
    "registry_event": {"desk": ("INSERT", "DELETE")},
}

# Row-level security (the owner bypasses it: not FORCEd); desks use every row. ``counters``:
# the inspector and the purge read all and update the chain's head row only (art. 22.1: card
# and voucher numbers are the desks' alone). ``settings``: the purge reads; the inspector reads
# and may only create a missing generated secret (``secret:<name>``: the keyed hash naming
# the subject of its audited searches, art. 20.4).
# table -> (group, command, USING, WITH CHECK)
POLICIES: dict[str, tuple[tuple[str, str, str | None, str | None], ...]] = {
    "counters": (
        ("desk", "ALL", "true", "true"),
        ("inspector", "SELECT", "true", None),
        ("inspector", "UPDATE", "name = 'audit'", "name = 'audit'"),
        ("purge", "SELECT", "true", None),
        ("purge", "UPDATE", "name = 'audit'", "name = 'audit'"),
    ),
    "settings": (
        ("desk", "ALL", "true", "true"),
        ("inspector", "SELECT", "true", None),
        ("inspector", "INSERT", None, "key LIKE 'secret:%'"),
        ("purge", "SELECT", "true", None),
    ),
}


def ident(name: str) -> str:
    """A quoted SQL identifier (any name; doubled quotes inside)."""
    if "\x00" in name:
        raise ValueError("an identifier cannot hold NUL")
    return '"' + name.replace('"', '""') + '"'


def _run(conn: Conn, statement: str, params: Sequence[Any] | None = None) -> Any:
    """One statement; without ``params`` its text is sent as it is (a ``%`` in a
    policy's LIKE pattern is not a placeholder)."""
    return conn.execute(statement.encode("utf-8"), params)


def default_prefix(conn: Conn, schema: str) -> str:
    """``<database>_<schema>`` in lower case, other characters ``_``; cut when longer, ending
    in 10 hex of its SHA-256 (two casinos never share a prefix by chance)."""
    row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    whole = f"{row[0]}_{schema}".lower()
    text = re.sub(r"[^a-z0-9_]", "_", whole)
    if not text[:1].isalpha():
        text = "a" + text
    if len(text) > 40 or text != whole:
        text = text[:29] + "_" + hashlib.sha256(whole.encode("utf-8")).hexdigest()[:10]
    return text


def _policies(schema: str, table: str, names: RoleNames) -> list[str]:
    qualified = f"{ident(schema)}.{ident(table)}"
    out = [f"ALTER TABLE {qualified} ENABLE ROW LEVEL SECURITY"]
    for group, command, using, check in POLICIES[table]:
        name = f"{group}_{command.lower()}"
        out.append(f"DROP POLICY IF EXISTS {name} ON {qualified}")
        role = ident(getattr(names, group))
        text = f"CREATE POLICY {name} ON {qualified} FOR {command} TO {role}"
        text += f" USING ({using})" if using is not None else ""
        text += f" WITH CHECK ({check})" if check is not None else ""
        out.append(text)
    return out


def grant_statements(
    schema: str, names: RoleNames, tables: Sequence[str] | None = None
) -> list[str]:
    """The statements that set every group's rights on ``schema`` from scratch (revoke,
    then grant) on ``tables`` (those that exist; None: all of :data:`RIGHTS`)."""
    s = ident(schema)
    users = ", ".join(ident(r) for r in names.users)
    present = list(RIGHTS) if tables is None else [t for t in RIGHTS if t in tables]
    out = [
        f"REVOKE ALL ON SCHEMA {s} FROM PUBLIC, {users}",
        f"GRANT USAGE ON SCHEMA {s} TO {users}",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM PUBLIC, {users}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM PUBLIC, {users}",
        # nextval of the row ids (file numbers, visit ids...; card and voucher numbers
        # come from the counters row, art. 22.1)
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {s} TO {ident(names.desk)}",
    ]
    for table in present:
        for group in ("desk", "inspector", "purge"):
            privileges = ", ".join(("SELECT", *RIGHTS[table].get(group, ())))
            role = ident(getattr(names, group))
            out.append(f"GRANT {privileges} ON {s}.{ident(table)} TO {role}")
    return out + [p for t in POLICIES if t in present for p in _policies(schema, t, names)]


def _exists(conn: Conn, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


def _creations(names: RoleNames) -> list[tuple[str, str]]:
    """(group, its CREATE ROLE) for every group: only the gate is NOINHERIT."""
    return [
        (role, f"CREATE ROLE {ident(role)} NOLOGIN {'NO' if role == names.purger else ''}INHERIT")
        for role in names.groups
    ]


def create_groups(conn: Conn, names: RoleNames) -> list[str]:
    """Create the groups that do not exist (needs CREATEROLE); the names created."""
    made: list[str] = []
    for role, create in _creations(names):
        if not _exists(conn, role):
            _run(conn, create)
            made.append(role)
    _run(conn, f"GRANT {ident(names.purge)} TO {ident(names.purger)}")
    return made


def _relations(conn: Conn, schema: str, relkinds: str, not_owned_by: str = "") -> list[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
        f"WHERE n.nspname = %s AND c.relkind IN ({relkinds}) "
        "AND pg_get_userbyid(c.relowner) <> %s ORDER BY c.relname",
        (schema, not_owned_by),
    ).fetchall()
    return [str(r[0]) for r in rows]


def _take_ownership(conn: Conn, schema: str, owner: str) -> None:
    """Make ``owner`` own the schema and all it holds (the login that made them keeps none)."""
    s, o = ident(schema), ident(owner)
    _run(conn, f"ALTER SCHEMA {s} OWNER TO {o}")
    kinds = (("'r', 'p', 'v', 'm'", "TABLE"), ("'S'", "SEQUENCE"))
    for relkinds, word in kinds:  # tables first: their owned sequences follow them
        for name in _relations(conn, schema, relkinds, owner):
            _run(conn, f"ALTER {word} {s}.{ident(name)} OWNER TO {o}")
    for (signature,) in conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc AS p JOIN pg_namespace AS n "
        "ON n.oid = p.pronamespace WHERE n.nspname = %s AND pg_get_userbyid(p.proowner) <> %s",
        (schema, owner),
    ).fetchall():
        _run(conn, f"ALTER ROUTINE {signature} OWNER TO {o}")


def _revoke_strays(conn: Conn, schema: str, names: RoleNames) -> None:
    """Revoke every right on the schema and its tables and sequences held by a role that
    is neither the owner nor one of the groups (e.g. desks given rights before roles)."""
    keep = {names.owner, *names.users}
    rows = conn.execute(
        "SELECT DISTINCT pg_get_userbyid(a.grantee) FROM pg_class AS c "
        "JOIN pg_namespace AS n ON n.oid = c.relnamespace, aclexplode(c.relacl) AS a "
        "WHERE n.nspname = %s AND a.grantee <> 0 "
        "UNION SELECT DISTINCT pg_get_userbyid(a.grantee) FROM pg_attribute AS t "
        "JOIN pg_class AS c ON c.oid = t.attrelid JOIN pg_namespace AS n "
        "ON n.oid = c.relnamespace, aclexplode(t.attacl) AS a "
        "WHERE n.nspname = %s AND a.grantee <> 0 "
        "UNION SELECT DISTINCT pg_get_userbyid(a.grantee) FROM pg_namespace AS n, "
        "aclexplode(n.nspacl) AS a WHERE n.nspname = %s AND a.grantee <> 0",
        (schema, schema, schema),
    ).fetchall()
    s = ident(schema)
    for role in {str(r[0]) for r in rows} - keep:
        for what in ("ALL TABLES IN SCHEMA", "ALL SEQUENCES IN SCHEMA", "SCHEMA"):
            _run(conn, f"REVOKE ALL ON {what} {s} FROM {ident(role)}")


def apply_grants(conn: Conn, schema: str, names: RoleNames) -> bool:
    """Set every group's rights on ``schema`` (by the owner or a DBA). False, and nothing
    done, when a group does not exist yet (the DBA creates them: :func:`grant_roles`)."""
    missing = [r for r in names.groups if not _exists(conn, r)]
    if missing:
        log.warning("roles of the visitor file missing (%d): grants not applied", len(missing))
        return False
    tables = _relations(conn, schema, "'r', 'p'")
    unlisted = sorted(set(tables) - set(RIGHTS))
    if unlisted:  # only the owner can use them until db/pg/roles.py lists them
        log.warning("tables without listed rights: %s", ", ".join(unlisted))
    with conn.transaction():
        _revoke_strays(conn, schema, names)
        for statement in grant_statements(schema, names, tables):
            _run(conn, statement)
    return True


def grant_roles(conn: Conn, schema: str, *, prefix: str | None = None) -> RoleNames:
    """Create the missing groups, make the owner group own ``schema`` and all it holds,
    and set every group's rights, in one idempotent transaction (a DBA: a superuser, or a
    CREATEROLE owner of the schema in the owner group). Refusals: ``PG_ROLES_REFUSED``."""
    try:
        names = RoleNames(prefix or default_prefix(conn, schema))
        with conn.transaction():
            found = conn.execute(
                "SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)
            ).fetchone()
            if found is None:
                raise StoreError("no such schema", code=PgRoleCode.ROLES_REFUSED)
            create_groups(conn, names)
            _take_ownership(conn, schema, names.owner)
            if not apply_grants(conn, schema, names):
                raise StoreError("the groups could not be made", code=PgRoleCode.ROLES_REFUSED)
    except psycopg.Error as exc:
        raise StoreError(
            f"the server refused the roles ({type(exc).__name__} {exc.sqlstate or ''})",
            code=PgRoleCode.ROLES_REFUSED,
        ) from exc
    return names


def admit_login(conn: Conn, login: str, group: str, *, admit: bool = True) -> None:
    """Make ``login`` a member of ``group`` (the purge: its gate); ``admit=False`` undoes it."""
    row = conn.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = %s", (login,)).fetchone()
    if row is None or not row[0]:
        raise StoreError("no such login role", code=PgRoleCode.ROLE_UNKNOWN)
    suffix = next((s for s in GROUPS.values() if group.endswith(s)), None)
    if suffix is None or suffix == PURGER or not _exists(conn, group):
        raise StoreError("not a group of a visitor file", code=PgRoleCode.ROLE_UNKNOWN)
    joined = RoleNames(group[: -len(suffix)]).purger if suffix == PURGE else group
    verb = f"GRANT {ident(joined)} TO" if admit else f"REVOKE {ident(joined)} FROM"
    try:
        _run(conn, f"{verb} {ident(login)}")
    except psycopg.Error as exc:
        raise StoreError(
            f"the server refused the {'membership' if admit else 'revocation'} "
            f"({type(exc).__name__})",
            code=PgRoleCode.ROLES_REFUSED,
        ) from exc


def take_owner(conn: Conn) -> RoleNames | None:
    """Before pending migrations: act as the owner group when the login is a member (what
    they create is the group's), else ``PG_SCHEMA_OLDER``; a schema of no owner group is
    migrated as before roles, by its owner or a role that may create in it."""
    row = conn.execute(
        "SELECT pg_get_userbyid(n.nspowner), n.nspowner = (SELECT oid FROM pg_roles "
        "WHERE rolname = current_user), pg_has_role(current_user, n.nspowner, 'MEMBER'), "
        "has_schema_privilege(n.oid, 'CREATE') FROM pg_namespace AS n "
        "WHERE n.nspname = current_schema()"
    ).fetchone()
    if row is None:
        return None  # no schema on the search path: the migration says why
    owner, is_owner, member, can_create = str(row[0]), bool(row[1]), bool(row[2]), bool(row[3])
    names = RoleNames.of_owner(owner)
    if is_owner or (names is None and can_create):
        return names
    if names is not None and member:
        _run(conn, f"SET ROLE {ident(owner)}")
        return names
    raise StoreError(
        "the schema needs migrations; the owner must run them (this login may not)",
        code=PgRoleCode.SCHEMA_OLDER,
    )


def purge_role(conn: Conn) -> str | None:
    """The group the store's purge must ``SET LOCAL ROLE`` to; None when the login has the
    schema owner's rights (it may re-seal every table and rewrite the data keys) or the
    schema was made before roles."""
    row = conn.execute(
        "SELECT pg_get_userbyid(nspowner), pg_has_role(session_user, nspowner, 'USAGE') "
        "FROM pg_namespace WHERE nspname = current_schema()"
    ).fetchone()
    names = None if row is None or row[1] else RoleNames.of_owner(str(row[0]))
    return None if names is None else names.purge


def may_purge(conn: Conn, role: str) -> bool:
    """Whether the session's login may ``SET ROLE`` to ``role`` (through the gate)."""
    row = conn.execute(
        "SELECT pg_has_role(session_user, r.oid, 'MEMBER') FROM pg_roles AS r WHERE rolname = %s",
        (role,),
    ).fetchone()
    return row is not None and bool(row[0])


def main(argv: Sequence[str] | None = None) -> int:
    """``sql``: print the grants; ``grant``: apply them over a connection string."""
    parser = argparse.ArgumentParser(prog="python -m db.pg.roles")
    parser.add_argument("action", choices=("sql", "grant"))
    parser.add_argument("--schema", required=True)
    parser.add_argument("--prefix", help="role prefix (default: <database>_<schema>)")
    parser.add_argument("--conninfo", help="a DBA's connection string (grant)")
    args = parser.parse_args(argv)
    if args.action == "sql":
        if not args.prefix:
            parser.error("sql needs --prefix")
        names = RoleNames(args.prefix)
        creations = [create for _, create in _creations(names)]
        grant = f"GRANT {ident(names.purge)} TO {ident(names.purger)}"
        for statement in [*creations, grant, *grant_statements(args.schema, names)]:
            print(statement + ";")
        return 0
    if not args.conninfo:
        parser.error("grant needs --conninfo")
    with psycopg.connect(args.conninfo, autocommit=True) as conn:
        names = grant_roles(conn, args.schema, prefix=args.prefix)
    print(f"granted: {', '.join(names.groups)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
