"""The one helper for the files the desk writes (admission.atomic_file): whole or not at
all, 0600, never over the visitor file or what belongs to it, never over a folder or a
device, over a file already there only when told to. Every path here lies in the
test's own folder: a device node is made there (as root), never taken from /dev."""

from __future__ import annotations

import errno
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from admission.atomic_file import OutputCode, OutputError, OutputGuard, write_atomically

OWN = ("visitors.db", ".", "settings.json", "backups.json", "cards", "postgresql")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("visitors.db", "visitors.db-wal", "visitors.db.marker", "settings.json"):
        (folder / name).write_bytes(b"record " + name.encode())
    (folder / "cards").mkdir()
    (folder / "cards" / "card-00000001.pdf").write_bytes(b"%PDF card")
    return folder


@pytest.fixture
def guard(data: Path) -> OutputGuard:
    return OutputGuard(data, OWN)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def device_node(folder: Path) -> Iterator[Path]:
    """Special files made inside ``folder``: a character device like /dev/null (root
    only), a pipe and a socket."""
    null = folder / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        yield null
    except PermissionError:
        pass
    os.mkfifo(folder / "pipe")
    yield folder / "pipe"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock"))
    sock.close()
    yield folder / "sock"


@pytest.mark.parametrize(
    "name",
    [
        "visitors.db",
        "visitors.db-wal",
        "visitors.db-shm",  # not there yet: a new name is refused as well
        "visitors.db-journal",
        "visitors.db.marker",
        "visitors.db.audit-key",
        "VISITORS.DB",  # a file system that ignores case
        "settings.json",
        "cards/card-00000001.pdf",
        "cards/card-00000002.pdf",
        ".visitors.db.restore.1234.tmp",
    ],
)
@pytest.mark.parametrize("force", [False, True])
def test_the_visitor_file_and_what_belongs_to_it_are_never_written(
    data: Path, guard: OutputGuard, name: str, force: bool
) -> None:
    before = snapshot(data)
    with pytest.raises(OutputError) as refused:
        guard.write(data / name, b"%PDF over the record", force=force)
    assert refused.value.code is OutputCode.OUTPUT_PROTECTED
    assert snapshot(data) == before


def test_a_link_a_dot_dot_chain_or_a_hard_link_into_the_data_folder_is_refused(
    data: Path, guard: OutputGuard, tmp_path: Path
) -> None:
    before = snapshot(data)
    (tmp_path / "link.pdf").symlink_to(data / "visitors.db")
    (tmp_path / "linked-folder").symlink_to(data)
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for path in (
        tmp_path / "link.pdf",
        tmp_path / "linked-folder" / "visitors.db-wal",
        deep / ".." / ".." / ".." / "data" / "visitors.db",
    ):
        with pytest.raises(OutputError) as refused:
            guard.write(path, b"x", force=True)
        assert refused.value.code is OutputCode.OUTPUT_PROTECTED, path
    assert snapshot(data) == before
    # a hard link is another name of the same file: replacing the name leaves the file
    os.link(data / "visitors.db", tmp_path / "hard.pdf")
    guard.write(tmp_path / "hard.pdf", b"%PDF new", force=True)
    assert snapshot(data) == before and (tmp_path / "hard.pdf").read_bytes() == b"%PDF new"


def test_a_new_name_elsewhere_in_the_data_folder_is_written_once(
    data: Path, guard: OutputGuard
) -> None:
    written = guard.write(data / "leaflet.pdf", b"%PDF leaflet")
    assert written == data / "leaflet.pdf" and written.read_bytes() == b"%PDF leaflet"
    # once there it is the desk's, as everything in its folder
    (data / "database-id").write_text("a server's id\n")
    for name in ("leaflet.pdf", "database-id"):
        with pytest.raises(OutputError) as refused:
            guard.write(data / name, b"%PDF over it", force=True)
        assert refused.value.code is OutputCode.OUTPUT_PROTECTED
    assert written.read_bytes() == b"%PDF leaflet"


