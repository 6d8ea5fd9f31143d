"""The PC/SC adapter (pyscard): a contactless reader on the desk, through ``pcscd``.

:class:`PcscChipReader` lists the readers, waits for a card, connects to it and hands
back a :class:`~hardware.chip.apdu.Transport`; ``preflight()`` answers in the devices'
one vocabulary (STYLE.md rule 8) and :meth:`PcscChipReader.watch` polls for a reader
plugged or unplugged and a card put on or taken off (the status bar's hot-plug).

PC/SC's own errors become :class:`ChipError` codes: no card ``NO_CHIP``, a card that left
the field or stopped answering mid-read ``CHIP_SILENT``, the service or the reader failing
``READER_ERROR``. Every APDU has a deadline: pcscd waits on a driver without one (vpcd
does, forever), so the transmit runs on the transport's own thread and a command that is
not answered in ``apdu_timeout`` seconds is ``CHIP_SILENT`` - the desk never hangs.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from admission.chip import ChipCode
from admission.devices import DeviceStatus, ReaderStatusChanged
from hardware.chip.apdu import ChipError

__all__ = ["ChipWatch", "PcscChipReader", "PcscTransport"]

_NO_CARD = ("SCARD_E_NO_SMARTCARD", "SCARD_W_REMOVED_CARD", "SCARD_W_UNPOWERED_CARD")
_SILENT = (
    "SCARD_W_REMOVED_CARD",
    "SCARD_E_NO_SMARTCARD",
    "SCARD_W_UNRESPONSIVE_CARD",
    "SCARD_W_RESET_CARD",
    "SCARD_E_TIMEOUT",
    "SCARD_E_NOT_TRANSACTED",
    "SCARD_F_COMM_ERROR",
    "SCARD_E_COMM_DATA_LOST",
)
_NO_SERVICE = ("SCARD_E_NO_SERVICE", "SCARD_E_SERVICE_STOPPED", "SCARD_E_NO_READERS_AVAILABLE")


def _scard() -> Any:
    """pyscard's low-level module (imported on first use: a desk without a reader
    never loads it). ``ChipError(READER_ERROR)`` when it is not installed."""
    try:
        from smartcard import scard  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - pyscard is in requirements.txt
        raise ChipError(ChipCode.READER_ERROR, f"pyscard is not installed: {error}") from None
    return scard


def _named(scard: Any, hresult: int, names: tuple[str, ...]) -> bool:
    return any(hresult == getattr(scard, name, None) for name in names)


def _message(scard: Any, hresult: int) -> str:
    try:
        return f"{scard.SCardGetErrorMessage(hresult)} (0x{hresult & 0xFFFFFFFF:08X})"
    except Exception:
        return f"0x{hresult & 0xFFFFFFFF:08X}"


class PcscTransport:
    """One connected card: ``transmit`` with a deadline, ``close`` that never blocks.

    It owns its PC/SC context, so a transmit stuck in pcscd never blocks the reader's
    listing and waiting (pcsc-lite serialises the calls of one context)."""

    def __init__(self, reader: str, *, apdu_timeout: float = 5.0) -> None:
        self.reader = reader
        self.apdu_timeout = apdu_timeout
        self._scard = _scard()
        scard = self._scard
        hresult, self._context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
        if hresult != scard.SCARD_S_SUCCESS:
            raise ChipError(ChipCode.READER_ERROR, _message(scard, hresult))
        hresult, self._card, protocol = scard.SCardConnect(
            self._context,
            reader,
            scard.SCARD_SHARE_SHARED,
            scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1,
        )
        if hresult != scard.SCARD_S_SUCCESS:
            scard.SCardReleaseContext(self._context)
            no_card = _named(scard, hresult, _NO_CARD)
            code = ChipCode.NO_CHIP if no_card else ChipCode.READER_ERROR
            raise ChipError(code, _message(scard, hresult))
        self._pci = (
            scard.SCARD_PCI_T0 if protocol == scard.SCARD_PROTOCOL_T0 else scard.SCARD_PCI_T1
        )
        hresult, _reader, _state, _protocol, atr = scard.SCardStatus(self._card)
        self.atr = bytes(atr) if hresult == scard.SCARD_S_SUCCESS else b""
        self._requests: queue.Queue[bytes | None] = queue.Queue()
        self._answers: queue.Queue[tuple[int, list[int]]] = queue.Queue()
        self._dead = False
        self._worker = threading.Thread(target=self._work, name="pcsc-transmit", daemon=True)
        self._worker.start()

    def transmit(self, apdu: bytes) -> bytes:
        if self._dead:
            raise ChipError(ChipCode.CHIP_SILENT, "the card stopped answering earlier")
        self._requests.put(apdu)
        try:
            hresult, response = self._answers.get(timeout=self.apdu_timeout)
        except queue.Empty:
            self._dead = True  # the worker stays blocked in pcscd until the card goes
            raise ChipError(ChipCode.CHIP_SILENT, f"no answer in {self.apdu_timeout:g} s") from None
        scard = self._scard
        if hresult != scard.SCARD_S_SUCCESS:
            self._dead = True
            code = (
                ChipCode.CHIP_SILENT if _named(scard, hresult, _SILENT) else ChipCode.READER_ERROR
            )
            raise ChipError(code, _message(scard, hresult))
        if len(response) < 2:
            raise ChipError(ChipCode.CHIP_SILENT, "an answer without a status word")
        return bytes(response)

    def close(self) -> None:
        """Disconnect (leaving the card powered for the next reader) without waiting on
        a worker still blocked in pcscd."""
        self._requests.put(None)
        if self._dead:
            threading.Thread(target=self._release, daemon=True).start()
        else:
            self._worker.join(timeout=self.apdu_timeout)
            self._release()

    def __enter__(self) -> PcscTransport:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _release(self) -> None:
        scard = self._scard
        with contextlib.suppress(Exception):
            scard.SCardDisconnect(self._card, scard.SCARD_LEAVE_CARD)
        with contextlib.suppress(Exception):
            scard.SCardReleaseContext(self._context)

    def _work(self) -> None:
        scard = self._scard
        while True:
            apdu = self._requests.get()
            if apdu is None:
                return
            try:
                answer = scard.SCardTransmit(self._card, self._pci, list(apdu))
            except Exception:
                answer = (scard.SCARD_E_INVALID_HANDLE, [])
            self._answers.put((answer[0], list(answer[1])))


@dataclass(frozen=True, slots=True)
class _Snapshot:
    status: DeviceStatus
    reader: str
    card: bool
    detail: str


class PcscChipReader:
    """The desk's contactless reader through PC/SC.

    ``reader``: the configured reader's name or a part of it (``""``: the first reader;
    a reader with several slots, such as "... Contactless" and "... SAM", is best named).
    ``apdu_timeout``: seconds a single command may take before the chip is called silent.
    """

    def __init__(self, reader: str = "", *, apdu_timeout: float = 5.0) -> None:
        self.reader = reader
        self.apdu_timeout = apdu_timeout
        self.detail = ""  # English, for the log: why the last preflight was not READY
        self._lock = threading.Lock()
        self._context: Any = None
        self._chosen = ""

    # -- the port ----------------------------------------------------------------------

    def preflight(self) -> DeviceStatus:
        """READY: the reader is there (a card or not); NOT_FOUND: no pcscd, no reader or
        not the configured one; BUSY: another program holds the card exclusively;
        ERROR: PC/SC failed otherwise."""
        return self._snapshot().status

    def readers(self) -> list[str]:
        """The readers PC/SC knows now (``[]`` when pcscd is not running)."""
        try:
            return self._list()
        except ChipError:
            return []

    def wait_for_card(self, timeout: float) -> bool:
        """True once a card is on a matching reader (remembered for :meth:`connect`),
        False when ``timeout`` seconds pass first. Raises ``ChipError(READER_ERROR)``
        when PC/SC fails (no service, no reader)."""
        return self._wait(present=True, timeout=timeout)

    def wait_for_removal(self, timeout: float) -> bool:
        """True once no matching reader holds a card (the document was taken away),
        False when ``timeout`` seconds pass first."""
        return self._wait(present=False, timeout=timeout)

    def _wait(self, *, present: bool, timeout: float) -> bool:
        scard = _scard()
        names = self._matching(self._list())
        if not names:
            raise ChipError(ChipCode.READER_ERROR, "no PC/SC reader")
        states = [(name, scard.SCARD_STATE_UNAWARE) for name in names]
        deadline = time.monotonic() + max(0.0, timeout)
        first = True
        while True:
            wait_ms = 0 if first else max(0, int((deadline - time.monotonic()) * 1000))
            with self._lock:
                hresult, found = scard.SCardGetStatusChange(self._ctx(), wait_ms, states)
            if hresult == scard.SCARD_E_TIMEOUT:
                return False
            if hresult != scard.SCARD_S_SUCCESS:
                self._drop_context()
                raise ChipError(ChipCode.READER_ERROR, _message(scard, hresult))
            with_card = [
                name
                for name, state, _atr in found
                if state & scard.SCARD_STATE_PRESENT and not state & scard.SCARD_STATE_MUTE
            ]
            if present and with_card:
                self._chosen = with_card[0]
                return True
            if not present and not with_card:
                return True
            if not first and time.monotonic() >= deadline:
                return False
            states = [(name, state & ~scard.SCARD_STATE_CHANGED) for name, state, _ in found]
            first = False

    def connect(self) -> PcscTransport:
        """The card on the reader as a transport (close it when done). ``ChipError``:
        ``NO_CHIP`` without a card, ``READER_ERROR`` otherwise."""
        name = self._chosen
        if not name:
            names = self._matching(self._list())
            if not names:
                raise ChipError(ChipCode.READER_ERROR, "no PC/SC reader")
            name = names[0]
        return PcscTransport(name, apdu_timeout=self.apdu_timeout)

    def watch(
        self,
        on_status: Callable[[ReaderStatusChanged], None],
        on_card: Callable[[bool], None] | None = None,
        *,
        interval: float = 0.5,
    ) -> ChipWatch:
        """Poll every ``interval`` seconds on a daemon thread: ``on_status`` when the
        reader's status changes (plugged, unplugged: ``LOST``, back: ``reconnected``),
        ``on_card`` when a card is put on (True) or taken off (False). Called from the
        watch's thread; stop it with :meth:`ChipWatch.stop`."""
        # its own reader and PC/SC context: a wait_for_card blocking on ours never
        # delays the status bar
        own = PcscChipReader(self.reader, apdu_timeout=self.apdu_timeout)
        watch = ChipWatch(own, on_status, on_card, interval)
        watch.start()
        return watch

    # -- PC/SC -------------------------------------------------------------------------

    def _ctx(self) -> Any:
        scard = _scard()
        if self._context is None:
            hresult, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
            if hresult != scard.SCARD_S_SUCCESS:
                raise ChipError(ChipCode.READER_ERROR, _message(scard, hresult))
            self._context = context
        return self._context

    def _drop_context(self) -> None:
        if self._context is not None:
            with contextlib.suppress(Exception):
                _scard().SCardReleaseContext(self._context)
            self._context = None

    def _list(self) -> list[str]:
        scard = _scard()
        with self._lock:
            hresult, names = scard.SCardListReaders(self._ctx(), [])
            if hresult == getattr(scard, "SCARD_E_NO_READERS_AVAILABLE", None):
                return []
            if hresult != scard.SCARD_S_SUCCESS:
                self._drop_context()  # pcscd restarted: a new context next time
                raise ChipError(ChipCode.READER_ERROR, _message(scard, hresult))
            return [str(name) for name in names]

    def _matching(self, names: list[str]) -> list[str]:
        if not self.reader:
            return names
        wanted = self.reader.casefold()
        return [name for name in names if wanted in name.casefold()]

    def _snapshot(self) -> _Snapshot:
        try:
            scard = _scard()
            names = self._matching(self._list())
        except ChipError as error:
            self.detail = error.detail
            return _Snapshot(DeviceStatus.NOT_FOUND, "", False, error.detail)
        if not names:
            self.detail = f"no reader matching {self.reader!r}" if self.reader else "no reader"
            return _Snapshot(DeviceStatus.NOT_FOUND, "", False, self.detail)
        name = names[0]
        with self._lock:
            hresult, found = scard.SCardGetStatusChange(
                self._ctx(), 0, [(name, scard.SCARD_STATE_UNAWARE)]
            )
        if hresult != scard.SCARD_S_SUCCESS:
            self.detail = _message(scard, hresult)
            return _Snapshot(DeviceStatus.ERROR, name, False, self.detail)
        state = found[0][1]
        card = bool(state & scard.SCARD_STATE_PRESENT)
        if state & scard.SCARD_STATE_EXCLUSIVE:
            self.detail = "the card is held by another program"
            return _Snapshot(DeviceStatus.BUSY, name, card, self.detail)
        self.detail = ""
        return _Snapshot(DeviceStatus.READY, name, card, "")


class ChipWatch:
    """The polling thread of :meth:`PcscChipReader.watch`."""

    def __init__(
        self,
        reader: PcscChipReader,
        on_status: Callable[[ReaderStatusChanged], None],
        on_card: Callable[[bool], None] | None,
        interval: float,
    ) -> None:
        self._reader = reader
        self._on_status = on_status
        self._on_card = on_card
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pcsc-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._thread.join(timeout=timeout)

    def _run(self) -> None:
        status: DeviceStatus | None = None
        card: bool | None = None
        lost = False
        while not self._stop.is_set():
            now = self._reader._snapshot()
            if now.status is not status:
                back = lost and now.status is DeviceStatus.READY
                shown = now.status
                if status is DeviceStatus.READY and now.status is DeviceStatus.NOT_FOUND:
                    shown, lost = DeviceStatus.LOST, True  # it was working and went away
                elif back:
                    lost = False
                self._on_status(ReaderStatusChanged(shown, now.detail, reconnected=back))
                status = now.status
            if self._on_card is not None and now.card is not card:
                if card is not None or now.card:
                    self._on_card(now.card)
                card = now.card
            self._stop.wait(self._interval)
