"""The text people read for every code: Spanish first, then English (STYLE.md rule 13).

The domain answers with codes (members of :class:`admission.codes.Code` enums); the
screens, printed reports and the command line's human output turn them into text here,
in one place, for the clerk at the counter, the game director and the gaming inspector.
Texts are short, plain and precise, and cite the regulation (Decreto 58/2006) where the
article is what the person needs to know.

The catalogue is keyed by the code's value: one value has one meaning in every feature
(``REASON_REQUIRED`` is the same refusal at the desk, in the card book and for a
voucher). A code without text shows as itself, never as an error: :func:`text` does not
raise. ``tests/test_catalogue.py`` checks that every member of every ``Code`` enum has
both texts here and that no text is left for a code nobody declares.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

__all__ = ["LANGUAGES", "Entry", "entries", "missing_texts", "text", "unused_texts"]

LANGUAGES = ("es", "en")  # Spanish first: the desk's working language

# code value -> (Spanish, English); grouped by the enum that declares the code.
_TEXTS: dict[str, tuple[str, str]] = {
    # -- the audit trail as read (admission.audit_trail) ------------------------------------
    "AUDIT_ANCHOR_INVALID": (
        "El ancla no es válida: escriba NÚMERO:RESUMEN (64 caracteres hexadecimales)",
        "The anchor is not valid: type NUMBER:DIGEST (64 hexadecimal characters)",
    ),
    "AUDIT_FILTER_INVALID": (
        "El usuario o el tipo de acto no es válido (letras, cifras y _ . @ -)",
        "The user or kind of act is not valid (letters, digits and _ . @ -)",
    ),
    "AUDIT_DATE_RANGE": (
        "Fechas no válidas: la primera después de la última, o más de un año",
        "Invalid dates: the first after the last, or more than a year",
    ),
    "VISIT": ("Visita registrada", "Visit recorded"),
    "CARD_PRINTED": ("Tarjeta impresa", "Card printed"),
    "CARD_REPRINT": ("Tarjeta reimpresa", "Card reprinted"),
    "CARD_VOID": ("Tarjeta anulada", "Card voided"),
    "CARD_CHECK": ("Tarjeta comprobada", "Card checked"),
    "BAN_ADD": ("Prohibición de entrada anotada", "Entry ban recorded"),
    "BAN_LIFT": ("Prohibición levantada", "Ban lifted"),
    "BAN_LIST": ("Lista de prohibiciones consultada", "Ban list read"),
    "BAN_QUERY": ("Prohibición consultada", "Ban looked up"),
    "STAFF_SET": ("Personal del casino modificado", "Casino staff changed"),
    "INSPECT_SEARCH": ("Búsqueda en el fichero", "File searched"),
    "INSPECT_TIMELINE": ("Visitas de una ficha consultadas", "A file's visits read"),
    "INSPECT_EXPORT": ("Exportación del fichero", "File exported"),
    "REPORT_DAY": ("Libro diario exportado", "Day book exported"),
    "REPORT_FIGURES": ("Cifras consultadas", "Figures read"),
    "ACCESS_REPORT": ("Informe de acceso (RGPD)", "Access report (GDPR)"),
    "AUDIT_BROWSE": ("Registro de auditoría consultado", "Audit trail read"),
    "AUDIT_EXPORT": ("Registro de auditoría exportado", "Audit trail exported"),
    "REGISTRY_IMPORTED": ("Copia del RIAJ importada", "RIAJ copy imported"),
    "ERASED": ("Datos borrados", "Data erased"),
    "PURGE": ("Borrado de visitas caducadas", "Expired visits erased"),
    "VOUCHER_ISSUED": ("Volante provisional emitido", "Provisional voucher issued"),
    "VOUCHER_CANCELLED": ("Volante anulado", "Voucher cancelled"),
    "VOUCHER_EXCHANGED": ("Volante canjeado por tarjeta", "Voucher exchanged for a card"),
    "SETTINGS_CHANGED": ("Configuración cambiada", "Settings changed"),
    "OVERRIDE": ("Autorización del director de juegos", "Game director's authorisation"),
    "RECTIFIED": ("Datos rectificados", "Data rectified"),
    "LEAFLET_PRINTED": ("Folleto impreso", "Leaflet printed"),
    "VISITOR_QUERY": ("Ficha de visitante consultada", "Visitor file read"),
    # -- the verdict (admission.verdict.Outcome) ------------------------------------------
    "ADMIT": ("Puede entrar", "May enter"),
    "SUPERVISOR": ("Decide el director de juegos", "The game director decides"),
    "DENY": ("No puede entrar", "May not enter"),
    "NOT_ADMITTED": (
        "No admitido, sin denegación: no se ha dado la entrada",
        "Not admitted, not refused: no entry was given",
    ),
    # -- the verdict's reasons (admission.verdict.Reason) ---------------------------------
    "MINOR": (
        "Menor de edad: no puede entrar (art. 21.1)",
        "Under 18: may not enter (art. 21.1)",
    ),
    "BIRTH_DATE_UNKNOWN": (
        "Sin fecha de nacimiento: no se puede comprobar la edad",
        "No birth date: the age cannot be checked",
    ),
    "REGISTRY_LISTED": (
        "Inscrito en el Registro de Interdicciones (RIAJ): no puede entrar (art. 21.1)",
        "Listed in the access-ban register (RIAJ): may not enter (art. 21.1)",
    ),
    "REGISTRY_UNVERIFIABLE": (
        "No se ha podido consultar el Registro de Interdicciones (RIAJ) (art. 20.2)",
        "The access-ban register (RIAJ) could not be checked (art. 20.2)",
    ),
    "INTERNAL_BAN": (
        "Prohibición de entrada del casino en vigor (art. 21.2-3)",
        "The casino's own ban is in force (art. 21.2-3)",
    ),
    "CASINO_STAFF": (
        "Personal del casino: solo con permiso del director de juegos (art. 18.1.a)",
        "Casino staff: only with the game director's leave (art. 18.1.a)",
    ),
    "GAME_DIRECTOR": (
        "Director de juegos: no puede jugar (art. 18.1.b)",
        "Game director: may not play (art. 18.1.b)",
    ),
    "DOCUMENT_EXPIRED": ("Documento caducado", "Document expired"),
    "DOCUMENT_INVALID": (
        "Documento no válido: no supera las comprobaciones",
        "Document not valid: it fails its checks",
    ),
    "DOCUMENT_NOT_ACCEPTED": (
        "Documento no admitido: DNI, pasaporte, permiso de conducir o tarjeta de residencia"
        " (art. 23.1)",
        "Document not accepted: ID card, passport, driving licence or residence card (art. 23.1)",
    ),
    "LAST_HOUR": (
        "Última hora antes del cierre: no se admiten entradas (art. 21.4)",
        "Last hour before closing: no new admissions (art. 21.4)",
    ),
    "CLOSED": (
        "Fuera del horario de las salas de juego (art. 27)",
        "Outside the gaming rooms' opening hours (art. 27)",
    ),
    "DISMISSED_BY_CLERK": (
        "No admitido: el empleado descartó la admisión sin confirmarla",
        "Not admitted: dismissed by the clerk without confirming it",
    ),
    # -- documents typed in (admission.documents.DocumentErrorCode) -----------------------
    "MANUAL_BAD_TYPE": ("Tipo de documento desconocido", "Unknown document type"),
    "MANUAL_BAD_ISSUER": (
        "País emisor no válido: no es un código ICAO 9303",
        "Invalid issuing country: not an ICAO 9303 code",
    ),
    "MANUAL_BAD_NUMBER": (
        "Número de documento no válido (letras y cifras; DNI o NIE si es español)",
        "Invalid document number (letters and digits; a DNI or NIE if Spanish)",
    ),
    "DNI_CHECK_LETTER": ("Letra del DNI o NIE incorrecta", "Wrong DNI or NIE check letter"),
    "MANUAL_BAD_NAME": (
        "Nombre no válido: solo letras, espacios, apóstrofos, guiones y puntos (máx. 60)",
        "Invalid name: letters, spaces, apostrophes, hyphens and dots only (max. 60)",
    ),
    "MANUAL_BAD_DATE": (
        "Fecha no plausible (nacimiento o caducidad)",
        "Implausible date (birth or expiry)",
    ),
    "MANUAL_BAD_NATIONALITY": (
        "Nacionalidad no válida: no es un código ICAO 9303",
        "Invalid nationality: not an ICAO 9303 code",
    ),
    "MANUAL_BAD_SEX": ("Sexo no válido: M, F o X", "Invalid sex: M, F or X"),
    "MRZ_UNUSABLE": (
        "La zona de lectura mecánica no da un número de documento utilizable",
        "The machine-readable zone gives no usable document number",
    ),
    # -- machine-readable zones (admission.mrz.parse.MrzError) ----------------------------
    "MRZ_EMPTY": ("Zona de lectura mecánica vacía", "The machine-readable zone is empty"),
    "MRZ_INPUT_TOO_LONG": (
        "Lectura demasiado larga para una zona de lectura mecánica",
        "Input too long for a machine-readable zone",
    ),
    "MRZ_TOO_MANY_LINES": (
        "Demasiadas líneas para una zona de lectura mecánica",
        "Too many lines for a machine-readable zone",
    ),
    "MRZ_LINE_TOO_LONG": (
        "Línea demasiado larga para una zona de lectura mecánica",
        "Line too long for a machine-readable zone",
    ),
    "MRZ_BAD_CHARACTER": (
        "Carácter no permitido en la zona de lectura mecánica",
        "Character not allowed in a machine-readable zone",
    ),
    "MRZ_UNKNOWN_FORMAT": (
        "Formato desconocido: la zona de lectura mecánica tiene 2 o 3 líneas",
        "Unknown format: a machine-readable zone has 2 or 3 lines",
    ),
    "MRZ_BAD_LENGTH": (
        "Longitud de línea incorrecta: 3x30, 2x36 o 2x44 caracteres",
        "Wrong line length: 3x30, 2x36 or 2x44 characters",
    ),
    "INVALID_DOCUMENT_CODE": (
        "Código de tipo de documento no válido en la zona de lectura mecánica",
        "Invalid document type code in the machine-readable zone",
    ),
    "INVALID_ISSUER": (
        "País emisor no válido en la zona de lectura mecánica",
        "Invalid issuing country in the machine-readable zone",
    ),
    "INVALID_BIRTH_DATE": (
        "Fecha de nacimiento no válida en la zona de lectura mecánica",
        "Invalid birth date in the machine-readable zone",
    ),
    "INVALID_EXPIRY_DATE": (
        "Fecha de caducidad no válida en la zona de lectura mecánica",
        "Invalid expiry date in the machine-readable zone",
    ),
    "INVALID_SEX": (
        "Sexo no válido en la zona de lectura mecánica",
        "Invalid sex in the machine-readable zone",
    ),
    "INVALID_NAME": (
        "Nombre vacío o con cifras en la zona de lectura mecánica",
        "Name empty or with digits in the machine-readable zone",
    ),
    # -- check digits (admission.mrz.layout.MrzCheckError): a misread or a forgery --------
    "CHECK_DOCUMENT_NUMBER": (
        "Dígito de control del número de documento incorrecto",
        "Document number check digit does not match",
    ),
    "CHECK_BIRTH_DATE": (
        "Dígito de control de la fecha de nacimiento incorrecto",
        "Birth date check digit does not match",
    ),
    "CHECK_EXPIRY_DATE": (
        "Dígito de control de la fecha de caducidad incorrecto",
        "Expiry date check digit does not match",
    ),
    "CHECK_PERSONAL_NUMBER": (
        "Dígito de control del número personal incorrecto",
        "Personal number check digit does not match",
    ),
    "CHECK_COMPOSITE": (
        "Dígito de control global de la zona de lectura mecánica incorrecto",
        "Composite check digit of the machine-readable zone does not match",
    ),
    # -- North-American driving licences (admission.aamva.AamvaError) ---------------------
    "AAMVA_UNUSABLE": (
        "Código de barras del permiso de conducir ilegible o sin número",
        "Driving licence barcode unreadable or without a number",
    ),
    "AAMVA_BAD_HEADER": (
        "Cabecera del código de barras del permiso no válida",
        "Invalid licence barcode header",
    ),
    "AAMVA_BAD_VERSION": (
        "Versión del código de barras del permiso no reconocida",
        "Unrecognised licence barcode version",
    ),
    "AAMVA_BAD_DESIGNATOR": (
        "Estructura del código de barras del permiso incorrecta",
        "The licence barcode's structure is wrong",
    ),
    "AAMVA_MISSING_DAQ": (
        "Falta el número del permiso en el código de barras",
        "The licence number is missing from the barcode",
    ),
    "AAMVA_MISSING_DCS": (
        "Falta el apellido en el código de barras del permiso",
        "The family name is missing from the licence barcode",
    ),
    "AAMVA_MISSING_DBB": (
        "Falta la fecha de nacimiento en el código de barras del permiso",
        "The birth date is missing from the licence barcode",
    ),
    "AAMVA_MISSING_DBA": (
        "Falta la fecha de caducidad en el código de barras del permiso",
        "The expiry date is missing from the licence barcode",
    ),
    "AAMVA_MISSING_DAJ": (
        "Falta el estado o la provincia emisora en el código de barras del permiso",
        "The issuing state or province is missing from the licence barcode",
    ),
    "AAMVA_BAD_CHARS": (
        "Caracteres no válidos en el código de barras del permiso",
        "Invalid characters in the licence barcode",
    ),
    "AAMVA_BAD_NAME": (
        "Nombre no válido en el código de barras del permiso",
        "Invalid name in the licence barcode",
    ),
    "AAMVA_BAD_NUMBER": ("Número de permiso no válido", "Invalid licence number"),
    "AAMVA_BAD_JURISDICTION": (
        "Estado o provincia emisora desconocida",
        "Unknown issuing state or province",
    ),
    "AAMVA_BAD_COUNTRY": (
        "País del permiso no válido o contradictorio (EE. UU. o Canadá)",
        "Licence country invalid or contradictory (USA or Canada)",
    ),
    "AAMVA_BAD_BIRTH_DATE": (
        "Fecha de nacimiento del permiso no válida",
        "Invalid birth date on the licence",
    ),
    "AAMVA_BAD_EXPIRY_DATE": (
        "Fecha de caducidad del permiso no válida",
        "Invalid expiry date on the licence",
    ),
    "AAMVA_BAD_SEX": ("Sexo no válido en el permiso", "Invalid sex on the licence"),
    # -- document readers (admission.mrz.burst.BurstHint) ---------------------------------
    "BURST_PARTIAL": (
        "Lectura incompleta: vuelva a pasar el documento",
        "Incomplete read: scan the document again",
    ),
    "BURST_TOO_LONG": (
        "Lectura demasiado larga, descartada: vuelva a leer",
        "Read too long, discarded: scan again",
    ),
    "BURST_CONTROL_CHARS": (
        "El lector envió caracteres de control: vuelva a leer",
        "The reader sent control characters: scan again",
    ),
    "BURST_BAD_CHARS": (
        "El lector envió caracteres no válidos: vuelva a leer",
        "The reader sent invalid characters: scan again",
    ),
    # -- what was read (admission.intake.IntakeCode) --------------------------------------
    "MRZ_INVALID": (
        "La zona de lectura mecánica tiene errores: vuelva a leer el documento",
        "The machine-readable zone fails its checks: read the document again",
    ),
    "CODE_NOT_RECOGNISED": (
        "Código no reconocido: ni tarjeta de entrada ni permiso de conducir",
        "Code not recognised: neither an entry card nor a driving licence",
    ),
    # -- entry card checks, art. 22.4 (admission.cards.verification.CardCheckStatus) ------
    "VALID": ("Tarjeta válida", "Card valid"),
    "NOT_YET_VALID": (
        "Tarjeta aún no válida: su validez empieza más tarde",
        "Card not valid yet: its validity starts later",
    ),
    "EXPIRED": ("Tarjeta caducada", "Card expired"),
    "VOIDED": ("Tarjeta anulada", "Card voided"),
    "UNKNOWN_NUMBER": (
        "Tarjeta que no está en el fichero (borrada a los seis meses, art. 20.4)",
        "Card not in the visitor file (erased after six months, art. 20.4)",
    ),
    "CODE_TAMPERED": ("Código de tarjeta falso o mal tecleado", "Card code forged or mistyped"),
    "CODE_MALFORMED": ("No es un código de tarjeta de entrada", "Not an entry card code"),
    "OTHER_CASINO": ("Tarjeta de otro casino", "Card from another casino"),
    # -- card codes (admission.cards.code.CardCodeErrorCode; the other two are above) -----
    "CODE_OTHER_CASINO": ("Tarjeta expedida por otro casino", "Card issued by another casino"),
    # -- the desk (admission.desk.DeskErrorCode) ------------------------------------------
    "EXCEPTIONAL_NEEDS_DIRECTOR": (
        "La tarjeta excepcional necesita el nombre del director de juegos (art. 23.5)",
        "An exceptional card needs the game director's name (art. 23.5)",
    ),
    "DIRECTOR_REQUIRED": (
        "Falta el nombre del director de juegos que autoriza",
        "The authorising game director's name is missing",
    ),
    "EVALUATION_STALE": (
        "Veredicto demasiado antiguo: lea el documento de nuevo",
        "Verdict too old: read the document again",
    ),
    "OFFICIAL_NEEDS_CAPACITY": (
        "Indique el cargo del funcionario (art. 24.2)",
        "State the official's capacity (art. 24.2)",
    ),
    "CARD_NOT_FOUND": ("Tarjeta no encontrada", "Card not found"),
    "NOT_DISMISSIBLE": (
        "Solo se descarta una admisión en pantalla",
        "Only an admission on screen can be dismissed",
    ),
    "DESK_SERVER_AWAY": (
        "Sin servidor: no se admite a nadie; F9 da un volante provisional (art. 23.4)",
        "No server: nobody is admitted; F9 gives a provisional voucher (art. 23.4)",
    ),
    "ADMISSION_OUTCOME_UNKNOWN": (
        "No se sabe si la admisión se registró: pulse de nuevo, se registra una sola vez",
        "Unknown whether the admission was recorded: press again, it is recorded once",
    ),
    # -- the visitor file's rules (admission.records.RecordErrorCode) ---------------------
    "REASON_REQUIRED": ("Hay que indicar el motivo", "A reason is required"),
    "REASON_TOO_LONG": (
        "Motivo demasiado largo (máximo 500 caracteres)",
        "Reason too long (500 characters at most)",
    ),
    "CARD_VOIDED": (
        "Tarjeta anulada: no se imprime ni se modifica",
        "Card voided: it is not printed or changed",
    ),
    "CARD_VISITOR_MISMATCH": (
        "La tarjeta no corresponde a este visitante",
        "The card does not belong to this visitor",
    ),
    "CARD_ON_DENY": (
        "A un visitante rechazado no se le expide tarjeta",
        "A refused visitor gets no card",
    ),
    "OFFICIAL_NO_CARD": (
        "Los funcionarios en servicio no llevan tarjeta (art. 24)",
        "Officials on duty get no card (art. 24)",
    ),
    "AUTHORISATION_REQUIRED": (
        "La tarjeta excepcional exige la autorización del director de juegos (art. 23.5)",
        "An exceptional card needs the game director's authorisation (art. 23.5)",
    ),
    "BAD_VALIDITY": (
        "La validez de la tarjeta termina antes de empezar",
        "The card's validity ends before it starts",
    ),
    "BAN_LIFTED": ("La prohibición ya estaba levantada", "The ban was already lifted"),
    "BAD_EXPIRY": (
        "La prohibición debe terminar después de empezar",
        "The ban must end after it starts",
    ),
    # -- provisional vouchers, art. 23.4 (admission.vouchers.model.VoucherErrorCode) ------
    "VOUCHER_BAD_PRICE": ("Importe del volante no válido", "Invalid voucher amount"),
    "VOUCHER_NO_DOCUMENT": (
        "El volante provisional exige depositar el documento (art. 23.4)",
        "A provisional voucher needs the document deposited (art. 23.4)",
    ),
    "VOUCHER_CLOSED": (
        "Volante ya canjeado o cancelado",
        "Voucher already exchanged or cancelled",
    ),
    "VOUCHER_BAD_CARD": (
        "Número de tarjeta no válido para el canje",
        "Invalid card number for the exchange",
    ),
    "VOUCHER_NOT_OPEN": (
        "No hay ningún volante pendiente con ese número",
        "No open voucher with that number",
    ),
    "VOUCHER_DOCUMENT_MISMATCH": (
        "No es el documento depositado con el volante",
        "Not the document deposited with the voucher",
    ),
    # -- card types, art. 23.2-3 (admission.cards.catalogue.CardTypeErrorCode) ------------
    "CARD_TYPE_BAD": ("Tipo de tarjeta mal configurado", "Card type badly configured"),
    "CARD_TYPE_BAD_CODE": (
        "Código de tipo de tarjeta no válido: letras, cifras y _",
        "Invalid card type code: letters, digits and _",
    ),
    "CARD_TYPE_BAD_PRICE": (
        "Falta el precio de la tarjeta o no es válido: escriba euros, p. ej. 5 o 5,50",
        "The card price is missing or not valid: type euros, e.g. 5 or 5.50",
    ),
    "CARD_TYPE_BAD_VALIDITY": (
        "Validez de la tarjeta fuera de rango: de 1 a 366 días",
        "Card validity out of range: 1 to 366 days",
    ),
    "CARD_TYPE_DUPLICATE": ("Tipo de tarjeta repetido", "Duplicate card type"),
    "UNKNOWN_CARD_TYPE": ("Tipo de tarjeta no configurado", "Card type not configured"),
    # -- the desk leaflet, art. 25.1 (admission.leaflet.LeafletErrorCode) -----------------
    "LEAFLET_BAD_BET_LIMIT": (
        "Apuestas mínima y máxima del folleto mal configuradas (art. 25.1)",
        "Leaflet minimum and maximum bets badly configured (art. 25.1)",
    ),
    # -- settings (admission.settings.SettingsErrorCode) ----------------------------------
    "UNKNOWN_SETTING": ("Ajuste desconocido", "Unknown setting"),
    "SETTING_BAD_TYPE": (
        "Valor de tipo incorrecto para este ajuste",
        "Value of the wrong type for this setting",
    ),
    "SETTING_BAD_CHOICE": (
        "Valor no permitido para este ajuste",
        "Value not allowed for this setting",
    ),
    "SETTING_BAD_FORMAT": (
        "Formato no válido para este ajuste",
        "Invalid format for this setting",
    ),
    "SETTINGS_UNREADABLE": (
        "No se puede leer el archivo de ajustes",
        "The settings file cannot be read",
    ),
    "SETTINGS_VERSION": (
        "Archivo de ajustes de una versión desconocida o posterior",
        "Settings file from an unknown or newer version",
    ),
    # -- errors without a more precise code (admission.errors.ErrorCode) ------------------
    "ADMISSION_ERROR": ("Error del servicio de admisión", "Admission desk error"),
    "NOT_FOUND": ("No encontrado", "Not found"),
    "INVALID_STATE": (
        "Operación no permitida en este momento",
        "Operation not allowed at this point",
    ),
    "DEVICE_ERROR": ("Error del dispositivo", "Device error"),
    "CONFIG_ERROR": ("Error de configuración", "Configuration error"),
    # -- the visitor file, art. 20.3-4 (admission.errors.StoreErrorCode) ------------------
    "STORE_ERROR": ("Error del fichero de visitantes", "Visitor file error"),
    "WRONG_KEY": (
        "Clave del fichero de visitantes incorrecta; el fichero no se ha modificado",
        "Wrong key for the visitor file; the file was not changed",
    ),
    "CORRUPT_FILE": (
        "No es un fichero de visitantes cifrado; no se ha modificado",
        "Not an encrypted visitor file; it was not changed",
    ),
    "NO_SQLCIPHER": (
        "Falta la biblioteca de cifrado (SQLCipher)",
        "The encryption library (SQLCipher) is missing",
    ),
    "OPEN_FAILED": (
        "No se puede abrir el fichero de visitantes",
        "The visitor file cannot be opened",
    ),
    "READ_FAILED": (
        "Error al leer el fichero de visitantes",
        "Reading the visitor file failed",
    ),
    "WRITE_FAILED": (
        "No se ha podido guardar: no se ha registrado nada",
        "Saving failed: nothing was recorded",
    ),
    "STORE_BUSY": (
        "Fichero de visitantes ocupado: inténtelo de nuevo",
        "Visitor file busy: try again",
    ),
    "STORE_CLOSED": ("El fichero de visitantes está cerrado", "The visitor file is closed"),
    "CLOSE_FAILED": (
        "Error al cerrar el fichero de visitantes",
        "Closing the visitor file failed",
    ),
    "MIGRATION_CONFLICT": (
        "Actualización mal empaquetada: dos migraciones con el mismo número",
        "Badly packaged update: two migrations share a number",
    ),
    "MIGRATION_FAILED": (
        "Falló la actualización del fichero de visitantes; conserva su versión anterior",
        "Upgrading the visitor file failed; it keeps its previous version",
    ),
    "NO_KEY": (
        "Sin clave del fichero: variable de entorno, llavero del sistema o frase de paso",
        "No key for the file: environment variable, system keyring or passphrase",
    ),
    "KEYRING_FAILED": (
        "El llavero del sistema falló o no guardó la clave",
        "The system keyring failed or did not keep the key",
    ),
    # -- the file's passphrase without a keyring (admission.passphrase.PassphraseCode) ---
    "PASSPHRASE_TOO_SHORT": (
        "Frase de paso demasiado corta: al menos 12 caracteres",
        "Passphrase too short: at least 12 characters",
    ),
    "PASSPHRASE_TOO_LONG": (
        "Frase de paso demasiado larga: como mucho 256 caracteres",
        "Passphrase too long: at most 256 characters",
    ),
    "PASSPHRASE_TOO_SIMPLE": (
        "Fácil de adivinar: use 4 palabras o más, o mezcle mayúsculas, minúsculas, cifras y signos",
        "Easy to guess: use 4 words or more, or mix upper and lower case, digits and signs",
    ),
    "PASSPHRASE_BAD_CHARACTER": (
        "La frase de paso tiene un carácter de control",
        "The passphrase has a control character",
    ),
    # -- devices (admission.devices.DeviceErrorCode): the camera --------------------------
    "CAMERA_NOT_FOUND": ("No se encuentra la cámara", "The camera cannot be found"),
    "CAMERA_LOST": (
        "Se ha perdido la conexión con la cámara",
        "The camera stopped sending images",
    ),
    "CAMERA_END_OF_STREAM": (
        "No quedan más imágenes que leer",
        "There are no more images to read",
    ),
    "CAMERA_NO_MEDIA": ("La cámara no da imagen", "The camera gives no image"),
    "CAMERA_BUSY": (
        "La cámara está en uso por otro programa",
        "Another program is using the camera",
    ),
    "CAMERA_PAUSED": ("La cámara está en pausa", "The camera is paused"),
    "CAMERA_REJECTING": ("La cámara no admite lecturas", "The camera refuses to be read"),
    "CAMERA_ERROR": ("Error de la cámara", "The camera reported an error"),
    # -- devices: the barcode decoder -----------------------------------------------------
    "DECODER_NOT_FOUND": (
        "El programa lector de códigos de barras no está instalado",
        "The barcode reading software is not installed",
    ),
    "DECODER_ERROR": (
        "No se ha podido leer el código de barras",
        "The barcode could not be read",
    ),
    # -- devices: the printer and its spooler ---------------------------------------------
    "CUPS_NOT_INSTALLED": (
        "El sistema de impresión no está instalado",
        "The printing system is not installed",
    ),
    "CUPS_TIMEOUT": (
        "El sistema de impresión no responde",
        "The printing system is not responding",
    ),
    "PRINTER_BAD_NAME": (
        "El nombre de impresora configurado no es válido",
        "The configured printer name is not valid",
    ),
    "PRINTER_NOT_FOUND": (
        "No se encuentra la impresora de tarjetas",
        "The card printer cannot be found",
    ),
    "PRINTER_PAUSED": ("La impresora está en pausa", "The printer is paused"),
    "PRINTER_REJECTING": (
        "La impresora no acepta trabajos",
        "The printer is not accepting jobs",
    ),
    "PRINTER_NO_MEDIA": (
        "La impresora no tiene tarjetas o papel",
        "The printer is out of cards or paper",
    ),
    "PRINTER_ERROR": (
        "La impresora indica un error (atasco, tapa abierta, sin conexión)",
        "The printer reports an error (jam, cover open, offline)",
    ),
    "PRINT_SUBMIT_FAILED": (
        "La impresora ha rechazado el documento",
        "The printer refused the document",
    ),
    "PRINT_UNKNOWN_JOB": (
        "La impresora no reconoce el trabajo de impresión",
        "The printer does not know this print job",
    ),
    # -- devices: a print's outcome; the card stays pending, art. 22.3 --------------------
    "RENDER_FAILED": (
        "No se ha podido preparar el documento para imprimir",
        "The document could not be prepared for printing",
    ),
    "PRINT_FAILED": (
        "La impresión se ha cancelado; queda pendiente de reimprimir",
        "Printing was cancelled; it can be printed again",
    ),
    "PRINTER_VANISHED": (
        "La impresora ha desaparecido durante la impresión",
        "The printer disappeared while printing",
    ),
    "PRINT_TIMEOUT": (
        "La impresión ha tardado demasiado y se ha cancelado",
        "Printing took too long and was cancelled",
    ),
    # -- the barcode decoder's setting (hardware.barcode.BarcodeConfigCode) ---------------
    "UNKNOWN_DECODER": (
        "Lector de códigos de barras mal configurado: use zxing o zbar",
        "Barcode reader badly configured: use zxing or zbar",
    ),
    # -- photos and scans of documents (hardware.mrz.images.ImageErrorCode) ---------------
    "NOT_AN_IMAGE": (
        "El archivo no es una imagen que se pueda leer",
        "The file is not an image that can be read",
    ),
    "TRUNCATED_IMAGE": (
        "La imagen está incompleta (el archivo está cortado)",
        "The image is incomplete (the file is cut short)",
    ),
    "IMAGE_TOO_LARGE": ("La imagen es demasiado grande", "The image is too large"),
    "FILE_NOT_FOUND": ("No se encuentra el archivo", "The file cannot be found"),
    # -- reading a document's image (hardware.mrz.reader.ReadReason) ----------------------
    "NO_MRZ": (
        "No se encuentra la zona de lectura mecánica en la imagen",
        "No machine-readable zone found in the image",
    ),
    "MRZ_UNREADABLE": (
        "La zona de lectura mecánica no se lee con seguridad: vuelva a leer",
        "The machine-readable zone cannot be read reliably: read it again",
    ),
    # -- the camera's hints to the clerk (hardware.mrz.live.Quality) ----------------------
    "OK": ("Documento leído", "Document read"),
    "READING": ("Leyendo: mantenga el documento quieto", "Reading: hold the document still"),
    "NO_DOCUMENT": (
        "No se ve ningún documento: colóquelo ante la cámara",
        "No document in view: place it in front of the camera",
    ),
    "TOO_FAR": (
        "Documento demasiado lejos: acérquelo a la cámara",
        "Document too far away: bring it closer to the camera",
    ),
    "BLURRED": (
        "Imagen borrosa: mantenga el documento quieto y enfocado",
        "Blurred image: hold the document still and in focus",
    ),
    "GLARE": (
        "Reflejos en el documento: inclínelo o apártelo de la luz",
        "Glare on the document: tilt it or move it out of the light",
    ),
    # -- watching a camera (hardware.mrz.watch.WatchReason) -------------------------------
    "NO_READING": (
        "La cámara no ha podido leer el documento",
        "The camera could not read the document",
    ),
    # -- printed cards and documents (hardware.printer.render.CardWarning) ----------------
    "LOGO_MISSING": (
        "Se imprime sin logotipo: no está configurado o no se encuentra el archivo",
        "Printed without the logo: none is configured or the file is missing",
    ),
    "LOGO_TOO_LARGE": (
        "Se imprime sin logotipo: el archivo es demasiado grande",
        "Printed without the logo: the file is too large",
    ),
    "LOGO_UNREADABLE": (
        "Se imprime sin logotipo: el archivo no es una imagen válida",
        "Printed without the logo: the file is not a valid image",
    ),
    "SIGNATURE_MISSING": (
        "Se imprime sin la firma del director: no se encuentra el archivo",
        "Printed without the director's signature: the file is missing",
    ),
    "SIGNATURE_TOO_LARGE": (
        "Se imprime sin la firma del director: el archivo es demasiado grande",
        "Printed without the director's signature: the file is too large",
    ),
    "SIGNATURE_UNREADABLE": (
        "Se imprime sin la firma del director: el archivo no es una imagen válida",
        "Printed without the director's signature: the file is not a valid image",
    ),
    "NAME_TRUNCATED": (
        "El nombre no cabe entero en la tarjeta: se ha recortado",
        "The name does not fit on the card: it was shortened",
    ),
    "NO_SIGNATURE_OR_LOGO": (
        "Tarjeta sin firma del director ni sello del casino (art. 22.3)",
        "Card without the director's signature or the casino's seal (art. 22.3)",
    ),
    # -- the print service (hardware.printer.service.PrintServiceErrorCode) ---------------
    "PRINT_NOT_CONFIGURED": (
        "La impresión de tarjetas no está preparada: falta el fichero de visitantes",
        "Card printing is not set up: the visitor file is missing",
    ),
    "REPRINT_NEEDS_REASON": (
        "Tarjeta ya impresa: indique el motivo de la reimpresión",
        "Card already printed: give the reason for reprinting",
    ),
    # -- desk papers (hardware.printer.desk_documents.PaperError) -------------------------
    "REGULATION_UNREADABLE": (
        "No se puede leer el texto del reglamento para imprimirlo",
        "The regulation's text cannot be read for printing",
    ),
    # -- the command line (ui.cli.result.CliError; NOT_FOUND and MANUAL_BAD_DATE above) ---
    "USAGE": (
        "Orden mal escrita: consulte la ayuda (--help)",
        "Command not valid: see the help (--help)",
    ),
    # -- documents as they really are (ICAO 9303 part 3; art. 23.1) ------------------
    "UNKNOWN_ISSUER": (
        "País emisor desconocido: no es un código ICAO 9303",
        "Unknown issuing state: not an ICAO 9303 code",
    ),
    "UNKNOWN_NATIONALITY": (
        "Nacionalidad desconocida: no es un código ICAO 9303",
        "Unknown nationality: not an ICAO 9303 code",
    ),
    "SPECIMEN": (
        "Documento espécimen: no identifica a nadie (art. 23.1)",
        "Specimen document: it identifies nobody (art. 23.1)",
    ),
    "SPECIMEN_STATE": (
        "Espécimen: Estado ficticio (Utopía, ICAO 9303)",
        "Specimen: fictitious state (Utopia, ICAO 9303)",
    ),
    "SPECIMEN_NUMBER": (
        "Espécimen: número de un modelo publicado",
        "Specimen: number of a published specimen",
    ),
    "SPECIMEN_ID_NUMBER": (
        "Espécimen: DNI o número personal de un modelo publicado",
        "Specimen: ID or personal number of a published specimen",
    ),
    "SPECIMEN_NAME": (
        "Espécimen: titular de un modelo publicado",
        "Specimen: holder of a published specimen",
    ),
    "VISA_NOT_IDENTITY": (
        "Un visado no es documento de identidad (art. 23.1)",
        "A visa is not an identity document (art. 23.1)",
    ),
    "CREW_CARD_NOT_IDENTITY": (
        "Un certificado de tripulante no es documento de identidad (art. 23.1)",
        "A crew member certificate is not an identity document (art. 23.1)",
    ),
    "DOCUMENT_KIND_NOT_IDENTITY": (
        "Este tipo de documento no es de identidad (art. 23.1)",
        "This kind of document is not an identity document (art. 23.1)",
    ),
    # -- the visitor file that never starts over, and its damage (art. 20.4) ----------
    "NO_FILE": (
        "No hay fichero de visitantes en esta carpeta: créelo con el comando init",
        "There is no visitor file in this folder: create it with the init command",
    ),
    "FILE_EXISTS": (
        "Ya hay un fichero de visitantes (o su marca) en esta carpeta: no se creó otro",
        "This folder already has a visitor file (or its marker): no new file was created",
    ),
    "FILE_MISSING": (
        "Falta el fichero de visitantes: recupérelo de la copia de seguridad",
        "The visitor file is missing: restore it from the backup",
    ),
    "FILE_EMPTIED": (
        "El fichero de visitantes se ha vaciado: recupérelo de la copia de seguridad",
        "The visitor file has been emptied: restore it from the backup",
    ),
    "FILE_REPLACED": (
        "Este no es el fichero de visitantes de la carpeta: recupere el suyo de la copia",
        "This is not the visitor file of this folder: restore the right one from the backup",
    ),
    "MARKER_MISSING": (
        "Falta o está dañada la marca del fichero: recupérela de la copia o use init --adopt",
        "The file's marker is missing or damaged: restore it from the backup or init --adopt",
    ),
    "DAMAGED_FILE": (
        "El fichero de visitantes está dañado y no admite cambios: recupere la copia",
        "The visitor file is damaged and takes no changes: restore it from the backup",
    ),
    "READ_ONLY_DISK": (
        "No se puede escribir en el disco o la carpeta del fichero de visitantes",
        "The disk or folder of the visitor file cannot be written to",
    ),
    "DISK_FULL": (
        "El disco está lleno: no se ha registrado nada. Libere espacio y repita",
        "The disk is full: nothing was recorded. Free some space and try again",
    ),
    "CARD_FILE_DISK_FULL": (
        "Tarjeta emitida, pero el disco está lleno: su PDF no se guardó; reimprímala",
        "Card issued, but the disk is full: its PDF was not saved; reprint it",
    ),
    "CARD_FILE_UNWRITABLE": (
        "Tarjeta emitida, pero su PDF no se pudo guardar en la carpeta; reimprímala",
        "Card issued, but its PDF could not be saved in the folder; reprint it",
    ),
    # -- the keyed audit trail (art. 20.4, 14.1.b) and one card per person (art. 22) --
    "ALREADY_ADMITTED": (
        "Ya tiene una tarjeta válida: no se emite otra; puede reimprimirse si la perdió",
        "Already holds a valid card: no second card is issued; it can be reprinted if lost",
    ),
    "UNKEYED_ENTRY": (
        "Una entrada de la auditoría usa el algoritmo antiguo sin clave",
        "An audit entry claims the old unkeyed algorithm",
    ),
    "LEGACY_CHAIN_BROKEN": (
        "La cadena de auditoría ya estaba rota antes de protegerse con clave",
        "The audit chain was already broken before it was keyed",
    ),
    "ANCHOR_MISMATCH": (
        "La entrada no coincide con la cabecera guardada fuera del fichero",
        "The entry differs from the head kept outside the file",
    ),
    "ANCHOR_NOT_FOUND": (
        "La cadena es más corta que la cabecera guardada fuera del fichero",
        "The chain is shorter than the head kept outside the file",
    ),
    "ROW_CHANGED": (
        "Un registro (visita, tarjeta, prohibición...) difiere de lo anotado en la auditoría",
        "A row (visit, card, ban...) differs from what the audit trail recorded",
    ),
    "ROW_UNRECORDED": (
        "Hay un registro que la auditoría nunca anotó",
        "A row the audit trail never recorded",
    ),
    "ROW_ROLLED_BACK": (
        "Un registro se devolvió a un estado anterior ya superado",
        "A row was put back to an older recorded state",
    ),
    "ROWS_MISSING": (
        "Faltan registros borrados fuera de una eliminación auditada",
        "Rows were erased outside an audited erasure",
    ),
    "AUDIT_KEY_MISSING": (
        "Falta la clave de auditoría de este fichero: no se anota nada sin ella",
        "This file's audit key is missing: nothing is recorded without it",
    ),
    "AUDIT_KEY_WRONG": (
        "La clave de auditoría no es la de este fichero",
        "The audit key is not this file's",
    ),
    "AUDIT_KEY_BAD": (
        "La clave de auditoría (variable o fichero de la clave) debe tener 64 caracteres "
        "hexadecimales",
        "The audit key (variable or key file) must be 64 hexadecimal characters",
    ),
    "AUDIT_KEY_LOST": (
        "Falta la clave de auditoría del fichero: restáurela de la copia o del llavero; no se "
        "crea otra",
        "The file's audit key is missing: restore it from the backup or the keyring; no new "
        "key is made",
    ),
    "CARD_NUMBER_GAP": (
        "El contador de tarjetas no sigue a la última tarjeta anotada en la auditoría",
        "The card counter does not follow the last card the audit trail recorded",
    ),
    "VOUCHER_NUMBER_GAP": (
        "El contador de volantes no sigue al último volante anotado en la auditoría",
        "The voucher counter does not follow the last voucher the audit trail recorded",
    ),
    "SETTINGS_UNRECORDED": (
        "La configuración cambió fuera de su pantalla: no es la última anotada en la auditoría",
        "The settings changed outside their screen: not the last the audit trail recorded",
    ),
    "BLIND_INDEX_MISMATCH": (
        "El índice de búsqueda de una identidad no corresponde a esa identidad",
        "An identity's search index does not belong to that identity",
    ),
    "REPRINT_POSSIBLE": (
        "Puede reimprimirse la tarjeta que ya tiene, indicando el motivo",
        "The card already held can be reprinted, giving a reason",
    ),
    "BAD_ANCHOR": (
        "--anchor debe ser SEQ:RESUMEN (un número y 64 caracteres hexadecimales)",
        "--anchor must be SEQ:DIGEST (a number and 64 hex characters)",
    ),
    # -- bounded input (STYLE.md rule 14) -------------------------------------------
    "SNAPSHOT_LINE_TOO_LONG": (
        "Lista del RIAJ rechazada: una línea es demasiado larga (se indica cuál)",
        "RIAJ list refused: a line is too long (its number is given)",
    ),
    "SNAPSHOT_TOO_LARGE": (
        "Lista del RIAJ rechazada: supera el tamaño máximo admitido",
        "RIAJ list refused: it is larger than the maximum accepted",
    ),
    "SNAPSHOT_NOT_A_FILE": (
        "Lista del RIAJ rechazada: no es un fichero normal",
        "RIAJ list refused: it is not a regular file",
    ),
    "IMAGE_TOO_SMALL": (
        "La imagen es demasiado pequeña para leer un documento",
        "The image is too small to read a document",
    ),
    "IMAGE_READ_FAILED": (
        "No se ha podido leer la imagen",
        "The image could not be read",
    ),
    "BAD_NUMBER": (
        "Número fuera de rango",
        "Number out of range",
    ),
    # -- the clock (admission.clock.ClockCode) ---------------------------------------
    "FUTURE_INSTANT": (
        "La fecha y hora indicada es posterior a la de este ordenador: revise el año",
        "The instant given is ahead of this computer's clock: check the year",
    ),
    "SUSPECT_CLOCK": (
        "Purga no hecha: el reloj parece adelantado respecto al fichero (art. 20.4)",
        "Purge not done: the clock seems ahead of the visitor file (art. 20.4)",
    ),
    "CLOCK_BEHIND_FILE": (
        "El reloj del ordenador va por detrás del último registro: corríjalo antes de admitir",
        "The computer's clock is behind the last record: correct it before admitting",
    ),
    "BAD_INSTANT": (
        "Fecha y hora no válida: ISO-8601 entre 1900 y 2100 (2026-12-03T21:30)",
        "The instant is not valid: ISO-8601 between 1900 and 2100 (2026-12-03T21:30)",
    ),
    "BAD_DATE": (
        "La fecha no es válida: AAAA-MM-DD, entre 1900 y 2100 (2026-12-03)",
        "The date is not valid: YYYY-MM-DD, between 1900 and 2100 (2026-12-03)",
    ),
    "BAD_QUERY": (
        "Búsqueda no válida: de 2 a 100 caracteres, límite de 1 a 500",
        "Invalid search: 2 to 100 characters, a limit of 1 to 500",
    ),
    "BAD_VISITOR_ID": (
        "Visitante no válido: dé un número de fichero, un DNI/NIE o TIPO:PAÍS:NÚMERO",
        "Invalid visitor: give a file number, a DNI/NIE or KIND:COUNTRY:NUMBER",
    ),
    "BAD_IDENTITY": (
        "Documento no válido: --id es un número de documento y --kind un tipo conocido",
        "Invalid document: --id is a document number and --kind a known type",
    ),
    "BAD_RECORDING": (
        "La grabación del lector no es válida: se espera [[carácter, tiempo], ...]",
        "The reader recording is not valid: expected [[character, time], ...]",
    ),
    "USAGE_NO_IMAGES": ("Indique al menos una imagen", "Give at least one image"),
    "OUTPUT_UNWRITABLE": (
        "No se puede escribir el archivo de salida en esa ruta",
        "The output file cannot be written there",
    ),
    # -- files the desk writes (admission.atomic_file.OutputCode) -------------------------
    "OUTPUT_EXISTS": (
        "Ya hay un archivo con ese nombre: indique --force para sustituirlo",
        "A file with that name is already there: give --force to replace it",
    ),
    "OUTPUT_PROTECTED": (
        "Esa ruta es el fichero de visitantes o algo suyo: nunca se escribe encima",
        "That path is the visitor file or belongs to it: it is never written over",
    ),
    "OUTPUT_NOT_A_FILE": (
        "Esa ruta no es un archivo: es una carpeta, un dispositivo o similar",
        "That path is not a file: it is a folder, a device or the like",
    ),
    "OUTPUT_NO_FOLDER": (
        "La carpeta indicada no existe o no se puede abrir",
        "The folder given is not there or cannot be opened",
    ),
    "OUTPUT_NAME_TOO_LONG": (
        "El nombre es demasiado largo (255 bytes por nombre, 4096 la ruta entera)",
        "The name is too long (255 bytes a name, 4096 the whole path)",
    ),
    "MANUAL_BAD_DOC_TYPE": (
        "Tipo de documento desconocido en --doc-type",
        "Unknown document type in --doc-type",
    ),
    # -- the audit trail (db.audit_chain.AuditChainCode) ----------------------------------
    "SEQUENCE_GAP": (
        "Registro de auditoría no íntegro: falta un asiento o está desordenado",
        "Audit trail fails verification: an entry is missing or out of order",
    ),
    "CHAIN_BROKEN": (
        "Registro de auditoría no íntegro: la cadena está rota",
        "Audit trail fails verification: the chain is broken",
    ),
    "DIGEST_MISMATCH": (
        "Registro de auditoría no íntegro: un asiento se modificó",
        "Audit trail fails verification: an entry was changed",
    ),
    "TAIL_MISSING": (
        "Registro de auditoría no íntegro: faltan los últimos asientos",
        "Audit trail fails verification: the latest entries are missing",
    ),
    # -- the RIAJ check, art. 20.2 (admission.registry.port.RegistryErrorCode) ------------
    "REGISTRY_NOT_CONFIGURED": (
        "RIAJ sin configurar: ni servicio en línea ni copia local",
        "RIAJ not configured: no online service and no local copy",
    ),
    "REGISTRY_UNAVAILABLE": (
        "Servicio en línea del RIAJ no disponible",
        "RIAJ online service unavailable",
    ),
    "REGISTRY_ADAPTER_ERROR": (
        "Fallo interno al consultar el RIAJ",
        "Internal failure while checking the RIAJ",
    ),
    "REPLICA_UNDATED": (
        "Copia local del RIAJ sin fecha: no sirve para comprobar",
        "Local RIAJ copy has no date: it cannot be used",
    ),
    "REPLICA_STALE": ("Copia local del RIAJ demasiado antigua", "Local RIAJ copy too old"),
    "REPLICA_EMPTY": (
        "No hay copia local del RIAJ: importe una",
        "No local RIAJ copy: import one",
    ),
    "REPLICA_READ_FAILED": (
        "Error al leer la copia local del RIAJ",
        "Reading the local RIAJ copy failed",
    ),
    "REGISTRY_TIMEOUT": ("El RIAJ no respondió a tiempo", "The RIAJ did not answer in time"),
    "REGISTRY_CONNECTION": ("Sin conexión con el RIAJ", "No connection to the RIAJ"),
    "REGISTRY_TLS": (
        "Falló la conexión segura con el RIAJ (certificados)",
        "Secure connection to the RIAJ failed (certificates)",
    ),
    "REGISTRY_HTTP_5XX": (
        "El servicio del RIAJ falló (error del servidor)",
        "The RIAJ service failed (server error)",
    ),
    "REGISTRY_HTTP_ERROR": (
        "El servicio del RIAJ rechazó la consulta",
        "The RIAJ service refused the request",
    ),
    "REGISTRY_FAULT": (
        "El servicio del RIAJ devolvió un error",
        "The RIAJ service returned an error",
    ),
    "REGISTRY_MALFORMED": ("Respuesta del RIAJ no válida", "Invalid answer from the RIAJ"),
    "REGISTRY_UNEXPECTED_PERSON": (
        "El RIAJ respondió sobre alguien no consultado: respuesta descartada",
        "The RIAJ answered about someone not asked: answer discarded",
    ),
    "REGISTRY_NO_ANSWER": (
        "El RIAJ no respondió sobre esta persona",
        "The RIAJ gave no answer for this person",
    ),
    "REGISTRY_CANNOT_VERIFY": (
        "El RIAJ no puede verificar a esta persona (COD006)",
        "The RIAJ cannot verify this person (COD006)",
    ),
    "SYNC_FAILED": (
        "Falló la actualización de la copia local del RIAJ",
        "Updating the local RIAJ copy failed",
    ),
    # -- setting up the RIAJ adapters (admission.registry.port.RegistryConfigCode) --------
    "REGISTRY_ENDPOINT": (
        "Dirección del servicio del RIAJ no válida: debe ser https",
        "Invalid RIAJ service address: it must be https",
    ),
    "REGISTRY_SETTINGS": (
        "Ajustes del servicio del RIAJ fuera de rango",
        "RIAJ service settings out of range",
    ),
    "REGISTRY_CLIENT_CERT": (
        "Certificado de cliente del RIAJ inutilizable",
        "RIAJ client certificate unusable",
    ),
    "KEYRING_UNAVAILABLE": ("Llavero del sistema no disponible", "System keyring unavailable"),
    "REGISTRY_PUBLIC_KEY": (
        "Clave pública del RIAJ no válida (Ed25519)",
        "Invalid RIAJ public key (Ed25519)",
    ),
    # -- RIAJ files and changes (admission.registry.snapshot.SnapshotErrorCode) -----------
    "SNAPSHOT_INVALID": ("Archivo del RIAJ rechazado", "RIAJ file rejected"),
    "SNAPSHOT_UNREADABLE": (
        "No se puede leer el archivo del RIAJ",
        "The RIAJ file cannot be read",
    ),
    "SNAPSHOT_EMPTY": ("Archivo del RIAJ vacío", "The RIAJ file is empty"),
    "SNAPSHOT_ENCODING": (
        "Archivo del RIAJ con codificación no válida (no es UTF-8)",
        "RIAJ file with an invalid encoding (not UTF-8)",
    ),
    "SNAPSHOT_UNKNOWN_FORMAT": (
        "Versión del archivo del RIAJ no admitida",
        "Unsupported RIAJ file version",
    ),
    "SNAPSHOT_MALFORMED_LINE": (
        "Línea no válida en el archivo del RIAJ",
        "Invalid line in the RIAJ file",
    ),
    "SNAPSHOT_HEADER_MISSING": (
        "Falta una cabecera obligatoria en el archivo del RIAJ",
        "A required header is missing from the RIAJ file",
    ),
    "SNAPSHOT_BAD_HEADER": (
        "Cabecera no válida en el archivo del RIAJ",
        "Invalid header in the RIAJ file",
    ),
    "SNAPSHOT_UNKNOWN_SCHEME": (
        "Esquema de identificadores desconocido en el archivo del RIAJ",
        "Unknown identifier scheme in the RIAJ file",
    ),
    "SNAPSHOT_BAD_SALT": (
        "Sal de los identificadores no válida en el archivo del RIAJ",
        "Invalid identifier salt in the RIAJ file",
    ),
    "SNAPSHOT_WRONG_SCOPE": (
        "El archivo del RIAJ no es el de casinos",
        "The RIAJ file is not the casinos' one",
    ),
    "SNAPSHOT_TRUNCATED": (
        "Archivo del RIAJ incompleto (cortado)",
        "RIAJ file incomplete (truncated)",
    ),
    "SNAPSHOT_TRAILING_DATA": (
        "Datos de más al final del archivo del RIAJ",
        "Extra data at the end of the RIAJ file",
    ),
    "SNAPSHOT_CHECKSUM_MISMATCH": (
        "La suma de comprobación del archivo del RIAJ no coincide",
        "The RIAJ file's checksum does not match",
    ),
    "SNAPSHOT_COUNT_MISMATCH": (
        "El archivo del RIAJ no tiene el número de registros que declara",
        "The RIAJ file does not hold the number of entries it declares",
    ),
    "SNAPSHOT_DUPLICATE": (
        "Identificador repetido en el archivo del RIAJ",
        "Duplicate identifier in the RIAJ file",
    ),
    "SNAPSHOT_UNSIGNED": (
        "Archivo del RIAJ sin firma (se exige firma)",
        "RIAJ file unsigned (a signature is required)",
    ),
    "SNAPSHOT_BAD_SIGNATURE": (
        "Firma del archivo del RIAJ no válida",
        "The RIAJ file's signature is not valid",
    ),
    "SNAPSHOT_FROM_THE_FUTURE": (
        "Archivo del RIAJ con fecha futura",
        "RIAJ file dated in the future",
    ),
    "SNAPSHOT_OLDER_THAN_ACTIVE": (
        "Archivo del RIAJ más antiguo que la copia en uso",
        "RIAJ file older than the copy in use",
    ),
    "SNAPSHOT_VERSION_CONFLICT": (
        "Misma versión del RIAJ con otro contenido",
        "Same RIAJ version with different content",
    ),
    "REPLICA_BUSY": (
        "Copia local del RIAJ ocupada: inténtelo de nuevo",
        "Local RIAJ copy busy: try again",
    ),
    "REPLICA_WRITE_FAILED": (
        "No se pudo guardar la copia local del RIAJ; sigue en uso la anterior",
        "Saving the local RIAJ copy failed; the previous one stays in use",
    ),
    "FEED_MALFORMED_LINE": (
        "Línea no válida en los cambios del RIAJ",
        "Invalid line in the RIAJ changes",
    ),
    "FEED_BAD_ACTION": (
        "Cambio del RIAJ que no es alta (A) ni baja (B)",
        "RIAJ change that is neither an addition (A) nor a removal (B)",
    ),
    "FEED_BAD_IDENTITY": (
        "Número de identidad no válido en los cambios del RIAJ",
        "Invalid identity number in the RIAJ changes",
    ),
    "FEED_BAD_DATE": (
        "Fecha no válida en los cambios del RIAJ",
        "Invalid date in the RIAJ changes",
    ),
    "FEED_OUT_OF_ORDER": (
        "Cambios del RIAJ desordenados o anteriores a la copia local",
        "RIAJ changes out of order or older than the local copy",
    ),
    "FEED_WITHOUT_SNAPSHOT": (
        "Importe primero un archivo del RIAJ: los cambios se aplican sobre él",
        "Import a RIAJ file first: the changes apply to it",
    ),
    "FEED_GAP": (
        "Faltan cambios del RIAJ entre la copia local y los recibidos",
        "RIAJ changes are missing between the local copy and those received",
    ),
    # -- the desk window (ui.desk.desk_flow.DeskFlowCode) ---------------------------------
    "NO_OPERATOR": (
        "Nadie ha iniciado sesión: no se registra nada (art. 20.3)",
        "Nobody is signed in: nothing is recorded (art. 20.3)",
    ),
    "SESSION_LOCKED": (
        "Sesión bloqueada: desbloquéela para seguir",
        "Session locked: unlock it to go on",
    ),
    "NOTHING_TO_RECORD": (
        "No hay ningún veredicto pendiente de registrar",
        "There is no verdict waiting to be recorded",
    ),
    "NOT_A_CARD_CODE": (
        "El código leído no es una tarjeta de entrada de este casino",
        "The code read is not an entry card of this casino",
    ),
    "NOT_OVERRIDABLE": (
        "El director no puede autorizar estos motivos",
        "The director cannot authorise these reasons",
    ),
    "AUTHORISATION_CANCELLED": (
        "Autorización del director cancelada: no se registra nada",
        "Director's authorisation cancelled: nothing is recorded",
    ),
    "JOB_FAILED": (
        "Fallo inesperado en una tarea: inténtelo de nuevo",
        "Unexpected fault in a task: try again",
    ),
    "TOO_MANY_WAITING": (
        "Demasiados documentos en espera: confirme (Intro) o descarte (Esc) el de pantalla",
        "Too many documents waiting: confirm (Enter) or dismiss (Esc) the one on screen",
    ),
    "SCANNED_RECENTLY": (
        "Este documento se ha leído hace unos minutos",
        "This document was read a few minutes ago",
    ),
    "PAST_BAN": (
        "Tuvo una prohibición de entrada del casino, ya terminada (art. 21.2-3)",
        "Had a casino ban, now ended (art. 21.2-3)",
    ),
    "DOCUMENT_EXPIRES_TODAY": (
        "El documento caduca hoy",
        "The document expires today",
    ),
    "DEVICE_GARBAGE": (
        "El dispositivo ha enviado una respuesta no reconocida",
        "The device sent an answer that is not understood",
    ),
    # -- desk accounts (admission.accounts.AccountErrorCode) ------------------------------
    "BAD_CREDENTIALS": ("Usuario o contraseña incorrectos", "Wrong user name or password"),
    "ACCOUNT_LOCKED": (
        "Cuenta bloqueada por demasiados intentos fallidos: espere o avise a un administrador",
        "Account locked after too many failed attempts: wait or call an administrator",
    ),
    "ACCOUNT_DISABLED": ("Cuenta desactivada", "Account disabled"),
    "ROLE_REQUIRED": (
        "Esta cuenta no tiene la función que se necesita (art. 20.3)",
        "This account lacks the role needed (art. 20.3)",
    ),
    "WEAK_PASSWORD": (
        "La contraseña debe tener entre 8 y 256 caracteres",
        "The password must have 8 to 256 characters",
    ),
    "USERNAME_TAKEN": ("Ese nombre de usuario ya existe", "That user name already exists"),
    "USERNAME_INVALID": (
        "Nombre de usuario: de 1 a 32 letras a-z, cifras, punto, guion o guion bajo",
        "User name: 1 to 32 letters a-z, digits, dot, hyphen or underscore",
    ),
    "USERNAME_RESERVED": (
        "Ese nombre lo usa el propio programa en el registro de auditoría: elija otro",
        "The program itself writes that name in the audit trail: choose another",
    ),
    "DISPLAY_NAME_INVALID": (
        "Nombre visible: de 1 a 80 caracteres imprimibles",
        "Display name: 1 to 80 printable characters",
    ),
    "ROLES_EMPTY": (
        "La cuenta necesita al menos una función",
        "The account needs at least one role",
    ),
    "FIRST_ACCOUNT_NOT_ADMIN": (
        "La primera cuenta debe ser de administrador",
        "The first account must be an administrator",
    ),
    "ACCOUNT_UNKNOWN": ("No existe esa cuenta", "No such account"),
    "NOT_SIGNED_IN": ("Nadie ha iniciado sesión en el puesto", "Nobody is signed in at the desk"),
    "LAST_ADMIN": (
        "Es el último administrador activo: no se puede quitar ni desactivar",
        "It is the last active administrator: it cannot be removed or disabled",
    ),
    "SESSION_OPERATOR_MISMATCH": (
        "Solo quien bloqueó la sesión puede desbloquearla",
        "Only the operator who locked the session can unlock it",
    ),
    "PURPOSE_INVALID": (
        "Falta el motivo (de 1 a 80 caracteres imprimibles)",
        "The reason is missing (1 to 80 printable characters)",
    ),
    "PIN_INVALID": ("El PIN son de 4 a 8 cifras", "A PIN is 4 to 8 digits"),
    "PIN_NOT_SET": (
        "Este operador no tiene PIN: use la contraseña",
        "This operator has no PIN: use the password",
    ),
    "PIN_ATTEMPTS_EXHAUSTED": (
        "Tres PIN erróneos: ahora solo abre la contraseña",
        "Three wrong PINs: only the password opens it now",
    ),
    "PIN_WAIT": (
        "Espere unos segundos antes de volver a probar el PIN",
        "Wait a few seconds before trying the PIN again",
    ),
    "PINS_DIFFER": ("Los dos PIN no coinciden", "The two PINs differ"),
    "PIN_WRONG": ("PIN incorrecto", "Wrong PIN"),
    # -- the gaming inspectors' queries (admission.inspection.InspectionCode) -----------
    "INSPECTOR_ROLE_REQUIRED": (
        "Solo un inspector de juego o el director de juegos consulta el fichero (art. 20.4)",
        "Only a gaming inspector or the game director queries the file (art. 20.4)",
    ),
    "INSPECT_PURPOSE_INVALID": (
        "Indique el motivo de la consulta (de 3 a 200 caracteres de texto)",
        "State the purpose of the query (3 to 200 characters of text)",
    ),
    "QUERY_TOO_LONG": (
        "La consulta es demasiado larga (200 caracteres como máximo)",
        "The query is too long (200 characters at most)",
    ),
    "INSPECT_QUERY_INVALID": (
        "Consulta no válida: revise el texto, el número o el límite",
        "Invalid query: check the text, the number or the limit",
    ),
    "INSPECT_NO_CRITERIA": (
        "Indique al menos un criterio de búsqueda",
        "Give at least one search criterion",
    ),
    "INSPECT_DATE_RANGE": (
        "La fecha inicial es posterior a la final",
        "The start date is after the end date",
    ),
    "INSPECT_FILE_UNKNOWN": (
        "No hay ninguna ficha con ese número",
        "There is no file with that number",
    ),
    # -- data protection (admission.data_protection.DataProtectionCode) ------------------
    "RECTIFY_ROLE_REQUIRED": (
        "Solo el director de juegos rectifica datos del fichero (arts. 14.1.b, 20.3)",
        "Only the game director rectifies data in the file (arts. 14.1.b, 20.3)",
    ),
    "RECTIFY_REASON_INVALID": (
        "Indique el motivo de la rectificación (de 3 a 200 caracteres de texto)",
        "State the reason for the rectification (3 to 200 characters of text)",
    ),
    "RECTIFY_VALUE_INVALID": (
        "Dato no válido: nombres de 1 a 60 letras, observaciones de 1 a 500 caracteres",
        "Invalid value: names of 1 to 60 letters, observations of 1 to 500 characters",
    ),
    "RECTIFY_UNCHANGED": (
        "El fichero ya guarda ese dato: no hay nada que rectificar",
        "The file already holds that value: there is nothing to rectify",
    ),
    "RECTIFY_NOT_FOUND": (
        "No hay ninguna ficha u observación con ese número",
        "There is no file or observation with that number",
    ),
    "RETENTION_ROLE_REQUIRED": (
        "La conservación la consultan el director, un administrador o la inspección",
        "Retention is viewed by the director, an administrator or the inspectors",
    ),
    # -- observations (admission.observations.ObservationCode) ----------------------------
    "OBSERVATION_ROLE_REQUIRED": (
        "Las observaciones las añaden el personal de admisión o el director (art. 20.3)",
        "Observations are added by the admission staff or the director (art. 20.3)",
    ),
    "OBSERVATION_TEXT_INVALID": (
        "Escriba la observación: de 1 a 500 caracteres de texto, sin caracteres de control",
        "Write the observation: 1 to 500 characters of text, no control characters",
    ),
    "OBSERVATION_FILE_UNKNOWN": (
        "No hay ninguna ficha con ese número",
        "There is no file with that number",
    ),
    # -- reports and exports (admission.reports.ReportCode) -------------------------------
    "REPORT_ROLE_REQUIRED": (
        "Este informe es del director de juegos o de la inspección (arts. 14.1.b, 20.4)",
        "This report is for the game director or the inspectors (arts. 14.1.b, 20.4)",
    ),
    "EXPORT_DISK_FULL": (
        "El disco está lleno: no se ha escrito ningún archivo",
        "The disk is full: no file was written",
    ),
    "EXPORT_READ_ONLY": (
        "No se puede escribir en esa carpeta: no se ha escrito ningún archivo",
        "That folder cannot be written to: no file was written",
    ),
    "EXPORT_FAILED": (
        "No se ha podido escribir la exportación: no se ha dejado ningún archivo",
        "The export could not be written: no file was left",
    ),
    "EXPORT_FORMAT_INVALID": (
        "Formato no disponible para este informe (PDF o CSV)",
        "Format not available for this report (PDF or CSV)",
    ),
    "ACCESS_SUBJECT_UNKNOWN": (
        "No hay ninguna ficha de esa persona en el fichero",
        "There is no file of that person in the visitor file",
    ),
    "ACCESS_SUBJECT_REQUIRED": (
        "Indique la ficha o el número de documento (uno de los dos)",
        "Give the file number or the document number (one of the two)",
    ),
    "ACCESS_SUBJECT_AMBIGUOUS": (
        "Ese número corresponde a varias fichas: indique el número de ficha",
        "That number matches several files: give the file number",
    ),
    "REPORT_DATE_INVALID": (
        "Fechas no válidas: la inicial después de la final o más de un año",
        "Invalid dates: start after end, or more than a year",
    ),
    # -- the director's and administrator's dialogs (ui.desk.dialogs.common.DialogCode) ---
    "DIRECTOR_NOT_CONFIRMED": (
        "Sin la confirmación del director de juegos no se ha registrado nada",
        "Without the game director's confirmation nothing was recorded",
    ),
    "SETTINGS_NEED_ADMIN": (
        "Solo un administrador puede cambiar la configuración",
        "Only an administrator may change the settings",
    ),
    "PRINTER_NEEDS_ROLE": (
        "Solo el director de juegos o un administrador eligen la impresora",
        "Only the game director or an administrator chooses the printer",
    ),
    "HOURS_BAD_FORMAT": (
        "Horario no válido: HH:MM-HH:MM o «cerrado» (art. 27)",
        "Opening hours not valid: HH:MM-HH:MM or «closed» (art. 27)",
    ),
    "HOLIDAY_BAD_DATE": (
        "Festivo no válido: escriba AAAA-MM-DD",
        "Holiday not valid: write YYYY-MM-DD",
    ),
    "PASSWORDS_DIFFER": ("Las dos contraseñas no coinciden", "The two passwords differ"),
    "IDENTITY_UNREADABLE": (
        "Identidad no reconocida: DNI/NIE o TIPO:PAÍS:NÚMERO",
        "Identity not understood: DNI/NIE or KIND:COUNTRY:NUMBER",
    ),
    "DOCUMENT_NOT_ON_SCREEN": (
        "No hay ningún documento leído en pantalla",
        "No document has been read on screen",
    ),
    "FIELD_REQUIRED": ("Falta un dato obligatorio", "A required field is empty"),
    "SELECTION_REQUIRED": (
        "Seleccione antes una fila de la lista",
        "Select a row of the list first",
    ),
    "SETTINGS_NOT_SAVED": (
        "No se ha podido guardar el archivo de configuración",
        "The settings file could not be saved",
    ),
    # -- the window's start and smoke run (ui.desk.app.AppCode) ---------------------------
    "NO_DISPLAY": (
        "No hay pantalla: abra la ventana desde el escritorio o use python main.py demo",
        "No display: open the window from the desktop session or use python main.py demo",
    ),
    "WINDOW_PART_MISSING": (
        "Falta una parte de la ventana en esta instalación: reinstale el programa",
        "A part of the window is missing from this installation: reinstall the program",
    ),
    "START_CANCELLED": (
        "Se cerró sin iniciar sesión: la recepción no se abre",
        "Closed without signing in: the desk does not open",
    ),
    "SMOKE_FAILED": (
        "La prueba de la ventana no completó la admisión de demostración",
        "The window's smoke run did not complete the demo admission",
    ),
    "SMOKE_TIMEOUT": (
        "La prueba de la ventana superó su tiempo máximo",
        "The window's smoke run took longer than its limit",
    ),
    # -- signing in at the command line (ui.cli.sign_in.SignInCode) ----------------------
    "USER_REQUIRED": (
        "Indique quién trabaja: --user NOMBRE o ADMISSION_USER",
        "Say who is working: --user NAME or ADMISSION_USER",
    ),
    "PASSWORD_REQUIRED": (
        "Falta la contraseña: variable de entorno o terminal para teclearla",
        "The password is missing: an environment variable or a terminal to type it",
    ),
    "NO_ACCOUNTS": (
        "El fichero aún no tiene cuentas: créelas con 'account add'",
        "The file has no accounts yet: create them with 'account add'",
    ),
    "DIRECTOR_NAME_REQUIRED": (
        "Decisión del director de juegos: indique --director NOMBRE (art. 20.3)",
        "A game director's decision: give --director NAME (art. 20.3)",
    ),
    "DIRECTOR_ACCOUNT_REQUIRED": (
        "Decisión del director de juegos: cree primero las cuentas ('account add')",
        "A game director's decision: create the accounts first ('account add')",
    ),
    "PURPOSE_REQUIRED": (
        "La inspección indica para qué consulta el fichero: --purpose TEXTO (art. 20.4)",
        "An inspector states what the query is for: --purpose TEXT (art. 20.4)",
    ),
    # -- the desk window's menus (ui.desk.menus.base.MenuCode) ----------------------------
    "ADMIN_NOT_CONFIRMED": (
        "Hace falta un administrador: no se ha abierto nada",
        "An administrator is needed: nothing was opened",
    ),
    "VOUCHER_NEEDS_ADMIT": (
        "Volante solo para un veredicto que admite y aún sin registrar (art. 23.4)",
        "A voucher only for a verdict that admits, not recorded yet (art. 23.4)",
    ),
    "SETTINGS_AUDIT_FAILED": (
        "Configuración guardada, pero no se pudo anotar en el registro de auditoría",
        "Settings saved, but the audit entry could not be written",
    ),
    # -- backups of the visitor file, art. 20.4 (db.backup.BackupCode) --------------------
    "BACKUP_WRITE_FAILED": (
        "No se pudo escribir la copia (disco lleno o de solo lectura); no queda nada a medias",
        "The backup could not be written (disk full or read-only); no partial file is left",
    ),
    "BACKUP_NOT_FOUND": ("No se encuentra la copia de seguridad", "The backup is not there"),
    "BACKUP_DAMAGED": (
        "La copia de seguridad está dañada: use otra copia",
        "The backup is damaged: use another backup",
    ),
    "BACKUP_AUDIT_BROKEN": (
        "El registro de auditoría de la copia no es íntegro: no se restaura (art. 20.4)",
        "The backup's audit trail does not verify: it is not restored (art. 20.4)",
    ),
    "BACKUP_OTHER_CASINO": (
        "La copia es del fichero de otro casino: no se restaura",
        "The backup is another casino's file: it is not restored",
    ),
    "RESTORE_FILE_EXISTS": (
        "Esta carpeta ya tiene un fichero de visitantes: una restauración nunca lo sustituye",
        "This folder already holds a visitor file: a restore never replaces it",
    ),
    "RESTORE_WRITE_FAILED": (
        "No se pudo copiar la copia de seguridad en la carpeta; la carpeta queda como estaba",
        "The backup could not be copied into the folder; the folder is left as it was",
    ),
    "RESTORE_SOURCE_LIVE": (
        "El origen es un fichero en uso y no se pudo copiar entero: haga una copia con backup",
        "The source is a file in use and could not be copied whole: take a backup of it",
    ),
    # -- a restore older than the folder's record (admission.restore_loss) ---------------
    "RESTORE_LOSES_DATA": (
        "La copia es anterior a lo registrado: solo con --accept-loss y el director de juego",
        "The backup is older than what was recorded: only with --accept-loss and the director",
    ),
    "NEWER_BACKUP": (
        "La carpeta conoce una copia de seguridad más reciente",
        "The folder knows a more recent backup",
    ),
    "NEWER_CARD_PDF": (
        "La carpeta de tarjetas tiene tarjetas posteriores a la copia",
        "The card folder holds cards issued after the backup",
    ),
    "ISSUED_RECORD": (
        "El registro junto al fichero tiene números posteriores a la copia",
        "The record beside the file holds numbers issued after the backup",
    ),
    "AUDIT_HEAD": (
        "La auditoría registrada junto al fichero va más allá de la copia",
        "The audit head recorded beside the file is past the backup's",
    ),
    "OTHER_FILE": (
        "La carpeta tenía otro fichero de visitantes: todo lo suyo se pierde",
        "The folder held another visitor file: all of it is lost",
    ),
    "STALE_BACKUP": (
        "Hay una copia de seguridad de hace más de seis meses: destrúyala (art. 20.4)",
        "A backup older than six months is still there: destroy it (art. 20.4)",
    ),
    "BACKUP_ROLE_REQUIRED": (
        "La copia de seguridad la hace un administrador o el director de juegos",
        "A backup is taken by an administrator or the game director",
    ),
    # -- the server's visitor file: sealed values and data keys (db.pg.crypto.PgCryptoCode)
    "PG_VALUE_TRUNCATED": (
        "Un dato cifrado del servidor está truncado (art. 20.4)",
        "An encrypted value on the server is truncated (art. 20.4)",
    ),
    "PG_VALUE_FORMAT_UNKNOWN": (
        "Un dato cifrado tiene un formato que esta versión no conoce",
        "An encrypted value has a format this version does not know",
    ),
    "PG_DATA_KEY_UNKNOWN": (
        "Falta la clave de datos con que se cifró un dato",
        "The data key an encrypted value was sealed with is missing",
    ),
    "PG_VALUE_WRONG_KEY": (
        "Un dato cifrado lo fue con otra clave: ¿base de datos de otro casino?",
        "A value was sealed with another key: another casino's database?",
    ),
    "PG_VALUE_TAMPERED": (
        "Un dato cifrado no supera su comprobación: alterado o movido de fila o columna",
        "An encrypted value fails its check: changed, or moved to another row or column",
    ),
    "PG_INSTALLATION_KEY_WRONG": (
        "La clave de esta instalación no es la que protege las claves de datos",
        "This installation's key is not the one protecting the data keys",
    ),
    "PG_WRAPPED_KEY_TAMPERED": (
        "Una clave de datos del servidor está alterada o es de otra base de datos",
        "A data key on the server was changed or comes from another database",
    ),
    "PG_NO_DATA_KEY": (
        "El servidor no guarda ninguna clave de datos del fichero de visitantes",
        "The server holds no data key for the visitor file",
    ),
    "PG_ROTATION_STUCK": (
        "El cambio de clave no avanza: el servidor devuelve filas ya cifradas",
        "The key rotation makes no progress: the server returns rows already done",
    ),
    # -- key rotation of the server's visitor file (db.pg.rotation.PgRotationCode) -------
    "PG_ROTATION_MODE_UNKNOWN": (
        "Indique --rewrap, --reencrypt o --retire",
        "Give --rewrap, --reencrypt or --retire",
    ),
    "PG_ROTATION_NEW_KEY_MISSING": (
        "Falta la clave nueva: póngala en ADMISSION_NEW_DB_KEY",
        "The new key is missing: put it in ADMISSION_NEW_DB_KEY",
    ),
    "PG_ROTATION_RUNNING": (
        "Otro puesto está cambiando las claves ahora",
        "Another desk is rotating the keys now",
    ),
    "PG_ROTATION_OLD_VERSION_IN_USE": (
        "Quedan datos cifrados con una clave antigua: termine el recifrado antes de retirarla",
        "Data is still sealed under an old key: finish the re-encryption before retiring it",
    ),
    "PG_ROTATION_TABLE_UNKNOWN": (
        "El servidor tiene una tabla cifrada que este programa no sabe recifrar",
        "The server has an encrypted table this program cannot re-encrypt",
    ),
    # -- provisional vouchers queued while the server is unreachable (art. 23.4;
    #    db.offline_queue.OfflineQueueCode)
    "OFFLINE_QUEUE_OTHER_DESK": (
        "La cola de volantes provisionales es de otro puesto",
        "The provisional voucher queue belongs to another desk",
    ),
    "OFFLINE_QUEUE_IN_USE": (
        "Otro programa tiene abierta la cola de volantes provisionales",
        "Another program holds the provisional voucher queue",
    ),
    "OFFLINE_QUEUE_NEWER": (
        "La cola de volantes la escribió una versión más reciente del programa",
        "The voucher queue was written by a newer version of the program",
    ),
    "OFFLINE_QUEUE_BAD_DESK": (
        "Identificador de puesto no válido para la cola de volantes",
        "Invalid desk id for the voucher queue",
    ),
    "OFFLINE_QUEUE_WRONG_VOUCHER_DESK": (
        "El volante indica otro puesto: no se guarda en esta cola",
        "The voucher names another desk: it is not queued here",
    ),
    "OFFLINE_VOUCHER_NOT_FORMALISED": (
        "El servidor no registró el volante provisional: sigue en la cola (art. 23.4)",
        "The server did not record the provisional voucher: it stays queued (art. 23.4)",
    ),
    # -- connections to the server (db.pg.connect.PgConnectCode) -------------------------
    "PG_SERVER_CERT_REFUSED": (
        "El certificado del servidor no es de la autoridad del casino o no es su nombre",
        "The server's certificate is not from the casino's CA or names another host",
    ),
    "PG_CLIENT_CERT_REFUSED": (
        "El servidor rechaza el certificado de este puesto (o falta)",
        "The server refuses this desk's certificate (or it has none)",
    ),
    "PG_ACCESS_REFUSED": (
        "El servidor no admite esta conexión (¿sin TLS?)",
        "The server does not accept this connection (without TLS?)",
    ),
    "PG_UNREACHABLE": (
        "No se puede contactar con el servidor del fichero de visitantes",
        "The visitor file's server cannot be reached",
    ),
    "PG_CONNECT_FAILED": (
        "No se ha podido conectar con el servidor del fichero de visitantes",
        "Could not connect to the visitor file's server",
    ),
    # -- which store the desk uses (db.pg.target.PgTargetCode) ----------------------------
    "PG_TARGET_BAD_URL": (
        "La dirección del servidor no es válida (puerto, varios servidores...)",
        "The server address is not valid (port, several servers...)",
    ),
    "PG_TARGET_BAD_SCHEME": (
        "La dirección del servidor debe empezar por postgresql://",
        "The server address must start with postgresql://",
    ),
    "PG_TARGET_PASSWORD_IN_URL": (
        "La dirección del servidor no puede llevar contraseña: quítela de la configuración",
        "The server address may not hold a password: remove it from the settings",
    ),
    "PG_TARGET_PARAMETER_REFUSED": (
        "La dirección del servidor lleva una opción no admitida",
        "The server address carries an option that is not accepted",
    ),
    "PG_TARGET_INCOMPLETE": (
        "La dirección del servidor no indica el servidor, la base de datos o el usuario",
        "The server address does not name the host, the database or the role",
    ),
    "PG_TARGET_TLS_TOO_WEAK": (
        "Conexión al servidor sin verificación completa: se exige sslmode=verify-full",
        "Connection without full verification: sslmode=verify-full is required",
    ),
    "PG_TARGET_CERT_MISSING": (
        "Falta el certificado de la autoridad, el del puesto o su clave privada",
        "The CA certificate, this desk's certificate or its private key is missing",
    ),
    "PG_TARGET_KEY_EXPOSED": (
        "La clave privada del puesto es legible por otros usuarios (permisos 600)",
        "This desk's private key is readable by other users (mode 600)",
    ),
    "PG_TARGET_BAD_HOST": (
        "El nombre del servidor no es válido: partes de 1 a 63 caracteres, 253 en total",
        "The server's host name is not valid: parts of 1 to 63 characters, 253 in all",
    ),
    # -- the link to the server (db.pg.latency.PgLinkCode) -------------------------------
    "PG_SERVER_TIMEOUT": (
        "El servidor del fichero de visitantes no responde a tiempo",
        "The visitor file's server does not answer in time",
    ),
    "PG_CONNECTION_LOST": (
        "Se ha perdido la conexión con el servidor del fichero de visitantes",
        "The connection to the visitor file's server was lost",
    ),
    # -- the visitor file on the server (db.pg.codes.PgStoreCode) ------------------------
    "PG_SCHEMA_NEWER": (
        "La base de datos es de una versión más nueva del programa: actualice este puesto",
        "The database belongs to a newer version of the program: update this desk",
    ),
    "PG_MIGRATION_CHANGED": (
        "El esquema aplicado en el servidor no coincide con el de este programa",
        "The schema applied on the server differs from this program's",
    ),
    "PG_MIGRATION_FAILED": (
        "No se pudo actualizar el esquema del servidor; queda como estaba",
        "The server's schema could not be updated; it is left as it was",
    ),
    "PG_NO_VISITOR_FILE": (
        "La base de datos del servidor no contiene ningún fichero de visitantes",
        "The server's database holds no visitor file",
    ),
    "PG_DATABASE_OTHER": (
        "La base de datos del servidor no es la de este casino: no se toca",
        "The server's database is not this casino's: it is left untouched",
    ),
    "PG_DESK_DATABASE_ID_UNREADABLE": (
        "No se puede leer la base de datos asignada al puesto (postgresql/database-id)",
        "The desk's record of its server database (postgresql/database-id) is unreadable",
    ),
    "PG_DESK_ON_SERVER": (
        "El puesto trabaja en el servidor: esta orden es solo para el fichero propio",
        "This desk works on the server: this command is for a desk's own file only",
    ),
    "PG_ROTATION_NEEDS_OWNER": (
        "El cambio de claves lo hace un usuario del grupo propietario del fichero",
        "A key rotation runs as a login of the visitor file's owner group",
    ),
    "PG_DESK_NO_SERVER": (
        "El puesto trabaja con su propio fichero: esta orden es del servidor",
        "This desk works on its own file: this command is for the server",
    ),
    "PG_BUSY": (
        "El servidor está ocupado con otros puestos: inténtelo de nuevo",
        "The server is busy with other desks: try again",
    ),
    "PG_QUERY_FAILED": (
        "El servidor rechazó la operación: no se ha registrado nada",
        "The server refused the operation: nothing was recorded",
    ),
    # -- admission ids on the server (db.pg.store.PgAdmissionCode) ----------------------
    "PG_ADMISSION_ID_REUSED": (
        "Ese identificador de admisión ya se usó para otra admisión: no se registra",
        "That admission id was already used for another admission: nothing recorded",
    ),
    # -- moving a desk's file onto the server (db.pg.copy_file.CopyCode) ----------------
    "PG_COPY_TARGET_NOT_EMPTY": (
        "La base de datos del servidor ya contiene otro fichero: no se copia nada en ella",
        "The server's database already holds another file: nothing is copied into it",
    ),
    "PG_COPY_SOURCE_CHANGED": (
        "El fichero del puesto cambió desde que empezó la copia: cópielo en una base nueva",
        "The desk's file changed since the copy began: copy it into a fresh database",
    ),
    "PG_COPY_SOURCE_UNVERIFIED": (
        "El registro de auditoría del fichero del puesto no se verifica: no se copia",
        "The desk's file's audit trail does not verify: it is not copied",
    ),
    "PG_COPY_AUDIT_KEY_DIFFERS": (
        "El servidor se abrió con otra clave de auditoría que la del fichero: no se copia",
        "The server was opened with another audit key than the file's: nothing is copied",
    ),
    "PG_COPY_RUNNING": (
        "Ya hay otra copia en curso hacia esta base de datos",
        "Another copy into this database is running",
    ),
    "PG_COPY_MISMATCH": (
        "La copia en el servidor no coincide con el fichero del puesto",
        "The copy on the server does not match the desk's file",
    ),
    # -- the inspectors' search on the server (db.pg.inspection.PgInspectionCode) -------
    "PG_INSPECT_TOO_BROAD": (
        "La búsqueda abarca demasiados registros cifrados: añada fechas, un nombre o un número",
        "The search covers too many encrypted records: add a date range, a name or a number",
    ),
    # -- database roles on the server (db.pg.roles.PgRoleCode) ---------------------------
    "PG_SCHEMA_OLDER": (
        "La base de datos necesita migraciones: debe aplicarlas su propietario",
        "The schema needs migrations; the owner must run them",
    ),
    "PG_PURGE_NOT_ALLOWED": (
        "El usuario de base de datos de este puesto no puede depurar el fichero",
        "This desk's database login is not allowed to purge the file",
    ),
    "PG_ROLES_REFUSED": (
        "El servidor no permitió crear o conceder los roles de base de datos",
        "The server refused to create or grant the database roles",
    ),
    "PG_ROLE_UNKNOWN": (
        "No existe ese usuario de base de datos o no es un grupo del fichero",
        "No such database login, or not a group of the visitor file",
    ),
    # -- the provisional voucher given without the server (art. 23.4;
    #    ui.desk.dialogs.vouchers.OfflineVoucherCode)
    "OFFLINE_NO_ADMISSION": (
        "Sin servidor no se admite a nadie: F9 da un volante provisional (art. 23.4)",
        "No admission without the server: F9 gives a provisional voucher (art. 23.4)",
    ),
    "OFFLINE_DOCUMENT_NOT_CHECKED": (
        "Confirme que ha comprobado el documento original (en vigor, mayor de edad)",
        "Confirm you checked the original document (in force, holder of age)",
    ),
    "OFFLINE_VOUCHERS_UNAVAILABLE": (
        "Este puesto no tiene cola de volantes provisionales",
        "This desk has no provisional voucher queue",
    ),
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One code and its texts."""

    code: str
    es: str
    en: str

    def text(self, lang: str = "es") -> str:
        return self.en if _language(lang) == "en" else self.es


