"""The Windows installer script compiles, carries its version, and can be signed.

This machine cannot run Windows, so the installer is checked where Linux can check it:
Debian's ``makensis`` (NSIS 3) compiles ``packaging/windows/admission-desk.nsi`` around a
tiny fake bundle (a stub ``admission-desk.exe`` and an ``_internal`` folder, shaped like
PyInstaller's ``--onedir`` output) through ``tools/package_desk.make_setup``, the same call
the Windows build makes; the result is a PE file with the version resource Windows shows
in the file's Properties. ``osslsigncode`` signs it with a throwaway code-signing
certificate the way a vendor signs the real one, and a changed byte breaks the
signature. What the installer does when it RUNS (the registry, the shortcuts, the
downgrade's exit code 3, the uninstaller) is read from the script here and is listed in
the README as not checked on a real Windows.

Skipped with a reason where makensis or osslsigncode is missing (Debian packages nsis and
osslsigncode, scripts/system-packages.sh).
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from PIL import Image

from tools import package_desk

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "windows" / "admission-desk.nsi"
MAKENSIS = shutil.which("makensis")
OSSLSIGNCODE = shutil.which("osslsigncode")

needs_makensis = pytest.mark.skipif(
    MAKENSIS is None, reason="makensis (Debian package nsis) is not installed"
)
needs_osslsigncode = pytest.mark.skipif(
    OSSLSIGNCODE is None, reason="osslsigncode (Debian package osslsigncode) is not installed"
)


# -- a fake bundle, its icon, the compiled setup --------------------------------------
def fake_bundle(folder: Path) -> tuple[Path, Path]:
    """A PyInstaller-shaped onedir folder and a valid multi-size .ico (Pillow)."""
    bundle = folder / "admission-desk"
    (bundle / "_internal" / "PySide6").mkdir(parents=True)
    (bundle / "admission-desk.exe").write_bytes(b"MZ stub, never run")
    (bundle / "admission-desk.png").write_bytes(b"png stub")
    (bundle / "_internal" / "base_library.zip").write_bytes(b"zip stub")
    (bundle / "_internal" / "PySide6" / "Qt6Core.dll").write_bytes(b"dll stub")
    icon = folder / "admission-desk.ico"
    Image.new("RGBA", (48, 48), (20, 90, 160, 255)).save(icon, sizes=[(16, 16), (32, 32), (48, 48)])
    return bundle, icon


def makensis(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert MAKENSIS is not None
    return subprocess.run(
        [MAKENSIS, "-V2", *args, str(SCRIPT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def defines(bundle: Path, icon: Path, out: Path, version: str = "1.2.3") -> list[str]:
    return [
        f"-DVERSION={version}",
        f"-DPRODUCT_VERSION={version}.0",
        f"-DBUNDLE={bundle}",
        f"-DICON={icon}",
        f"-DOUTFILE={out}",
    ]


def pe_offset(data: bytes) -> int:
    """The PE header's offset (e_lfanew), after checking both signatures."""
    assert data[:2] == b"MZ"
    offset: int = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[offset : offset + 4] == b"PE\0\0"
    return offset


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """(bundle, icon, setup.exe of version 7.8.9 made by package_desk.make_setup)."""
    if MAKENSIS is None:
        pytest.skip("makensis (Debian package nsis) is not installed")
    folder = tmp_path_factory.mktemp("setup")
    bundle, icon = fake_bundle(folder)
    setup = package_desk.make_setup(bundle, "7.8.9", folder / "dist", icon=icon)
    yield bundle, icon, setup


# -- compiling ---------------------------------------------------------------------------
@needs_makensis
def test_make_setup_compiles_the_script_into_a_windows_program(
    built: tuple[Path, Path, Path],
) -> None:
    _, _, setup = built
    assert setup.name == "AdmissionDesk-7.8.9-setup.exe"
    data = setup.read_bytes()
    offset = pe_offset(data)
    machine = struct.unpack_from("<H", data, offset + 4)[0]
    assert machine == 0x14C  # i386: the installer runs on any Windows and refuses 32-bit
    assert b"NullsoftInst" in data  # NSIS's data block follows the stub


