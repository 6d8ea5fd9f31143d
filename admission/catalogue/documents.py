"""What is read and decided at the counter (arts. 21-23): the verdict and its reasons,
documents typed in or read from their machine-readable zone, driving licences, what
the readers say, entry card checks and documents as they really are (ICAO 9303).

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
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
}
