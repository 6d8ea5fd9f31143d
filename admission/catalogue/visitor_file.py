"""The visitor file, its keys and its audit trail (art. 20.3-4, 14.1.b): what the file
refuses, its passphrase, its audit chain as kept and as read, the files the desk
writes, its backups and a restore older than the folder's record.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
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
    "SCHEMA_NEWER": (
        "El fichero es de una versión más nueva del programa; no se ha modificado",
        "The file belongs to a newer version of the program; nothing was changed",
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
}
