"""What the document's chip proves: the result of reading an ICAO 9303 chip (eMRTD).

Art. 23.1 asks for a document that identifies the visitor; printed text can be forged,
altered or belong to someone else. The chip of a DNI 3.0/4.0, an EU identity card or a
passport holds the MRZ data (DG1), the holder's photo (DG2) and the issuing state's
signature over both (EF.SOD). Reading it gives one of three statuses:

- ``GENUINE``: the access control worked, the SOD's signature, its Document Signer
  certificate's chain to a CSCA of the issuing country and every data group's hash hold,
  and DG1 equals the printed MRZ;
- ``NOT_VERIFIABLE``: nothing proves the document either way (no chip, no master list,
  no CSCA for its issuer, a chip that would not answer). The casino's policy decides;
- ``FORGED``: a hash or a signature fails, the chain is broken, or DG1 differs from the
  printed MRZ. A refusal nobody waives.

Every result carries one :class:`ChipCode` (``None`` only when genuine). The photo never
enters this module: it stays in the reader's memory for the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import unique

from admission.codes import Code

__all__ = [
    "CHIP_DOCUMENTS",
    "ChipAuthentication",
    "ChipCheck",
    "ChipCode",
    "ChipStatus",
    "carries_chip",
    "status_of",
]

# The art. 23.1 documents issued with an ICAO 9303 chip: identity cards (DNI 3.0/4.0, EU
# cards since 2021), passports and residence cards (TIE). A driving licence's chip, where
# there is one, is no eMRTD (ISO/IEC 18013): the desk does not wait on the reader for it.
CHIP_DOCUMENTS = frozenset({"ID_CARD", "PASSPORT", "RESIDENCE_CARD"})


def carries_chip(doc_type: str) -> bool:
    return doc_type in CHIP_DOCUMENTS


@unique
class ChipStatus(Code):
    GENUINE = "CHIP_GENUINE"
    NOT_VERIFIABLE = "CHIP_NOT_VERIFIABLE"
    FORGED = "CHIP_FORGED"


@unique
class ChipCode(Code):
    """Why a chip read is not GENUINE; the status each one gives is :func:`status_of`."""

    # -- not verifiable: nothing proves the document either way ----------------------------
    NO_CHIP = "CHIP_NO_CHIP"  # no card on the reader, or a card without an eMRTD applet
    CHIP_SILENT = "CHIP_SILENT"  # it stopped answering mid-read (moved away, worn)
    # a secured answer failed its MAC or its counter (ICAO 9303-11 §9.8): a chip moved away
    # mid-APDU or a tampered channel; nothing read through it is trusted, read again
    SM_BROKEN = "CHIP_SM_BROKEN"
    ACCESS_DENIED = "CHIP_ACCESS_DENIED"  # BAC/PACE refused: the MRZ or CAN does not open it
    CAN_NEEDED = "CHIP_CAN_NEEDED"  # PACE only (DNIe 3.0/4.0): the 6-digit CAN is needed
    NO_MASTER_LIST = "CHIP_NO_MASTER_LIST"  # no CSCA master list imported
    CSCA_UNKNOWN = "CHIP_CSCA_UNKNOWN"  # the list holds no CSCA that issued this DSC
    READER_ERROR = "CHIP_READER_ERROR"  # the PC/SC reader or its service failed
    # -- forged: a proof that fails -------------------------------------------------------
    SOD_MALFORMED = "CHIP_SOD_MALFORMED"  # EF.SOD is not a well-formed signed object
    SOD_SIGNATURE_INVALID = "CHIP_SOD_SIGNATURE_INVALID"  # the DSC did not sign this SOD
    DSC_NOT_SIGNED_BY_CSCA = "CHIP_DSC_NOT_SIGNED_BY_CSCA"  # the chain to the CSCA breaks
    DSC_EXPIRED = "CHIP_DSC_EXPIRED"  # the Document Signer was not valid at signing/now
    DSC_REVOKED = "CHIP_DSC_REVOKED"  # on the issuer's CRL
    CSCA_COUNTRY_MISMATCH = "CHIP_CSCA_COUNTRY_MISMATCH"  # a CSCA of another country
    DG_HASH_MISMATCH = "CHIP_DG_HASH_MISMATCH"  # a data group differs from its signed hash
    DG_MISSING = "CHIP_DG_MISSING"  # DG1 or DG2 is absent from the chip or from the SOD
    DG1_MRZ_MISMATCH = "CHIP_DG1_MRZ_MISMATCH"  # the chip's MRZ is not the printed one
    CHIP_AUTH_FAILED = "CHIP_AUTH_FAILED"  # chip authentication failed: a cloned chip


_NOT_VERIFIABLE = frozenset(
    {
        ChipCode.NO_CHIP,
        ChipCode.CHIP_SILENT,
        ChipCode.SM_BROKEN,
        ChipCode.ACCESS_DENIED,
        ChipCode.CAN_NEEDED,
        ChipCode.NO_MASTER_LIST,
        ChipCode.CSCA_UNKNOWN,
        ChipCode.READER_ERROR,
    }
)


def status_of(code: ChipCode | None) -> ChipStatus:
    """The status a code gives: none is genuine, a failing proof is forged."""
    if code is None:
        return ChipStatus.GENUINE
    if code in _NOT_VERIFIABLE:
        return ChipStatus.NOT_VERIFIABLE
    return ChipStatus.FORGED


@unique
class ChipAuthentication(Code):
    """How the chip proved it is not a copy (ICAO 9303-11 §6: clone detection)."""

    CHIP_AUTHENTICATION = "CHIP_AUTHENTICATION"  # ICAO 9303-11 §6.2 (DG14)
    ACTIVE_AUTHENTICATION = "ACTIVE_AUTHENTICATION"  # ICAO 9303-11 §6.1 (DG15)
    NONE = "CHIP_AUTH_NONE"  # the chip offers neither


@dataclass(frozen=True, slots=True)
class ChipCheck:
    """The chip's result as the verdict and the audit see it: no data group, no photo.

    ``access`` is how the channel was opened (``"PACE"``, ``"BAC"`` or ``""`` when it
    was not), ``issuer`` the ICAO code of the state whose CSCA signed (``""`` unknown).
    """

    code: ChipCode | None
    access: str = ""
    authentication: ChipAuthentication = ChipAuthentication.NONE
    issuer: str = ""

    @property
    def status(self) -> ChipStatus:
        return status_of(self.code)

    @property
    def genuine(self) -> bool:
        return self.code is None

    @property
    def forged(self) -> bool:
        return status_of(self.code) is ChipStatus.FORGED
