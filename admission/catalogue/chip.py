"""The document's chip (ICAO 9303): what reading it proved, and why not.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
    # -- admission.chip.ChipStatus ---------------------------------------------------------
    "CHIP_GENUINE": (
        "Chip auténtico: firma del Estado emisor y datos verificados",
        "Genuine chip: the issuing state's signature and the data are verified",
    ),
    "CHIP_NOT_VERIFIABLE": (
        "El chip no se ha podido verificar",
        "The chip could not be verified",
    ),
    "CHIP_FORGED": (
        "Chip falsificado o alterado: no se admite (art. 23.1)",
        "Forged or altered chip: not admitted (art. 23.1)",
    ),
    # -- admission.chip.ChipCode: not verifiable -------------------------------------------
    "CHIP_NO_CHIP": (
        "No hay chip en el lector o el documento no tiene chip de viaje",
        "No chip on the reader, or the document has no travel-document chip",
    ),
    "CHIP_SILENT": (
        "El chip dejó de responder durante la lectura: vuelva a apoyarlo",
        "The chip stopped answering during the read: place it again",
    ),
    "CHIP_SM_BROKEN": (
        "Se interrumpió la comunicación segura con el chip: vuelva a apoyarlo",
        "The secure channel with the chip broke: place it again",
    ),
    "CHIP_ACCESS_DENIED": (
        "El chip no abre con la MRZ o el CAN indicados",
        "The chip does not open with the given MRZ or CAN",
    ),
    "CHIP_CAN_NEEDED": (
        "Este documento necesita el CAN (6 cifras impresas en el anverso)",
        "This document needs its CAN (the 6 digits printed on the front)",
    ),
    "CHIP_NO_MASTER_LIST": (
        "No hay lista maestra de certificados CSCA importada",
        "No CSCA master list has been imported",
    ),
    "CHIP_CSCA_UNKNOWN": (
        "La lista maestra no contiene el certificado del Estado emisor",
        "The master list holds no certificate of the issuing state",
    ),
    "CHIP_READER_ERROR": (
        "Error del lector de chip o de su servicio (PC/SC)",
        "The chip reader or its service (PC/SC) failed",
    ),
    # -- admission.chip.ChipCode: forged ---------------------------------------------------
    "CHIP_SOD_MALFORMED": (
        "El objeto de seguridad del chip (EF.SOD) está dañado o mal formado",
        "The chip's security object (EF.SOD) is damaged or malformed",
    ),
    "CHIP_SOD_SIGNATURE_INVALID": (
        "La firma del objeto de seguridad del chip no es válida",
        "The signature of the chip's security object is not valid",
    ),
    "CHIP_DSC_NOT_SIGNED_BY_CSCA": (
        "El certificado firmante del documento no procede del Estado emisor",
        "The document signer's certificate was not issued by the issuing state",
    ),
    "CHIP_DSC_EXPIRED": (
        "El certificado firmante del documento no era válido",
        "The document signer's certificate was not valid",
    ),
    "CHIP_DSC_REVOKED": (
        "El certificado firmante del documento está revocado",
        "The document signer's certificate is revoked",
    ),
    "CHIP_CSCA_COUNTRY_MISMATCH": (
        "El certificado raíz es de un país distinto del emisor del documento",
        "The root certificate belongs to a country other than the document's issuer",
    ),
    "CHIP_DG_HASH_MISMATCH": (
        "Los datos del chip no coinciden con los firmados por el Estado emisor",
        "The chip's data differ from what the issuing state signed",
    ),
    "CHIP_DG_MISSING": (
        "Faltan en el chip los datos de la MRZ o la fotografía",
        "The chip lacks the MRZ data or the photograph",
    ),
    "CHIP_DG1_MRZ_MISMATCH": (
        "La MRZ del chip no coincide con la impresa en el documento",
        "The chip's MRZ differs from the one printed on the document",
    ),
    "CHIP_AUTH_FAILED": (
        "El chip no superó la autenticación: puede ser una copia",
        "The chip failed authentication: it may be a copy",
    ),
    # -- admission.chip.ChipAuthentication -------------------------------------------------
    "CHIP_AUTHENTICATION": (
        "Autenticación del chip (ICAO 9303-11 §6.2)",
        "Chip Authentication (ICAO 9303-11 §6.2)",
    ),
    "ACTIVE_AUTHENTICATION": (
        "Autenticación activa (ICAO 9303-11 §6.1)",
        "Active Authentication (ICAO 9303-11 §6.1)",
    ),
    "CHIP_AUTH_NONE": (
        "El chip no ofrece autenticación contra copias",
        "The chip offers no clone detection",
    ),
    # -- hardware.chip.masterlist.MasterListCode ------------------------------------------
    "MASTERLIST_MALFORMED": (
        "El fichero no es una lista maestra firmada válida",
        "The file is not a valid signed master list",
    ),
    "MASTERLIST_NOT_A_LIST": (
        "El fichero está firmado pero no es una lista maestra de CSCA (ICAO 9303-12)",
        "The file is signed but is not a CSCA master list (ICAO 9303-12)",
    ),
    "MASTERLIST_SIGNATURE_INVALID": (
        "La firma de la lista maestra no es válida",
        "The master list's signature is not valid",
    ),
    "MASTERLIST_SIGNER_UNTRUSTED": (
        "El firmante de la lista maestra no procede de ninguna CSCA de la lista",
        "The master list's signer was not issued by any CSCA of the list",
    ),
    "MASTERLIST_STALE": (
        "La lista maestra tiene más de 90 días: importe una más reciente",
        "The master list is older than 90 days: import a newer one",
    ),
    "MASTERLIST_NOT_IMPORTED": (
        "No se ha importado ninguna lista maestra (chip masterlist import)",
        "No master list has been imported (chip masterlist import)",
    ),
    "MASTERLIST_TAMPERED": (
        "La lista maestra guardada no es la registrada en la auditoría: impórtela de nuevo",
        "The stored master list is not the one the audit recorded: import it again",
    ),
}