def test_a_file_already_there_is_kept_without_force_and_replaced_with_it(
    tmp_path: Path, guard: OutputGuard
) -> None:
    out = tmp_path / "report.pdf"
    out.write_bytes(b"older")
    out.chmod(0o644)
    with pytest.raises(OutputError) as refused:
        guard.write(out, b"newer")
    assert refused.value.code is OutputCode.OUTPUT_EXISTS and out.read_bytes() == b"older"
    guard.write(out, b"newer", force=True)
    assert out.read_bytes() == b"newer"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # a new file, not the old one's mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "report.pdf"]


def test_a_new_file_is_0600_whatever_the_umask(tmp_path: Path, guard: OutputGuard) -> None:
    old = os.umask(0o000)
    try:
        written = guard.write(tmp_path / "new.pdf", b"%PDF")
    finally:
        os.umask(old)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_a_folder_a_device_a_pipe_or_a_socket_is_never_replaced(
    tmp_path: Path, guard: OutputGuard
) -> None:
    specials = [tmp_path / "folder", *device_node(tmp_path)]
    specials[0].mkdir()
    (tmp_path / "to-pipe").symlink_to(tmp_path / "pipe")
    specials.append(tmp_path / "to-pipe")
    for path in specials:
        kind = stat.S_IFMT(os.stat(path).st_mode)
        with pytest.raises(OutputError) as refused:
            guard.write(path, b"x", force=True)
        assert refused.value.code is OutputCode.OUTPUT_NOT_A_FILE, path
        assert stat.S_IFMT(os.stat(path).st_mode) == kind  # still what it was
    assert not any(p.name.startswith(".desk-") for p in tmp_path.iterdir())


def test_a_missing_folder_or_a_file_as_folder_is_refused(
    tmp_path: Path, guard: OutputGuard
) -> None:
    (tmp_path / "plain").write_bytes(b"x")
    for path in (tmp_path / "missing" / "out.pdf", tmp_path / "plain" / "out.pdf"):
        with pytest.raises(OutputError) as refused:
            guard.write(path, b"x")
        assert refused.value.code is OutputCode.OUTPUT_NO_FOLDER, path
    assert not (tmp_path / "missing").exists()


def test_a_name_over_255_bytes_or_a_path_over_4096_is_a_code(
    tmp_path: Path, guard: OutputGuard
) -> None:
    for path in (
        tmp_path / ("n" * 256),
        tmp_path / ("ñ" * 128),  # 128 characters, 256 bytes
        tmp_path / "/".join(["d" * 200] * 21) / "out.pdf",
    ):
        with pytest.raises(OutputError) as refused:
            guard.write(path, b"x")
        assert refused.value.code is OutputCode.OUTPUT_NAME_TOO_LONG
    # 255 bytes is a name: its temporary file must still have one
    written = guard.write(tmp_path / ("n" * 251 + ".pdf"), b"%PDF")
    assert written.read_bytes() == b"%PDF"


def test_a_failed_write_leaves_neither_the_target_nor_a_temporary_file(
    tmp_path: Path, guard: OutputGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "report.pdf"
    out.write_bytes(b"older")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        guard.write(out, b"newer", force=True)
    monkeypatch.undo()
    assert out.read_bytes() == b"older"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "report.pdf"]


def test_without_replace_a_file_that_appeared_meanwhile_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "late.pdf"
    out.write_bytes(b"appeared")
    with pytest.raises(FileExistsError):
        write_atomically(out, b"mine", replace=False)
    assert out.read_bytes() == b"appeared" and [p.name for p in tmp_path.iterdir()] == ["late.pdf"]


def test_other_data_folders_are_kept_the_same_way(tmp_path: Path, data: Path) -> None:
    demo = data / "demo"  # the demo's own folder, inside the real one
    demo.mkdir()
    guard = OutputGuard(demo, OWN, others=(data,))
    for path in (data / "visitors.db", data / "visitors.db-shm", demo / "visitors.db"):
        with pytest.raises(OutputError) as refused:
            guard.write(path, b"x", force=True)
        assert refused.value.code is OutputCode.OUTPUT_PROTECTED, path
    assert guard.write(demo / "leaflet.pdf", b"%PDF").read_bytes() == b"%PDF"
