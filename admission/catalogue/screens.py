"""The window and the command line: the desk window, the director's and administrator's
dialogs, the window's start, signing in, the menus, the provisional voucher given
without the server and the command line's own errors.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
    # -- the command line (ui.cli.result.CliError; NOT_FOUND and MANUAL_BAD_DATE above) ---
    "USAGE": (
        "Orden mal escrita: consulte la ayuda (--help)",
        "Command not valid: see the help (--help)",
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
    # -- the provisional voucher given without the server (art. 23.4;
    #    ui.desk.dialogs.offline_voucher.OfflineVoucherCode)
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
    # -- the floor's card-check page served with the desk (ui.floor.start.FloorStartCode) -
    "FLOOR_LISTEN_BAD": (
        "Dirección de la página de sala no válida: escriba HOST:PUERTO, p. ej. 0.0.0.0:8443",
        "Floor page address not valid: write HOST:PORT, e.g. 0.0.0.0:8443",
    ),
    "FLOOR_LISTEN_FAILED": (
        "La página de sala no se pudo abrir en esa dirección: no es de este equipo o el "
        "puerto está ocupado",
        "The floor page could not open on that address: it is not this computer's or the "
        "port is taken",
    ),
    "FLOOR_CERT_UNREADABLE": (
        "El certificado o la clave de la página de sala no se pueden leer (PEM, los dos)",
        "The floor page's certificate or key cannot be read (PEM, both of them)",
    ),
}