@needs_makensis
def test_the_script_compiles_without_a_single_warning_and_names_the_publisher(
    tmp_path: Path,
) -> None:
    """-WX: no unknown define, unused string or unsafe name; DESK_PUBLISHER (the company
    on the signing certificate) is the version resource's CompanyName."""
    bundle, icon = fake_bundle(tmp_path)
    setup = tmp_path / "AdmissionDesk-1.2.3-setup.exe"
    env = dict(os.environ, DESK_PUBLISHER="Proveedor Ñandú S.L.")
    done = makensis("-WX", *defines(bundle, icon, setup), env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Proveedor Ñandú S.L.".encode("utf-16-le") in setup.read_bytes()


@needs_makensis
def test_the_version_resource_names_the_version(built: tuple[Path, Path, Path]) -> None:
    _, _, setup = built
    data = setup.read_bytes()
    for text in ("ProductVersion", "7.8.9", "Admission Desk", "AdmissionDesk-7.8.9-setup.exe"):
        assert text.encode("utf-16-le") in data, text
    # VS_FIXEDFILEINFO: its signature, then the struct version, the file version and the
    # product version as (major << 16 | minor, build << 16 | revision)
    fixed = data.index(struct.pack("<I", 0xFEEF04BD))
    file_ms, file_ls, product_ms, product_ls = struct.unpack_from("<4I", data, fixed + 8)
    for most, least in ((file_ms, file_ls), (product_ms, product_ls)):
        assert (most >> 16, most & 0xFFFF, least >> 16, least & 0xFFFF) == (7, 8, 9, 0)


@needs_makensis
def test_two_compilations_of_one_bundle_are_identical(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    bundle, icon, setup = built
    again = tmp_path / setup.name
    done = makensis(*defines(bundle, icon, again, version="7.8.9"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert again.read_bytes() == setup.read_bytes()


@needs_makensis
def test_a_compilation_without_the_version_stops_with_its_reason(tmp_path: Path) -> None:
    bundle, icon = fake_bundle(tmp_path)
    args = [
        a
        for a in defines(bundle, icon, tmp_path / "AdmissionDesk-1.2.3-setup.exe")
        if "VERSION=" not in a
    ]
    done = makensis(*args)
    assert done.returncode != 0
    assert "VERSION is not defined" in done.stdout + done.stderr
    assert not (tmp_path / "AdmissionDesk-1.2.3-setup.exe").exists()


# -- what the installer does when it runs (read from the script) --------------------------
def instructions(section: str) -> list[str]:
    """The script's lines from ``section``'s first line (a Function or a Section) to its
    FunctionEnd or SectionEnd, without comments."""
    text = SCRIPT.read_text("utf-8-sig")
    start = text.index(section)
    end = text.index(section.split()[0] + "End", start)
    body = text[start:end]
    return [line.split(";")[0].strip() for line in body.splitlines() if line.strip()]


def test_the_script_refuses_a_downgrade_first_and_never_deletes_the_data_folder() -> None:
    text = SCRIPT.read_text("utf-8-sig")
    code = [line.split(";")[0] for line in text.splitlines()]
    # the downgrade: read in .onInit (before any section writes), compared, refused with
    # its code and exit code 3 in silent mode
    on_init = instructions("Function .onInit")
    joined = "\n".join(on_init)
    assert 'ReadRegStr $installed_version HKLM "${UNINSTALL_KEY}" "DisplayVersion"' in joined
    assert "${VersionCompare}" in joined
    refusal = joined.index("$(DOWNGRADE)")
    assert "SetErrorLevel ${EXIT_DOWNGRADE_REFUSED}" in joined[refusal:]
    assert "Abort" in joined[refusal:]
    assert "!define EXIT_DOWNGRADE_REFUSED 3" in code
    assert not any(
        word in line for line in on_init for word in ("Write", "File ", "Delete", "RMDir")
    )
    # UTF-8 with its byte order mark, or makensis on Windows reads the Spanish as ANSI
    assert SCRIPT.read_bytes().startswith(b"\xef\xbb\xbf")
    for language in ("LANG_SPANISH", "LANG_ENGLISH"):
        assert re.search(rf'LangString DOWNGRADE \${{{language}}} "DOWNGRADE_REFUSED: ', text)
    # the data folder: no instruction of the script names it or the profiles' folders
    for line in code:
        for folder in ("$LOCALAPPDATA", "$APPDATA", "$PROFILE", "$DOCUMENTS", "admission-desk\\"):
            assert folder not in line, line
    # an upgrade removes the old _internal before it copies the new bundle
    desk = instructions('Section "!$(SEC_DESK)"')
    assert desk.index('RMDir /r "$INSTDIR\\_internal"') < desk.index('File /r "${BUNDLE}\\*"')
    # the uninstaller removes what was installed, by name, and its registry key
    uninstall = instructions('Section "Uninstall"')
    for wanted in (
        'Delete "$SMSTARTUP\\${LINK}"',
        'Delete "$SMPROGRAMS\\${LINK}"',
        'RMDir /r "$INSTDIR\\_internal"',
        'RMDir "$INSTDIR"',
        'DeleteRegKey HKLM "${UNINSTALL_KEY}"',
    ):
        assert wanted in uninstall, wanted
    assert not any(line.startswith("RMDir /r") and "_internal" not in line for line in code)
    # every value Add/Remove Programs reads
    for value in (
        "DisplayName",
        "DisplayVersion",
        "Publisher",
        "InstallLocation",
        "UninstallString",
        "QuietUninstallString",
        "EstimatedSize",
        "DisplayIcon",
        "NoModify",
        "NoRepair",
    ):
        assert re.search(rf'WriteReg(Str|DWORD) HKLM "\$\{{UNINSTALL_KEY\}}" "{value}"', text)


# -- code signing --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vendor_certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway self-signed code-signing certificate (RSA 2048): (cert.pem, key.pem)."""
    folder = tmp_path_factory.mktemp("vendor")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "ES"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Desk Vendor"),
            x509.NameAttribute(NameOID.COMMON_NAME, "Test Desk Vendor"),
        ]
    )
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    cert_pem = folder / "vendor.pem"
    key_pem = folder / "vendor.key"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_pem, key_pem


def sign(unsigned: Path, signed: Path, cert: Path, key: Path) -> None:
    assert OSSLSIGNCODE is not None
    done = subprocess.run(
        [
            *(OSSLSIGNCODE, "sign", "-certs", str(cert), "-key", str(key), "-h", "sha256"),
            *("-n", "Admission Desk", "-in", str(unsigned), "-out", str(signed)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def verify(program: Path, cert: Path) -> subprocess.CompletedProcess[str]:
    assert OSSLSIGNCODE is not None
    return subprocess.run(
        [OSSLSIGNCODE, "verify", "-CAfile", str(cert), "-in", str(program)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_makensis
@needs_osslsigncode
def test_a_signed_setup_verifies_and_a_changed_byte_breaks_it(
    built: tuple[Path, Path, Path], vendor_certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    _, _, setup = built
    cert, key = vendor_certificate
    signed = tmp_path / setup.name
    sign(setup, signed, cert, key)
    done = verify(signed, cert)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Signature verification: ok" in done.stdout
    assert "Test Desk Vendor" in done.stdout
    assert verify(setup, cert).returncode != 0  # the unsigned one has no signature

    data = bytearray(signed.read_bytes())
    position = pe_offset(bytes(data)) + len(data) // 3  # inside NSIS's compressed data
    data[position] ^= 0x01
    tampered = tmp_path / "tampered.exe"
    tampered.write_bytes(bytes(data))
    done = verify(tampered, cert)
    assert done.returncode != 0
    assert "Signature verification: ok" not in done.stdout


@needs_makensis
@needs_osslsigncode
def test_the_sign_command_signs_the_setup_while_it_is_compiled(
    vendor_certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    """DESK_SIGN_COMMAND (build.ps1 sets it for signtool) signs the uninstaller before it
    is packed and the installer once written; osslsigncode stands in for signtool."""
    cert, key = vendor_certificate
    bundle, icon = fake_bundle(tmp_path)
    wrapper = tmp_path / "sign.sh"  # osslsigncode cannot sign a file in place
    wrapper.write_text(
        'set -e\nf="$1"\n'
        f'"{OSSLSIGNCODE}" sign -certs "{cert}" -key "{key}" -h sha256 -in "$f" '
        '-out "$f.signed" >/dev/null\nmv "$f.signed" "$f"\n',
        "utf-8",
    )
    setup = tmp_path / "AdmissionDesk-1.2.3-setup.exe"
    env = dict(os.environ, DESK_SIGN_COMMAND=f'sh "{wrapper}" "%1"')
    done = makensis(*defines(bundle, icon, setup), env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    checked = verify(setup, cert)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # a signing that fails stops the build: no unsigned setup comes out of a signed build
    setup.unlink()
    env = dict(os.environ, DESK_SIGN_COMMAND='false "%1"')
    done = makensis(*defines(bundle, icon, setup), env=env)
    assert done.returncode != 0
    assert not setup.exists()


# -- the Windows build script (PowerShell; this machine cannot run it) ----------------------
def test_the_windows_build_script_drives_the_same_recipe_and_signs_with_a_timestamp() -> None:
    """Read, not run: build.ps1 names what package_desk.py and the .nsi name, signs
    SHA-256 with an RFC 3161 timestamp and prints the result's digest."""
    text = (ROOT / "packaging" / "windows" / "build.ps1").read_text("ascii")  # PS 5.1: ANSI
    assert "tools/bootstrap.py package --version $Version --out $Out" in text
    assert f'$SetupName = "{package_desk.WINDOWS_NAME}"' in text
    assert '$SignVariable = "DESK_SIGN_COMMAND"' in text
    assert "$%DESK_SIGN_COMMAND%" in SCRIPT.read_text("utf-8-sig")
    for flag in ("sign /fd sha256 /tr", "/td sha256", "verify /pa", "/sha1 ", '/f `"$PfxPath'):
        assert flag in text, flag
    assert "Get-FileHash -Algorithm SHA256" in text
    for opening, closing in (("{", "}"), ("(", ")"), ("[", "]")):
        assert text.count(opening) == text.count(closing), opening + closing
