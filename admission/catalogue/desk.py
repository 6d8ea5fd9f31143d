"""The desk's rules: the desk, the visitor file's rules, provisional vouchers, card
types, the leaflet, settings, bounded input, the clock, desk accounts, the gaming
inspectors' queries, data protection, observations, reports and exports.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
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
}