def _language(lang: str) -> str:
    """``"en"``, ``"en_GB"`` or ``"en-US"`` -> ``"en"``; anything unknown -> Spanish."""
    base = lang.replace("-", "_").split("_", 1)[0].lower() if isinstance(lang, str) else ""
    return base if base in LANGUAGES else LANGUAGES[0]


def text(code: str, lang: str = "es") -> str:
    """The text of ``code`` in ``lang`` (a language or a locale name such as ``en_GB``).

    An unknown code comes back as itself, an unknown language gets Spanish; never raises.
    """
    key = code if isinstance(code, str) else str(code)
    pair = _TEXTS.get(key)
    if pair is None:
        return key
    return pair[LANGUAGES.index(_language(lang))]


def entries() -> tuple[Entry, ...]:
    """Every code with its texts, in the catalogue's order (grouped by feature)."""
    return tuple(Entry(code, es, en) for code, (es, en) in _TEXTS.items())


def missing_texts(enums: Iterable[type[Enum]]) -> list[str]:
    """``module.Enum.MEMBER`` of every member of ``enums`` whose Spanish or English text is
    missing, empty or just the code (pass ``admission.codes.all_code_enums()``)."""
    missing: list[str] = []
    for enum_class in enums:
        for member in enum_class:
            value = str(member.value)
            texts = _TEXTS.get(value, ("", ""))
            if any(not t.strip() or t.strip() in (value, member.name) for t in texts):
                missing.append(f"{enum_class.__module__}.{enum_class.__qualname__}.{member.name}")
    return missing


def unused_texts(enums: Iterable[type[Enum]]) -> list[str]:
    """Codes with a text here that no member of ``enums`` declares (dead text)."""
    declared = {str(member.value) for enum_class in enums for member in enum_class}
    return [code for code in _TEXTS if code not in declared]
