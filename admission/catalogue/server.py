"""The visitor file on the server: sealed values and data keys, key rotation, the
offline voucher queue, connections, the choice of store, the link, admission ids,
moving a desk's file onto the server, the inspectors' search and database roles.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
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
    # -- the primary a desk follows (db.pg.primary.PgPrimaryCode) -------------------------
    "PG_NO_PRIMARY": (
        "Ningún servidor admite escrituras: el de reserva aún no ha tomado el relevo",
        "No server accepts writes: the standby has not taken over yet",
    ),
    "PG_TIMELINE_FENCED": (
        "Servidor antiguo rechazado: otro tomó el relevo y este puesto no vuelve a él",
        "Former server refused: another took over and this desk never goes back to it",
    ),
    "PG_DESK_TIMELINE_UNREADABLE": (
        "No se puede leer el fichero timeline del puesto (carpeta postgresql)",
        "The desk's timeline file cannot be read (postgresql folder)",
    ),
    "PG_NO_SYNC_STANDBY": (
        "Sin réplica síncrona: una admisión confirmada podría perderse en un relevo",
        "No synchronous standby: an acknowledged admission could be lost in a failover",
    ),
    "PG_SYNC_STANDBY_UNSEEN": (
        "No se ve la réplica síncrona: conceda pg_read_all_stats al usuario del puesto",
        "The synchronous standby is not visible: grant pg_read_all_stats to the desk's role",
    ),
    # -- which store the desk uses (db.pg.target.PgTargetCode) ----------------------------
    "PG_TARGET_BAD_URL": (
        "La dirección del servidor no es válida (puerto, listas de servidores desiguales...)",
        "The server address is not valid (port, uneven lists of servers...)",
    ),
    "PG_TARGET_STANDBY_SESSION": (
        "La dirección admite un servidor de reserva: use target_session_attrs=read-write",
        "The address accepts a standby: use target_session_attrs=read-write",
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
    "PG_FILE_WENT_BACK": (
        "El fichero del servidor ha vuelto atrás: confirme la restauración antes de seguir",
        "The server's file went back: confirm the restore before going on",
    ),
    "PG_FILE_NOT_WENT_BACK": (
        "El fichero del servidor no ha vuelto atrás: no hay restauración que confirmar",
        "The server's file did not go back: there is no restore to confirm",
    ),
    "PG_DESK_AUDIT_HEAD_UNREADABLE": (
        "No se puede leer la última entrada vista por el puesto (postgresql/audit-head)",
        "The desk's record of the newest audit entry (postgresql/audit-head) is unreadable",
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
}
