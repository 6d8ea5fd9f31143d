<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_GB" sourcelanguage="es_ES">
<context>
    <name></name>
    <message>
        <source>&amp;Volante provisional…</source>
        <translation>&amp;Provisional voucher…</translation>
    </message>
    <message>
        <source>Volantes &amp;pendientes…</source>
        <translation>&amp;Pending vouchers…</translation>
    </message>
    <message>
        <source>&amp;Lista de cierre de volantes…</source>
        <translation>Vouchers&apos; &amp;closing list…</translation>
    </message>
    <message>
        <source>&amp;Funcionario en servicio…</source>
        <translation>&amp;Official on duty…</translation>
    </message>
    <message>
        <source>&amp;Cola de reimpresión…</source>
        <translation>&amp;Reprint queue…</translation>
    </message>
    <message>
        <source>O&amp;bservación en la ficha…</source>
        <translation>O&amp;bservation on the file…</translation>
    </message>
    <message>
        <source>Tarjeta &amp;excepcional…</source>
        <translation>&amp;Exceptional card…</translation>
    </message>
    <message>
        <source>&amp;Prohibiciones…</source>
        <translation>&amp;Bans…</translation>
    </message>
    <message>
        <source>Per&amp;sonal del casino…</source>
        <translation>Casino &amp;staff…</translation>
    </message>
    <message>
        <source>&amp;Anular o reimprimir una tarjeta…</source>
        <translation>&amp;Void or reprint a card…</translation>
    </message>
    <message>
        <source>&amp;Impresoras…</source>
        <translation>&amp;Printers…</translation>
    </message>
    <message>
        <source>&amp;Configuración…</source>
        <translation>&amp;Settings…</translation>
    </message>
    <message>
        <source>C&amp;uentas…</source>
        <translation>Acco&amp;unts…</translation>
    </message>
    <message>
        <source>&amp;Consultar el fichero de visitantes…</source>
        <translation>&amp;Query the visitor file…</translation>
    </message>
    <message>
        <source>Co&amp;nservación de datos…</source>
        <translation>Data re&amp;tention…</translation>
    </message>
    <message>
        <source>Ci&amp;fras de admisión…</source>
        <translation>Admission &amp;figures…</translation>
    </message>
    <message>
        <source>&amp;Rectificar datos de un visitante…</source>
        <translation>&amp;Rectify a visitor&apos;s data…</translation>
    </message>
    <message>
        <source>Informe de acceso a &amp;datos (RGPD)…</source>
        <translation>&amp;Data access report (GDPR)…</translation>
    </message>
    <message>
        <source>&amp;Inspección</source>
        <translation>&amp;Inspection</translation>
    </message>
    <message>
        <source>&amp;Sesión</source>
        <translation>&amp;Session</translation>
    </message>
    <message>
        <source>&amp;Bloquear</source>
        <translation>&amp;Lock</translation>
    </message>
    <message>
        <source>Mi &amp;PIN de desbloqueo…</source>
        <translation>My unlock &amp;PIN…</translation>
    </message>
    <message>
        <source>&amp;Cerrar sesión</source>
        <translation>&amp;Sign out</translation>
    </message>
    <message>
        <source>Operador que ha iniciado sesión</source>
        <translation>Operator signed in</translation>
    </message>
</context>
<context>
    <name>AccessReportDialog</name>
    <message>
        <source>Informe de acceso a datos personales (RGPD art. 15)</source>
        <translation>Personal data access report (GDPR art. 15)</translation>
    </message>
    <message>
        <source>Todo lo que el fichero guarda de una persona, en un PDF para entregarle. Indique la ficha o el número del documento de identidad.</source>
        <translation>Everything the file holds about a person, in a PDF to hand over. Give the file number or the identity document number.</translation>
    </message>
    <message>
        <source>Número de ficha</source>
        <translation>File number</translation>
    </message>
    <message>
        <source>Número del documento de identidad</source>
        <translation>Identity document number</translation>
    </message>
    <message>
        <source>Motivo de la consulta (obligatorio)</source>
        <translation>Purpose of the query (required)</translation>
    </message>
    <message>
        <source>Obligatorio: solicitud de acceso nº…</source>
        <translation>Required: access request no.…</translation>
    </message>
    <message>
        <source>&amp;Exportar PDF…</source>
        <translation>&amp;Export PDF…</translation>
    </message>
    <message>
        <source>Exportar el informe de acceso a PDF</source>
        <translation>Export the access report to PDF</translation>
    </message>
    <message>
        <source>&amp;Ficha nº:</source>
        <translation>&amp;File no.:</translation>
    </message>
    <message>
        <source>o &amp;identidad:</source>
        <translation>or &amp;identity:</translation>
    </message>
    <message>
        <source>&amp;Motivo:</source>
        <translation>&amp;Purpose:</translation>
    </message>
    <message>
        <source>¿Dónde guardar el informe?</source>
        <translation>Where to save the report?</translation>
    </message>
    <message>
        <source>Documento PDF (*.pdf)</source>
        <translation>PDF document (*.pdf)</translation>
    </message>
    <message>
        <source>Exportado: %1</source>
        <translation>Exported: %1</translation>
    </message>
</context>
<context>
    <name>AccountPage</name>
    <message>
        <source>Explicación de la cuenta</source>
        <translation>Explanation of the account</translation>
    </message>
    <message>
        <source>Usuario: %1</source>
        <translation>User name: %1</translation>
    </message>
    <message>
        <source>Nombre: %1</source>
        <translation>Name: %1</translation>
    </message>
    <message>
        <source>Contraseña</source>
        <translation>Password</translation>
    </message>
    <message>
        <source>Repita la contraseña</source>
        <translation>Repeat the password</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
    <message>
        <source>&amp;Nombre y apellidos:</source>
        <translation>Full &amp;name:</translation>
    </message>
    <message>
        <source>&amp;Contraseña:</source>
        <translation>&amp;Password:</translation>
    </message>
    <message>
        <source>&amp;Repita la contraseña:</source>
        <translation>&amp;Repeat the password:</translation>
    </message>
</context>
<context>
    <name>AccountsDialog</name>
    <message>
        <source>Recepción</source>
        <translation>Desk clerk</translation>
    </message>
    <message>
        <source>Director de juegos</source>
        <translation>Game director</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>Inspector</translation>
    </message>
    <message>
        <source>Personal de sala</source>
        <translation>Floor staff</translation>
    </message>
    <message>
        <source>Administrador</source>
        <translation>Administrator</translation>
    </message>
    <message>
        <source>Cuentas de la recepción</source>
        <translation>Admission desk accounts</translation>
    </message>
    <message>
        <source>Lista de cuentas</source>
        <translation>List of accounts</translation>
    </message>
    <message>
        <source>Usuario</source>
        <translation>User name</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Funciones</source>
        <translation>Roles</translation>
    </message>
    <message>
        <source>Activa</source>
        <translation>Active</translation>
    </message>
    <message>
        <source>Bloqueada hasta</source>
        <translation>Locked until</translation>
    </message>
    <message>
        <source>Esquina de la lista de cuentas</source>
        <translation>Corner of the list of accounts</translation>
    </message>
    <message>
        <source>Usuario de la cuenta nueva</source>
        <translation>User name of the new account</translation>
    </message>
    <message>
        <source>Nombre de la persona</source>
        <translation>Name of the person</translation>
    </message>
    <message>
        <source>Función de la cuenta nueva: %1</source>
        <translation>Role of the new account: %1</translation>
    </message>
    <message>
        <source>Contraseña de la cuenta nueva</source>
        <translation>Password of the new account</translation>
    </message>
    <message>
        <source>Repita la contraseña de la cuenta nueva</source>
        <translation>Repeat the password of the new account</translation>
    </message>
    <message>
        <source>C&amp;rear cuenta</source>
        <translation>C&amp;reate account</translation>
    </message>
    <message>
        <source>Crear la cuenta nueva</source>
        <translation>Create the new account</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
    <message>
        <source>&amp;Nombre:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>Co&amp;ntraseña:</source>
        <translation>Pass&amp;word:</translation>
    </message>
    <message>
        <source>Re&amp;pita:</source>
        <translation>Re&amp;peat:</translation>
    </message>
    <message>
        <source>Funciones:</source>
        <translation>Roles:</translation>
    </message>
    <message>
        <source>Cuenta nueva</source>
        <translation>New account</translation>
    </message>
    <message>
        <source>Contraseña nueva de la cuenta elegida</source>
        <translation>New password of the chosen account</translation>
    </message>
    <message>
        <source>Repita la contraseña nueva</source>
        <translation>Repeat the new password</translation>
    </message>
    <message>
        <source>Cambiar la &amp;contraseña</source>
        <translation>Change the &amp;password</translation>
    </message>
    <message>
        <source>Cambiar la contraseña de la cuenta elegida</source>
        <translation>Change the password of the chosen account</translation>
    </message>
    <message>
        <source>&amp;Desactivar</source>
        <translation>&amp;Deactivate</translation>
    </message>
    <message>
        <source>Activar o desactivar la cuenta elegida</source>
        <translation>Activate or deactivate the chosen account</translation>
    </message>
    <message>
        <source>&amp;Quitar el bloqueo</source>
        <translation>&amp;Clear the lockout</translation>
    </message>
    <message>
        <source>Quitar el bloqueo por intentos fallidos de la cuenta elegida</source>
        <translation>Clear the chosen account&apos;s lockout after failed attempts</translation>
    </message>
    <message>
        <source>Función de la cuenta elegida: %1</source>
        <translation>Role of the chosen account: %1</translation>
    </message>
    <message>
        <source>Cambiar las &amp;funciones</source>
        <translation>Change the &amp;roles</translation>
    </message>
    <message>
        <source>Dar a la cuenta elegida las funciones marcadas</source>
        <translation>Give the chosen account the roles ticked</translation>
    </message>
    <message>
        <source>Contraseña nue&amp;va:</source>
        <translation>Ne&amp;w password:</translation>
    </message>
    <message>
        <source>R&amp;epita:</source>
        <translation>R&amp;epeat:</translation>
    </message>
    <message>
        <source>Cuenta elegida</source>
        <translation>Chosen account</translation>
    </message>
    <message>
        <source>Mensaje</source>
        <translation>Message</translation>
    </message>
    <message>
        <source>Resultado</source>
        <translation>Result</translation>
    </message>
    <message>
        <source>Cerrar</source>
        <translation>Close</translation>
    </message>
    <message>
        <source>Cerrar el diálogo</source>
        <translation>Close the dialog</translation>
    </message>
    <message>
        <source>sí</source>
        <translation>yes</translation>
    </message>
    <message>
        <source>no</source>
        <translation>no</translation>
    </message>
    <message>
        <source>&amp;Activar</source>
        <translation>&amp;Activate</translation>
    </message>
    <message>
        <source>Bloqueada hasta las %1.</source>
        <translation>Locked until %1.</translation>
    </message>
    <message>
        <source>Cuenta %1 creada</source>
        <translation>Account %1 created</translation>
    </message>
    <message>
        <source>Contraseña de %1 cambiada</source>
        <translation>Password of %1 changed</translation>
    </message>
    <message>
        <source>Cuenta %1 activada</source>
        <translation>Account %1 activated</translation>
    </message>
    <message>
        <source>Cuenta %1 desactivada</source>
        <translation>Account %1 deactivated</translation>
    </message>
    <message>
        <source>Bloqueo de %1 quitado</source>
        <translation>Lockout of %1 cleared</translation>
    </message>
    <message>
        <source>Funciones de %1 cambiadas</source>
        <translation>Roles of %1 changed</translation>
    </message>
</context>
<context>
    <name>AdminDialog</name>
    <message>
        <source>Credenciales de un administrador</source>
        <translation>An administrator&apos;s credentials</translation>
    </message>
    <message>
        <source>La configuración y las cuentas las cambia un administrador: introduzca sus propias credenciales.</source>
        <translation>Settings and accounts are changed by an administrator: enter your own credentials.</translation>
    </message>
    <message>
        <source>Aviso</source>
        <translation>Notice</translation>
    </message>
    <message>
        <source>Usuario del administrador</source>
        <translation>Administrator&apos;s user name</translation>
    </message>
    <message>
        <source>Contraseña del administrador</source>
        <translation>Administrator&apos;s password</translation>
    </message>
    <message>
        <source>Error de autorización</source>
        <translation>Authorisation error</translation>
    </message>
    <message>
        <source>&amp;Aceptar</source>
        <translation>&amp;OK</translation>
    </message>
    <message>
        <source>Aceptar las credenciales</source>
        <translation>Accept the credentials</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
</context>
<context>
    <name>AdminPage</name>
    <message>
        <source>2. El administrador</source>
        <translation>2. The administrator</translation>
    </message>
    <message>
        <source>El administrador gestiona las cuentas, la configuración y los dispositivos. No decide admisiones: el director de juegos tendrá su propia cuenta.</source>
        <translation>The administrator manages the accounts, the settings and the devices. They do not decide admissions: the game director will have their own account.</translation>
    </message>
    <message>
        <source>administrador</source>
        <translation>administrator</translation>
    </message>
</context>
<context>
    <name>AuditMenu</name>
    <message>
        <source>Registro de &amp;auditoría…</source>
        <translation>&amp;Audit trail…</translation>
    </message>
</context>
<context>
    <name>AuditTrailDialog</name>
    <message>
        <source>Registro de auditoría (art. 20.4)</source>
        <translation>Audit trail (art. 20.4)</translation>
    </message>
    <message>
        <source>Desde</source>
        <translation>From</translation>
    </message>
    <message>
        <source>Hasta</source>
        <translation>To</translation>
    </message>
    <message>
        <source>Todos</source>
        <translation>All</translation>
    </message>
    <message>
        <source>Usuario</source>
        <translation>User</translation>
    </message>
    <message>
        <source>Tipo de acto</source>
        <translation>Kind of act</translation>
    </message>
    <message>
        <source>Motivo de la consulta (obligatorio)</source>
        <translation>Purpose of the query (required)</translation>
    </message>
    <message>
        <source>Obligatorio: expediente, control…</source>
        <translation>Required: case file, inspection…</translation>
    </message>
    <message>
        <source>&amp;Buscar</source>
        <translation>&amp;Search</translation>
    </message>
    <message>
        <source>&amp;Exportar CSV…</source>
        <translation>&amp;Export CSV…</translation>
    </message>
    <message>
        <source>&amp;Desde:</source>
        <translation>&amp;From:</translation>
    </message>
    <message>
        <source>&amp;Hasta:</source>
        <translation>&amp;To:</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User:</translation>
    </message>
    <message>
        <source>&amp;Acto:</source>
        <translation>&amp;Act:</translation>
    </message>
    <message>
        <source>&amp;Motivo:</source>
        <translation>&amp;Purpose:</translation>
    </message>
    <message>
        <source>Nº</source>
        <translation>No.</translation>
    </message>
    <message>
        <source>Fecha y hora</source>
        <translation>Date and time</translation>
    </message>
    <message>
        <source>Acto</source>
        <translation>Act</translation>
    </message>
    <message>
        <source>Asunto</source>
        <translation>Subject</translation>
    </message>
    <message>
        <source>Detalles</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Entradas del registro de auditoría</source>
        <translation>Audit trail entries</translation>
    </message>
    <message>
        <source>Verificar la cadena</source>
        <translation>Verify the chain</translation>
    </message>
    <message>
        <source>NÚMERO:RESUMEN impreso en el libro diario</source>
        <translation>NUMBER:DIGEST printed on the day book</translation>
    </message>
    <message>
        <source>Ancla (cabeza guardada fuera del fichero)</source>
        <translation>Anchor (a head kept outside the file)</translation>
    </message>
    <message>
        <source>&amp;Verificar</source>
        <translation>&amp;Verify</translation>
    </message>
    <message>
        <source>Resultado de la verificación</source>
        <translation>Result of the verification</translation>
    </message>
    <message>
        <source>Cabeza actual de la cadena</source>
        <translation>Current head of the chain</translation>
    </message>
    <message>
        <source>A&amp;ncla:</source>
        <translation>A&amp;nchor:</translation>
    </message>
    <message>
        <source>Entradas encontradas: %1</source>
        <translation>Entries found: %1</translation>
    </message>
    <message>
        <source>búsqueda detenida: acorte las fechas para ver el resto</source>
        <translation>search stopped: narrow the dates to see the rest</translation>
    </message>
    <message>
        <source>Verificando la cadena…</source>
        <translation>Verifying the chain…</translation>
    </message>
    <message>
        <source>✔ Cadena íntegra: %1 entradas, %2 registros comprobados</source>
        <translation>✔ Chain intact: %1 entries, %2 records checked</translation>
    </message>
    <message>
        <source>el ancla coincide</source>
        <translation>the anchor matches</translation>
    </message>
    <message>
        <source>primera entrada afectada: nº %1</source>
        <translation>first entry affected: no. %1</translation>
    </message>
    <message>
        <source>Cabeza actual (anótela fuera del fichero): %1</source>
        <translation>Current head (note it outside the file): %1</translation>
    </message>
    <message>
        <source>¿Dónde guardar el registro?</source>
        <translation>Where to save the trail?</translation>
    </message>
    <message>
        <source>Exportado: %1 · %2 filas</source>
        <translation>Exported: %1 · %2 rows</translation>
    </message>
</context>
<context>
    <name>BansDialog</name>
    <message>
        <source>Prohibiciones de entrada del casino (art. 21.2-3)</source>
        <translation>The casino&apos;s entry bans (art. 21.2-3)</translation>
    </message>
    <message>
        <source>Identidad: DNI/NIE o TIPO:PAÍS:NÚMERO</source>
        <translation>Identity: DNI/NIE or TYPE:COUNTRY:NUMBER</translation>
    </message>
    <message>
        <source>DNI/NIE o TIPO:PAÍS:NÚMERO</source>
        <translation>DNI/NIE or TYPE:COUNTRY:NUMBER</translation>
    </message>
    <message>
        <source>&amp;Buscar</source>
        <translation>&amp;Search</translation>
    </message>
    <message>
        <source>Buscar las prohibiciones de esta persona</source>
        <translation>Search this person&apos;s bans</translation>
    </message>
    <message>
        <source>&amp;Todas en vigor</source>
        <translation>&amp;All in force</translation>
    </message>
    <message>
        <source>Ver todas las prohibiciones en vigor</source>
        <translation>See every ban in force</translation>
    </message>
    <message>
        <source>&amp;Historial</source>
        <translation>&amp;History</translation>
    </message>
    <message>
        <source>Ver las prohibiciones levantadas o terminadas</source>
        <translation>See the bans lifted or ended</translation>
    </message>
    <message>
        <source>Filtrar la lista por nombre, identidad o motivo</source>
        <translation>Filter the list by name, identity or reason</translation>
    </message>
    <message>
        <source>Filtrar: nombre, identidad, motivo, director…</source>
        <translation>Filter: name, identity, reason, director…</translation>
    </message>
    <message>
        <source>Lista de prohibiciones</source>
        <translation>List of bans</translation>
    </message>
    <message>
        <source>Nº</source>
        <translation>No.</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Identidad</source>
        <translation>Identity</translation>
    </message>
    <message>
        <source>Motivo</source>
        <translation>Reason</translation>
    </message>
    <message>
        <source>Decidida por</source>
        <translation>Decided by</translation>
    </message>
    <message>
        <source>Desde</source>
        <translation>From</translation>
    </message>
    <message>
        <source>Hasta</source>
        <translation>Until</translation>
    </message>
    <message>
        <source>Nueva prohibición</source>
        <translation>New ban</translation>
    </message>
    <message>
        <source>Motivo de la prohibición</source>
        <translation>Reason for the ban</translation>
    </message>
    <message>
        <source>Con fecha de fin</source>
        <translation>With an end date</translation>
    </message>
    <message>
        <source>La prohibición tiene fecha de fin</source>
        <translation>The ban has an end date</translation>
    </message>
    <message>
        <source>Fecha de fin de la prohibición</source>
        <translation>End date of the ban</translation>
    </message>
    <message>
        <source>&amp;Prohibir la entrada…</source>
        <translation>&amp;Ban entry…</translation>
    </message>
    <message>
        <source>Añadir la prohibición (pide al director)</source>
        <translation>Add the ban (asks the director)</translation>
    </message>
    <message>
        <source>Motivo:</source>
        <translation>Reason:</translation>
    </message>
    <message>
        <source>Levantar la prohibición seleccionada</source>
        <translation>Lift the selected ban</translation>
    </message>
    <message>
        <source>Motivo para levantar la prohibición</source>
        <translation>Reason for lifting the ban</translation>
    </message>
    <message>
        <source>&amp;Levantar…</source>
        <translation>&amp;Lift…</translation>
    </message>
    <message>
        <source>Levantar la prohibición (pide al director)</source>
        <translation>Lift the ban (asks the director)</translation>
    </message>
    <message>
        <source>sin fin</source>
        <translation>no end</translation>
    </message>
    <message>
        <source>levantada el %1: %2</source>
        <translation>lifted on %1: %2</translation>
    </message>
    <message>
        <source>vencida el %1</source>
        <translation>expired on %1</translation>
    </message>
    <message>
        <source>(sin ficha)</source>
        <translation>(no file)</translation>
    </message>
    <message>
        <source>Sin prohibiciones</source>
        <translation>No bans</translation>
    </message>
    <message>
        <source>Prohibir la entrada (art. 21.2-3)</source>
        <translation>Ban entry (art. 21.2-3)</translation>
    </message>
    <message>
        <source>Prohibición registrada</source>
        <translation>Ban recorded</translation>
    </message>
    <message>
        <source>Levantar una prohibición (art. 21.2-3)</source>
        <translation>Lift a ban (art. 21.2-3)</translation>
    </message>
    <message>
        <source>Prohibición levantada</source>
        <translation>Ban lifted</translation>
    </message>
</context>
<context>
    <name>BarChart</name>
    <message>
        <source>Gráfico de barras</source>
        <translation>Bar chart</translation>
    </message>
    <message>
        <source>sin datos</source>
        <translation>no data</translation>
    </message>
    <message>
        <source>Sin datos</source>
        <translation>No data</translation>
    </message>
</context>
<context>
    <name>CameraPreview</name>
    <message>
        <source>Cámara</source>
        <translation>Camera</translation>
    </message>
    <message>
        <source>Indicación de la cámara</source>
        <translation>Camera&apos;s hint</translation>
    </message>
    <message>
        <source>Coloque el documento en el recuadro, la banda MRZ abajo</source>
        <translation>Place the document in the frame, MRZ strip at the bottom</translation>
    </message>
    <message>
        <source>Sin documento</source>
        <translation>No document</translation>
    </message>
    <message>
        <source>Demasiado lejos: acerque el documento</source>
        <translation>Too far: bring the document closer</translation>
    </message>
    <message>
        <source>Borroso: mantenga el documento quieto</source>
        <translation>Blurred: hold the document still</translation>
    </message>
    <message>
        <source>Reflejos: incline el documento</source>
        <translation>Glare: tilt the document</translation>
    </message>
    <message>
        <source>Leyendo…</source>
        <translation>Reading…</translation>
    </message>
    <message>
        <source>Leído</source>
        <translation>Read</translation>
    </message>
</context>
<context>
    <name>CanDialog</name>
    <message>
        <source>Número CAN del documento</source>
        <translation>The document&apos;s CAN</translation>
    </message>
    <message>
        <source>El chip de este documento solo se abre con su CAN: las 6 cifras impresas en el anverso (DNI: abajo a la derecha). Escríbalas y pulse Intro. Esc: seguir sin leer el chip.</source>
        <translation>This document&apos;s chip opens only with its CAN: the 6 digits printed on the front (DNI: bottom right). Type them and press Enter. Esc: go on without reading the chip.</translation>
    </message>
    <message>
        <source>CAN: 6 cifras</source>
        <translation>CAN: 6 digits</translation>
    </message>
    <message>
        <source>&amp;Leer el chip</source>
        <translation>&amp;Read the chip</translation>
    </message>
    <message>
        <source>&amp;Seguir sin chip</source>
        <translation>&amp;Go on without the chip</translation>
    </message>
    <message>
        <source>El CAN son exactamente 6 cifras</source>
        <translation>The CAN is exactly 6 digits</translation>
    </message>
</context>
<context>
    <name>CardActionsDialog</name>
    <message>
        <source>Anular o reimprimir una tarjeta (art. 22)</source>
        <translation>Void or reprint a card (art. 22)</translation>
    </message>
    <message>
        <source>Número de tarjeta</source>
        <translation>Card number</translation>
    </message>
    <message>
        <source>&amp;Consultar</source>
        <translation>&amp;Look up</translation>
    </message>
    <message>
        <source>Consultar la tarjeta</source>
        <translation>Look up the card</translation>
    </message>
    <message>
        <source>Datos de la tarjeta</source>
        <translation>The card&apos;s details</translation>
    </message>
    <message>
        <source>Motivo de la anulación o reimpresión</source>
        <translation>Reason for voiding or reprinting</translation>
    </message>
    <message>
        <source>&amp;Anular…</source>
        <translation>&amp;Void…</translation>
    </message>
    <message>
        <source>Anular la tarjeta (pide al director)</source>
        <translation>Void the card (asks the director)</translation>
    </message>
    <message>
        <source>&amp;Reimprimir…</source>
        <translation>&amp;Reprint…</translation>
    </message>
    <message>
        <source>Reimprimir la tarjeta (pide al director)</source>
        <translation>Reprint the card (asks the director)</translation>
    </message>
    <message>
        <source>&amp;Tarjeta nº:</source>
        <translation>&amp;Card no.:</translation>
    </message>
    <message>
        <source>&amp;Motivo:</source>
        <translation>&amp;Reason:</translation>
    </message>
    <message>
        <source>emitida, sin imprimir</source>
        <translation>issued, not printed</translation>
    </message>
    <message>
        <source>impresa</source>
        <translation>printed</translation>
    </message>
    <message>
        <source>anulada</source>
        <translation>voided</translation>
    </message>
    <message>
        <source>Tarjeta %1 · %2 · %3</source>
        <translation>Card %1 · %2 · %3</translation>
    </message>
    <message>
        <source>Válida del %1 al %2</source>
        <translation>Valid from %1 to %2</translation>
    </message>
    <message>
        <source>Impresa %1 veces</source>
        <translation>Printed %1 times</translation>
    </message>
    <message>
        <source>Excepcional, autorizada por %1</source>
        <translation>Exceptional, authorised by %1</translation>
    </message>
    <message>
        <source>Motivo de anulación: %1</source>
        <translation>Reason for voiding: %1</translation>
    </message>
    <message>
        <source>Anular la tarjeta %1</source>
        <translation>Void card %1</translation>
    </message>
    <message>
        <source>Tarjeta anulada</source>
        <translation>Card voided</translation>
    </message>
    <message>
        <source>Reimprimir la tarjeta %1</source>
        <translation>Reprint card %1</translation>
    </message>
    <message>
        <source>Tarjeta reimpresa</source>
        <translation>Card reprinted</translation>
    </message>
</context>
<context>
    <name>CardCheckDialog</name>
    <message>
        <source>Comprobar tarjeta de entrada</source>
        <translation>Check an entry card</translation>
    </message>
    <message>
        <source>Código de la tarjeta</source>
        <translation>Card code</translation>
    </message>
    <message>
        <source>Comprobar</source>
        <translation>Check</translation>
    </message>
    <message>
        <source>Resultado</source>
        <translation>Result</translation>
    </message>
    <message>
        <source>Titular</source>
        <translation>Holder</translation>
    </message>
    <message>
        <source>Documento</source>
        <translation>Document</translation>
    </message>
    <message>
        <source>Tarjeta</source>
        <translation>Card</translation>
    </message>
    <message>
        <source>Validez</source>
        <translation>Validity</translation>
    </message>
    <message>
        <source>Comprobada</source>
        <translation>Checked</translation>
    </message>
    <message>
        <source>Motivo de la anulación</source>
        <translation>Why it was voided</translation>
    </message>
    <message>
        <source>Comprobando…</source>
        <translation>Checking…</translation>
    </message>
</context>
<context>
    <name>CardTypesEditor</name>
    <message>
        <source>Tipos de tarjeta y precios</source>
        <translation>Card types and prices</translation>
    </message>
    <message>
        <source>Código</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Nombre en inglés</source>
        <translation>Name in English</translation>
    </message>
    <message>
        <source>Clase</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>Precio (€)</source>
        <translation>Price (€)</translation>
    </message>
    <message>
        <source>Días</source>
        <translation>Days</translation>
    </message>
    <message>
        <source>Varias entradas</source>
        <translation>Several entries</translation>
    </message>
    <message>
        <source>&amp;Añadir tipo</source>
        <translation>&amp;Add type</translation>
    </message>
    <message>
        <source>Añadir un tipo de tarjeta</source>
        <translation>Add a card type</translation>
    </message>
    <message>
        <source>&amp;Quitar tipo</source>
        <translation>&amp;Remove type</translation>
    </message>
    <message>
        <source>Quitar el tipo de tarjeta seleccionado</source>
        <translation>Remove the selected card type</translation>
    </message>
    <message>
        <source>Tipo de tarjeta por defecto</source>
        <translation>Default card type</translation>
    </message>
    <message>
        <source>Por &amp;defecto:</source>
        <translation>&amp;Default:</translation>
    </message>
    <message>
        <source>Clase de tarjeta</source>
        <translation>Card kind</translation>
    </message>
</context>
<context>
    <name>CasinoFields</name>
    <message>
        <source>Nombre del casino</source>
        <translation>Casino&apos;s name</translation>
    </message>
    <message>
        <source>Identificador del casino (1-8 letras o cifras)</source>
        <translation>Casino identifier (1-8 letters or digits)</translation>
    </message>
    <message>
        <source>Dirección del casino</source>
        <translation>Casino&apos;s address</translation>
    </message>
    <message>
        <source>Identificador de este puesto de admisión</source>
        <translation>Identifier of this admission desk</translation>
    </message>
    <message>
        <source>Archivo del logotipo</source>
        <translation>Logo file</translation>
    </message>
    <message>
        <source>E&amp;xaminar…</source>
        <translation>B&amp;rowse…</translation>
    </message>
    <message>
        <source>Elegir el archivo del logotipo</source>
        <translation>Choose the logo file</translation>
    </message>
    <message>
        <source>&amp;Nombre:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Identificador:</source>
        <translation>&amp;Identifier:</translation>
    </message>
    <message>
        <source>&amp;Dirección:</source>
        <translation>&amp;Address:</translation>
    </message>
    <message>
        <source>&amp;Puesto:</source>
        <translation>&amp;Desk:</translation>
    </message>
    <message>
        <source>&amp;Logotipo:</source>
        <translation>&amp;Logo:</translation>
    </message>
    <message>
        <source>Logotipo del casino</source>
        <translation>Casino&apos;s logo</translation>
    </message>
    <message>
        <source>Imágenes (*.png *.jpg *.jpeg)</source>
        <translation>Images (*.png *.jpg *.jpeg)</translation>
    </message>
</context>
<context>
    <name>CasinoPage</name>
    <message>
        <source>3. Los datos del casino</source>
        <translation>3. The casino&apos;s details</translation>
    </message>
    <message>
        <source>El nombre que figura en las tarjetas</source>
        <translation>The name printed on the cards</translation>
    </message>
    <message>
        <source>p. ej. las iniciales del casino</source>
        <translation>e.g. the casino&apos;s initials</translation>
    </message>
    <message>
        <source>Datos del casino</source>
        <translation>Casino&apos;s details</translation>
    </message>
    <message>
        <source>&amp;Casino</source>
        <translation>&amp;Casino</translation>
    </message>
    <message>
        <source>&amp;Horario</source>
        <translation>&amp;Hours</translation>
    </message>
    <message>
        <source>&amp;Tarjetas y precios</source>
        <translation>&amp;Cards and prices</translation>
    </message>
    <message>
        <source>Escriba el precio de cada tipo de tarjeta (art. 23.2-3): el programa no trae precios. El horario puede dejarse para más tarde (Configuración).</source>
        <translation>Type the price of each card type (art. 23.2-3): the program comes with no prices. The opening hours can be left for later (Settings).</translation>
    </message>
    <message>
        <source>Aviso sobre los precios</source>
        <translation>Note on the prices</translation>
    </message>
    <message>
        <source>Identificador</source>
        <translation>Id</translation>
    </message>
</context>
<context>
    <name>CountersPanel</name>
    <message>
        <source>Contadores</source>
        <translation>Counters</translation>
    </message>
    <message>
        <source>Admisiones hoy</source>
        <translation>Admissions today</translation>
    </message>
    <message>
        <source>Última hora</source>
        <translation>Last hour</translation>
    </message>
    <message>
        <source>Tarjetas válidas ahora</source>
        <translation>Cards valid now</translation>
    </message>
    <message>
        <source>Admisiones hoy: </source>
        <translation>Admissions today: </translation>
    </message>
    <message>
        <source>Última hora: </source>
        <translation>Last hour: </translation>
    </message>
    <message>
        <source>Tarjetas válidas ahora: </source>
        <translation>Cards valid now: </translation>
    </message>
</context>
<context>
    <name>CredentialsDialog</name>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>&amp;Contraseña:</source>
        <translation>&amp;Password:</translation>
    </message>
    <message>
        <source>Bloqueada hasta las %1.</source>
        <translation>Locked until %1.</translation>
    </message>
</context>
<context>
    <name>DeskMenu</name>
    <message>
        <source>Volante provisional %1 entregado: pendiente de formalizar</source>
        <translation>Provisional voucher %1 handed over: to be formalised</translation>
    </message>
    <message>
        <source>Volante nº %1 entregado</source>
        <translation>Voucher no. %1 handed over</translation>
    </message>
    <message>
        <source>Observación añadida a la ficha %1</source>
        <translation>Observation added to file %1</translation>
    </message>
</context>
<context>
    <name>DeskShell</name>
    <message>
        <source>DEMO — datos inventados, no usar con visitantes reales — recepción: {clerk} / {clerk_pw} — director: {director} / {director_pw}</source>
        <translation>DEMO — invented data, not for real visitors — desk clerk: {clerk} / {clerk_pw} — director: {director} / {director_pw}</translation>
    </message>
    <message>
        <source>Aviso de demostración</source>
        <translation>Demo notice</translation>
    </message>
    <message>
        <source>Recepción del casino</source>
        <translation>Casino admission desk</translation>
    </message>
    <message>
        <source>El servidor del casino no responde: nadie puede iniciar sesión ni ser admitido hasta que responda. Avise al técnico.</source>
        <translation>The casino&apos;s server does not answer: nobody can sign in or be admitted until it does. Call the technician.</translation>
    </message>
    <message>
        <source>&amp;Reintentar</source>
        <translation>&amp;Try again</translation>
    </message>
    <message>
        <source>&amp;Salir</source>
        <translation>&amp;Quit</translation>
    </message>
</context>
<context>
    <name>DeskStatusBar</name>
    <message>
        <source>Estado de los dispositivos</source>
        <translation>Devices&apos; status</translation>
    </message>
    <message>
        <source>DEMO · datos inventados</source>
        <translation>DEMO · invented data</translation>
    </message>
    <message>
        <source>Modo demostración</source>
        <translation>Demo mode</translation>
    </message>
    <message>
        <source>Último error</source>
        <translation>Last error</translation>
    </message>
    <message>
        <source>Dispositivos</source>
        <translation>Devices</translation>
    </message>
    <message>
        <source>Cámara</source>
        <translation>Camera</translation>
    </message>
    <message>
        <source>Impresora</source>
        <translation>Printer</translation>
    </message>
    <message>
        <source>Registro RIAJ</source>
        <translation>RIAJ register</translation>
    </message>
    <message>
        <source>Fichero</source>
        <translation>File</translation>
    </message>
    <message>
        <source>Servidor</source>
        <translation>Server</translation>
    </message>
    <message>
        <source>Página de sala</source>
        <translation>Floor page</translation>
    </message>
    <message>
        <source>Lector de chip</source>
        <translation>Chip reader</translation>
    </message>
    <message>
        <source>sin comprobar</source>
        <translation>not checked</translation>
    </message>
    <message>
        <source>Lector</source>
        <translation>Reader</translation>
    </message>
    <message>
        <source>lista</source>
        <translation>ready</translation>
    </message>
    <message>
        <source>no encontrada</source>
        <translation>not found</translation>
    </message>
    <message>
        <source>sin papel</source>
        <translation>out of paper</translation>
    </message>
    <message>
        <source>ocupada</source>
        <translation>busy</translation>
    </message>
    <message>
        <source>en pausa</source>
        <translation>paused</translation>
    </message>
    <message>
        <source>rechaza trabajos</source>
        <translation>rejecting jobs</translation>
    </message>
    <message>
        <source>desconectada</source>
        <translation>disconnected</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>respuesta no reconocida</source>
        <translation>answer not recognised</translation>
    </message>
    <message>
        <source>no configurada</source>
        <translation>not configured</translation>
    </message>
    <message>
        <source>Registro RIAJ: sin copia local</source>
        <translation>RIAJ register: no local copy</translation>
    </message>
    <message>
        <source>Registro RIAJ: copia de hace </source>
        <translation>RIAJ register: copy from </translation>
    </message>
    <message>
        <source>Sala: %1</source>
        <translation>Floor: %1</translation>
    </message>
    <message>
        <source>Sala: no se sirve</source>
        <translation>Floor: not served</translation>
    </message>
    <message>
        <source>Sala</source>
        <translation>Floor</translation>
    </message>
    <message>
        <source>relevo %1</source>
        <translation>failover %1</translation>
    </message>
    <message>
        <source>Servidor %1: sin respuesta</source>
        <translation>Server %1: no answer</translation>
    </message>
    <message>
        <source>Servidor %1 · %2 ms</source>
        <translation>Server %1 · %2 ms</translation>
    </message>
</context>
<context>
    <name>DeskWindow</name>
    <message>
        <source>Admisión — control de entrada</source>
        <translation>Admission — entry control</translation>
    </message>
    <message>
        <source>Admisión</source>
        <translation>Admission</translation>
    </message>
    <message>
        <source>Tipo de tarjeta</source>
        <translation>Card type</translation>
    </message>
    <message>
        <source>Estado del servidor</source>
        <translation>Server status</translation>
    </message>
    <message>
        <source>Volantes provisionales sin número</source>
        <translation>Provisional vouchers without a number</translation>
    </message>
    <message>
        <source>&amp;Admisión</source>
        <translation>&amp;Admission</translation>
    </message>
    <message>
        <source>&amp;Dirección</source>
        <translation>&amp;Direction</translation>
    </message>
    <message>
        <source>Ad&amp;ministración</source>
        <translation>Ad&amp;ministration</translation>
    </message>
    <message>
        <source>Entrada manual…</source>
        <translation>Manual entry…</translation>
    </message>
    <message>
        <source>Comprobar tarjeta…</source>
        <translation>Check card…</translation>
    </message>
    <message>
        <source>Reimprimir tarjetas no impresas</source>
        <translation>Reprint cards not printed</translation>
    </message>
    <message>
        <source>Registrar e imprimir</source>
        <translation>Record and print</translation>
    </message>
    <message>
        <source>Limpiar</source>
        <translation>Clear</translation>
    </message>
    <message>
        <source>Inspección — fichero de visitantes</source>
        <translation>Inspection — visitor file</translation>
    </message>
    <message>
        <source>Cierre el diálogo para leer un documento</source>
        <translation>Close the dialog to read a document</translation>
    </message>
    <message>
        <source>Tarjeta nº {0} impresa · Esc: siguiente</source>
        <translation>Card no. {0} printed · Esc: next</translation>
    </message>
    <message>
        <source>Tarjeta nº {0} impresa</source>
        <translation>Card no. {0} printed</translation>
    </message>
    <message>
        <source>Tarjeta nº {0} NO impresa: {1} · Ctrl+P para reimprimir</source>
        <translation>Card no. {0} NOT printed: {1} · Ctrl+P to reprint</translation>
    </message>
    <message>
        <source>Tarjeta: {0} ({1})</source>
        <translation>Card: {0} ({1})</translation>
    </message>
    <message>
        <source>Sin conexión con el servidor del casino: no se puede admitir a nadie hasta que vuelva. F9: volante provisional (art. 23.4), contra depósito del documento y del precio.</source>
        <translation>No connection to the casino&apos;s server: nobody can be admitted until it is back. F9: provisional voucher (art. 23.4), against deposit of the document and the price.</translation>
    </message>
    <message>
        <source>El servidor responde de nuevo</source>
        <translation>The server answers again</translation>
    </message>
    <message>
        <source>SIN SERVIDOR</source>
        <translation>NO SERVER</translation>
    </message>
    <message>
        <source>No se puede admitir a nadie hasta que vuelva el servidor</source>
        <translation>Nobody can be admitted until the server is back</translation>
    </message>
    <message>
        <source>F9: volante provisional para este documento (art. 23.4) · Esc: siguiente</source>
        <translation>F9: provisional voucher for this document (art. 23.4) · Esc: next</translation>
    </message>
    <message>
        <source>Documento de identidad</source>
        <translation>Identity document</translation>
    </message>
    <message>
        <source>Pasaporte</source>
        <translation>Passport</translation>
    </message>
    <message>
        <source>Permiso de conducir</source>
        <translation>Driving licence</translation>
    </message>
    <message>
        <source>Tarjeta de residencia</source>
        <translation>Residence card</translation>
    </message>
    <message>
        <source>Otro documento</source>
        <translation>Other document</translation>
    </message>
    <message>
        <source>%1 → volante nº %2</source>
        <translation>%1 → voucher no. %2</translation>
    </message>
    <message>
        <source>en espera: %1</source>
        <translation>waiting: %1</translation>
    </message>
    <message>
        <source>duplicados anulados en el servidor: nº %1</source>
        <translation>duplicates cancelled on the server: no. %1</translation>
    </message>
    <message>
        <source>Volantes provisionales numerados en el servidor: %1. Se canjean por la tarjeta en Volantes pendientes (Ctrl+Shift+V)</source>
        <translation>Provisional vouchers numbered on the server: %1. Exchange them for the card in Pending vouchers (Ctrl+Shift+V)</translation>
    </message>
    <message>
        <source>No formalizados: %1</source>
        <translation>Not formalised: %1</translation>
    </message>
    <message>
        <source>Volantes provisionales sin número: %1</source>
        <translation>Provisional vouchers without a number: %1</translation>
    </message>
</context>
<context>
    <name>DevicesFields</name>
    <message>
        <source>Cámara: número o ruta del dispositivo</source>
        <translation>Camera: device number or path</translation>
    </message>
    <message>
        <source>Puerto serie del lector de documentos</source>
        <translation>Document reader&apos;s serial port</translation>
    </message>
    <message>
        <source>Lector de códigos de barras</source>
        <translation>Barcode reader</translation>
    </message>
    <message>
        <source>Lector de chip: parte de su nombre PC/SC</source>
        <translation>Chip reader: part of its PC/SC name</translation>
    </message>
    <message>
        <source>Vacío = sin lector de chip · * = el primero</source>
        <translation>Empty = no chip reader · * = the first one</translation>
    </message>
    <message>
        <source>Si el chip no se puede verificar</source>
        <translation>If the chip cannot be verified</translation>
    </message>
    <message>
        <source>Puede entrar; se indica (recomendado)</source>
        <translation>May enter; it is shown (recommended)</translation>
    </message>
    <message>
        <source>Decide el director de juegos</source>
        <translation>The game director decides</translation>
    </message>
    <message>
        <source>No puede entrar (no es una denegación)</source>
        <translation>May not enter (not a refusal)</translation>
    </message>
    <message>
        <source>&amp;Cámara:</source>
        <translation>&amp;Camera:</translation>
    </message>
    <message>
        <source>&amp;Lector (puerto serie):</source>
        <translation>&amp;Reader (serial port):</translation>
    </message>
    <message>
        <source>Códigos de &amp;barras:</source>
        <translation>&amp;Barcodes:</translation>
    </message>
    <message>
        <source>Lector de c&amp;hip:</source>
        <translation>C&amp;hip reader:</translation>
    </message>
    <message>
        <source>Si el chip no se &amp;verifica:</source>
        <translation>If the chip is not &amp;verified:</translation>
    </message>
    <message>
        <source>Un chip falsificado o alterado siempre se deniega (art. 23.1).</source>
        <translation>A forged or altered chip is always refused (art. 23.1).</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Cerrar</source>
        <translation>Close</translation>
    </message>
    <message>
        <source>Cerrar el diálogo</source>
        <translation>Close the dialog</translation>
    </message>
    <message>
        <source>Mensaje</source>
        <translation>Message</translation>
    </message>
    <message>
        <source>Motivo (obligatorio)</source>
        <translation>Reason (required)</translation>
    </message>
    <message>
        <source>Preparada</source>
        <translation>Ready</translation>
    </message>
    <message>
        <source>No encontrada</source>
        <translation>Not found</translation>
    </message>
    <message>
        <source>Sin tarjetas o papel</source>
        <translation>Out of cards or paper</translation>
    </message>
    <message>
        <source>Ocupada (los trabajos esperan)</source>
        <translation>Busy (jobs wait)</translation>
    </message>
    <message>
        <source>Cola detenida</source>
        <translation>Queue stopped</translation>
    </message>
    <message>
        <source>La cola no acepta trabajos</source>
        <translation>The queue does not accept jobs</translation>
    </message>
    <message>
        <source>Desconectada</source>
        <translation>Disconnected</translation>
    </message>
    <message>
        <source>Error de la impresora</source>
        <translation>Printer error</translation>
    </message>
    <message>
        <source>Normal (precio unitario, art. 23.2)</source>
        <translation>Normal (unit price, art. 23.2)</translation>
    </message>
    <message>
        <source>Congresos y convenciones (art. 23.3)</source>
        <translation>Congresses and conventions (art. 23.3)</translation>
    </message>
    <message>
        <source>Viajes de grupo (art. 23.3)</source>
        <translation>Group trips (art. 23.3)</translation>
    </message>
    <message>
        <source>Varios días (art. 23.3)</source>
        <translation>Several days (art. 23.3)</translation>
    </message>
    <message>
        <source>Servicios complementarios (art. 23.3)</source>
        <translation>Complementary services (art. 23.3)</translation>
    </message>
    <message>
        <source>Invitación</source>
        <translation>Invitation</translation>
    </message>
    <message>
        <source>Lunes</source>
        <translation>Monday</translation>
    </message>
    <message>
        <source>Martes</source>
        <translation>Tuesday</translation>
    </message>
    <message>
        <source>Miércoles</source>
        <translation>Wednesday</translation>
    </message>
    <message>
        <source>Jueves</source>
        <translation>Thursday</translation>
    </message>
    <message>
        <source>Viernes</source>
        <translation>Friday</translation>
    </message>
    <message>
        <source>Sábado</source>
        <translation>Saturday</translation>
    </message>
    <message>
        <source>Domingo</source>
        <translation>Sunday</translation>
    </message>
    <message>
        <source>Víspera de festivo</source>
        <translation>Eve of a holiday</translation>
    </message>
    <message>
        <source>Festivo</source>
        <translation>Holiday</translation>
    </message>
</context>
<context>
    <name>DirectionMenu</name>
    <message>
        <source>Elegir la impresora</source>
        <translation>Choose the printer</translation>
    </message>
    <message>
        <source>Cifras de admisión</source>
        <translation>Admission figures</translation>
    </message>
    <message>
        <source>Rectificar datos de un visitante</source>
        <translation>Rectify a visitor&apos;s data</translation>
    </message>
    <message>
        <source>Informe de acceso a datos</source>
        <translation>Data access report</translation>
    </message>
</context>
<context>
    <name>DirectorDialog</name>
    <message>
        <source>Autorización del director de juegos</source>
        <translation>Game director&apos;s authorisation</translation>
    </message>
    <message>
        <source>Decisión bajo la responsabilidad del director de juegos (art. 20.3 y 23.5). El director introduce sus propias credenciales.</source>
        <translation>A decision under the game director&apos;s responsibility (arts. 20.3 and 23.5). The director enters their own credentials.</translation>
    </message>
    <message>
        <source>Decisión bajo su responsabilidad de director de juegos (art. 20.3 y 23.5). Confírmela con su PIN o su contraseña.</source>
        <translation>A decision under your responsibility as game director (arts. 20.3 and 23.5). Confirm it with your PIN or your password.</translation>
    </message>
    <message>
        <source>Motivo de la autorización</source>
        <translation>Reason for the authorisation</translation>
    </message>
    <message>
        <source>Usuario del director</source>
        <translation>Director&apos;s user name</translation>
    </message>
    <message>
        <source>Contraseña del director</source>
        <translation>Director&apos;s password</translation>
    </message>
    <message>
        <source>Error de autorización</source>
        <translation>Authorisation error</translation>
    </message>
    <message>
        <source>&amp;Autorizar</source>
        <translation>&amp;Authorise</translation>
    </message>
    <message>
        <source>Autorizar</source>
        <translation>Authorise</translation>
    </message>
    <message>
        <source>&amp;PIN:</source>
        <translation>&amp;PIN:</translation>
    </message>
    <message>
        <source>&amp;Contraseña:</source>
        <translation>&amp;Password:</translation>
    </message>
    <message>
        <source>PIN del director</source>
        <translation>Director&apos;s PIN</translation>
    </message>
    <message>
        <source>Usar la contr&amp;aseña</source>
        <translation>Use the p&amp;assword</translation>
    </message>
    <message>
        <source>Usar el P&amp;IN</source>
        <translation>Use the P&amp;IN</translation>
    </message>
    <message>
        <source>&amp;Director:</source>
        <translation>&amp;Director:</translation>
    </message>
</context>
<context>
    <name>DirectorPage</name>
    <message>
        <source>3. El director de juegos</source>
        <translation>3. The game director</translation>
    </message>
    <message>
        <source>El director de juegos responde del servicio de admisión: autoriza las tarjetas excepcionales (art. 23.5), lleva la lista de prohibiciones (art. 21.2-3) y puede trabajar en el puesto. Con su cuenta se admite al primer visitante; las cuentas del personal de recepción se crean después en Administración &gt; Cuentas.</source>
        <translation>The game director answers for the admission service: authorises exceptional cards (art. 23.5), keeps the ban list (art. 21.2-3) and may work the desk. The first visitor is admitted with this account; the reception staff&apos;s accounts are made afterwards in Administration &gt; Accounts.</translation>
    </message>
    <message>
        <source>director de juegos</source>
        <translation>game director</translation>
    </message>
</context>
<context>
    <name>DisplayFields</name>
    <message>
        <source>Idioma de la ventana</source>
        <translation>Language of the window</translation>
    </message>
    <message>
        <source>Colores de la ventana</source>
        <translation>Colours of the window</translation>
    </message>
    <message>
        <source>Oscuro (mostrador con poca luz)</source>
        <translation>Dark (dimly lit counter)</translation>
    </message>
    <message>
        <source>Claro de alto contraste (sala iluminada)</source>
        <translation>Light, high contrast (bright hall)</translation>
    </message>
    <message>
        <source>Tamaño del texto</source>
        <translation>Text size</translation>
    </message>
    <message>
        <source>&amp;Idioma:</source>
        <translation>&amp;Language:</translation>
    </message>
    <message>
        <source>C&amp;olores:</source>
        <translation>C&amp;olours:</translation>
    </message>
    <message>
        <source>Tamaño del &amp;texto:</source>
        <translation>&amp;Text size:</translation>
    </message>
</context>
<context>
    <name>ExceptionalCardDialog</name>
    <message>
        <source>Tarjeta excepcional (art. 23.5)</source>
        <translation>Exceptional card (art. 23.5)</translation>
    </message>
    <message>
        <source>El director de juegos expide esta tarjeta bajo su responsabilidad nominal (art. 23.5). Se comprueban igualmente el RIAJ, las prohibiciones y la edad.</source>
        <translation>The game director issues this card under their personal responsibility (art. 23.5). The RIAJ, the bans and the age are checked all the same.</translation>
    </message>
    <message>
        <source>Aviso de responsabilidad</source>
        <translation>Responsibility notice</translation>
    </message>
    <message>
        <source>Documento en pantalla</source>
        <translation>Document on screen</translation>
    </message>
    <message>
        <source>Tipo de tarjeta</source>
        <translation>Card type</translation>
    </message>
    <message>
        <source>&amp;Autorizar y expedir…</source>
        <translation>&amp;Authorise and issue…</translation>
    </message>
    <message>
        <source>El director se identifica y expide la tarjeta excepcional</source>
        <translation>The director identifies themselves and issues the exceptional card</translation>
    </message>
    <message>
        <source>Documento:</source>
        <translation>Document:</translation>
    </message>
    <message>
        <source>&amp;Tipo:</source>
        <translation>&amp;Type:</translation>
    </message>
    <message>
        <source>Tarjeta excepcional %1 expedida bajo la responsabilidad de %2</source>
        <translation>Exceptional card %1 issued under the responsibility of %2</translation>
    </message>
</context>
<context>
    <name>FiguresDialog</name>
    <message>
        <source>Cifras de admisión (dirección de juegos)</source>
        <translation>Admission figures (game director)</translation>
    </message>
    <message>
        <source>Desde el día</source>
        <translation>From day</translation>
    </message>
    <message>
        <source>Hasta el día</source>
        <translation>To day</translation>
    </message>
    <message>
        <source>&amp;Mostrar</source>
        <translation>&amp;Show</translation>
    </message>
    <message>
        <source>Mostrar las cifras del periodo</source>
        <translation>Show the figures of the period</translation>
    </message>
    <message>
        <source>Últimos &amp;7 días</source>
        <translation>Last &amp;7 days</translation>
    </message>
    <message>
        <source>Cifras de los últimos siete días</source>
        <translation>Figures of the last seven days</translation>
    </message>
    <message>
        <source>Este m&amp;es</source>
        <translation>This m&amp;onth</translation>
    </message>
    <message>
        <source>Cifras del mes en curso</source>
        <translation>Figures of the current month</translation>
    </message>
    <message>
        <source>&amp;Desde:</source>
        <translation>&amp;From:</translation>
    </message>
    <message>
        <source>&amp;Hasta:</source>
        <translation>&amp;To:</translation>
    </message>
    <message>
        <source>Totales del periodo</source>
        <translation>Totals of the period</translation>
    </message>
    <message>
        <source>Admisiones por hora</source>
        <translation>Admissions per hour</translation>
    </message>
    <message>
        <source>Admisiones por día</source>
        <translation>Admissions per day</translation>
    </message>
    <message>
        <source>Tarjetas por tipo</source>
        <translation>Cards by type</translation>
    </message>
    <message>
        <source>Recaudación por tipo de tarjeta</source>
        <translation>Revenue by card type</translation>
    </message>
    <message>
        <source>Denegaciones por motivo</source>
        <translation>Refusals by reason</translation>
    </message>
    <message>
        <source>Gráficos</source>
        <translation>Charts</translation>
    </message>
    <message>
        <source>Admisiones: %1 · Denegaciones: %2 · Visitantes: %3 · Recaudación: %4</source>
        <translation>Admissions: %1 · Refusals: %2 · Visitors: %3 · Revenue: %4</translation>
    </message>
    <message>
        <source>Reentradas con su tarjeta (no son visitas): %1 · No admitidos sin denegación (RIAJ no disponible, descartados): %2</source>
        <translation>Re-entries on the card held (not visits): %1 · Not admitted, not refused (RIAJ unavailable, dismissed): %2</translation>
    </message>
</context>
<context>
    <name>FirstRunWizard</name>
    <message>
        <source>Primera puesta en marcha</source>
        <translation>First start</translation>
    </message>
    <message>
        <source>&lt; &amp;Atrás</source>
        <translation>&lt; &amp;Back</translation>
    </message>
    <message>
        <source>&amp;Siguiente &gt;</source>
        <translation>&amp;Next &gt;</translation>
    </message>
    <message>
        <source>&amp;Terminar</source>
        <translation>&amp;Finish</translation>
    </message>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>FloorFields</name>
    <message>
        <source>Dirección y puerto de la página de sala</source>
        <translation>Address and port of the floor page</translation>
    </message>
    <message>
        <source>Certificado de la página de sala (PEM)</source>
        <translation>Certificate of the floor page (PEM)</translation>
    </message>
    <message>
        <source>Clave privada del certificado (PEM)</source>
        <translation>Private key of the certificate (PEM)</translation>
    </message>
    <message>
        <source>El personal de sala y los inspectores comprueban las tarjetas con el móvil en https://DIRECCIÓN:PUERTO/. Vacío: la página no se sirve desde este puesto. Sin certificado, el puesto crea la autoridad de certificación del casino e indica cómo instalarla en los móviles.</source>
        <translation>Floor staff and inspectors check cards with their phones at https://ADDRESS:PORT/. Empty: this desk does not serve the page. Without a certificate, the desk makes the casino&apos;s certificate authority and shows how to install it on the phones.</translation>
    </message>
    <message>
        <source>&amp;Escuchar en:</source>
        <translation>&amp;Listen on:</translation>
    </message>
    <message>
        <source>Ce&amp;rtificado:</source>
        <translation>Ce&amp;rtificate:</translation>
    </message>
    <message>
        <source>C&amp;lave del certificado:</source>
        <translation>Certificate &amp;key:</translation>
    </message>
</context>
<context>
    <name>GuideView</name>
    <message>
        <source>Imagen de la cámara</source>
        <translation>Camera image</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <source>Ay&amp;uda</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <source>&amp;Atajos de teclado</source>
        <translation>&amp;Keyboard shortcuts</translation>
    </message>
    <message>
        <source>&amp;Reglamento de casinos (art. 25)…</source>
        <translation>Casino &amp;regulation (art. 25)…</translation>
    </message>
    <message>
        <source>Mostrador</source>
        <translation>Counter</translation>
    </message>
</context>
<context>
    <name>HoursFields</name>
    <message>
        <source>Horario de las salas de juego (art. 27): HH:MM-HH:MM, «cerrado», o vacío. Vacío en un día de la semana = cerrado; en víspera o festivo = como el día de la semana. Sin ningún horario, la admisión no tiene límite de horas.</source>
        <translation>Opening hours of the gaming rooms (art. 27): HH:MM-HH:MM, «cerrado» (closed), or empty. Empty on a weekday = closed; on a holiday or its eve = as that weekday. With no hours at all, admission has no time limit.</translation>
    </message>
    <message>
        <source>Ayuda del horario</source>
        <translation>Opening hours help</translation>
    </message>
    <message>
        <source>Festivos (AAAA-MM-DD, separados por comas)</source>
        <translation>Holidays (YYYY-MM-DD, separated by commas)</translation>
    </message>
    <message>
        <source>&amp;Festivos:</source>
        <translation>&amp;Holidays:</translation>
    </message>
    <message>
        <source>No admitir entradas en la última hora antes del cierre (art. 21.4)</source>
        <translation>No admissions in the last hour before closing (art. 21.4)</translation>
    </message>
    <message>
        <source>cerrado</source>
        <translation>closed</translation>
    </message>
</context>
<context>
    <name>IdentityPanel</name>
    <message>
        <source>Identidad</source>
        <translation>Identity</translation>
    </message>
    <message>
        <source>Identidad del visitante</source>
        <translation>Visitor&apos;s identity</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Documento</source>
        <translation>Document</translation>
    </message>
    <message>
        <source>Edad</source>
        <translation>Age</translation>
    </message>
    <message>
        <source>Ficha</source>
        <translation>File</translation>
    </message>
    <message>
        <source>Visitas</source>
        <translation>Visits</translation>
    </message>
    <message>
        <source>Última visita</source>
        <translation>Last visit</translation>
    </message>
    <message>
        <source>Observaciones</source>
        <translation>Remarks</translation>
    </message>
    <message>
        <source>Avisos</source>
        <translation>Warnings</translation>
    </message>
    <message>
        <source>Prohibiciones</source>
        <translation>Bans</translation>
    </message>
    <message>
        <source>Ficha nº</source>
        <translation>File no.</translation>
    </message>
    <message>
        <source>Prohibición</source>
        <translation>Ban</translation>
    </message>
    <message>
        <source>Documento de identidad</source>
        <translation>Identity document</translation>
    </message>
    <message>
        <source>Pasaporte</source>
        <translation>Passport</translation>
    </message>
    <message>
        <source>Permiso de conducir</source>
        <translation>Driving licence</translation>
    </message>
    <message>
        <source>Tarjeta de residencia</source>
        <translation>Residence card</translation>
    </message>
    <message>
        <source>Visado</source>
        <translation>Visa</translation>
    </message>
    <message>
        <source>Certificado de tripulante</source>
        <translation>Crew member certificate</translation>
    </message>
    <message>
        <source>Otro documento</source>
        <translation>Other document</translation>
    </message>
    <message>
        <source>caduca</source>
        <translation>expires</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>nueva (primera visita)</source>
        <translation>new (first visit)</translation>
    </message>
    <message>
        <source>hasta %1</source>
        <translation>until %1</translation>
    </message>
    <message>
        <source>sin fecha de fin</source>
        <translation>with no end date</translation>
    </message>
    <message>
        <source>En vigor</source>
        <translation>In force</translation>
    </message>
    <message>
        <source>levantada el %1</source>
        <translation>lifted on %1</translation>
    </message>
    <message>
        <source>Anterior</source>
        <translation>Past</translation>
    </message>
    <message>
        <source>terminó el %1</source>
        <translation>ended on %1</translation>
    </message>
    <message>
        <source>%1: «%2», decidida por %3 el %4, %5</source>
        <translation>%1: “%2”, decided by %3 on %4, %5</translation>
    </message>
</context>
<context>
    <name>InspectionDialog</name>
    <message>
        <source>Inspección del fichero de visitantes (art. 20.4)</source>
        <translation>Inspection of the visitor file (art. 20.4)</translation>
    </message>
</context>
<context>
    <name>InspectionMenu</name>
    <message>
        <source>Conservación de datos</source>
        <translation>Data retention</translation>
    </message>
</context>
<context>
    <name>InspectionScreen</name>
    <message>
        <source>Consulta del fichero de visitantes</source>
        <translation>Visitor file query</translation>
    </message>
    <message>
        <source>Nombre o apellidos</source>
        <translation>Name or surname</translation>
    </message>
    <message>
        <source>Número del documento de identidad</source>
        <translation>Identity document number</translation>
    </message>
    <message>
        <source>Número de tarjeta</source>
        <translation>Card number</translation>
    </message>
    <message>
        <source>Número de ficha</source>
        <translation>File number</translation>
    </message>
    <message>
        <source>Texto de una observación</source>
        <translation>Text of an observation</translation>
    </message>
    <message>
        <source>Cualquier fech&amp;a</source>
        <translation>Any dat&amp;e</translation>
    </message>
    <message>
        <source>Sin límite de fechas</source>
        <translation>No date limit</translation>
    </message>
    <message>
        <source>Visitas desde</source>
        <translation>Visits from</translation>
    </message>
    <message>
        <source>Visitas hasta</source>
        <translation>Visits until</translation>
    </message>
    <message>
        <source>Motivo de la consulta (obligatorio)</source>
        <translation>Purpose of the query (required)</translation>
    </message>
    <message>
        <source>Obligatorio: expediente, inspección, requerimiento…</source>
        <translation>Required: case file, inspection, request…</translation>
    </message>
    <message>
        <source>&amp;Buscar</source>
        <translation>&amp;Search</translation>
    </message>
    <message>
        <source>Buscar en el fichero</source>
        <translation>Search the file</translation>
    </message>
    <message>
        <source>Búsqueda</source>
        <translation>Search</translation>
    </message>
    <message>
        <source>Criterios de búsqueda</source>
        <translation>Search criteria</translation>
    </message>
    <message>
        <source>&amp;Nombre:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Identidad:</source>
        <translation>&amp;Identity:</translation>
    </message>
    <message>
        <source>&amp;Tarjeta nº:</source>
        <translation>&amp;Card no.:</translation>
    </message>
    <message>
        <source>Fi&amp;cha nº:</source>
        <translation>Fi&amp;le no.:</translation>
    </message>
    <message>
        <source>Ve&amp;r visitas</source>
        <translation>&amp;View visits</translation>
    </message>
    <message>
        <source>D&amp;ía:</source>
        <translation>Da&amp;y:</translation>
    </message>
    <message>
        <source>&amp;Desde:</source>
        <translation>&amp;From:</translation>
    </message>
    <message>
        <source>&amp;Hasta:</source>
        <translation>&amp;To:</translation>
    </message>
    <message>
        <source>&amp;Observación:</source>
        <translation>&amp;Observation:</translation>
    </message>
    <message>
        <source>&amp;Motivo:</source>
        <translation>&amp;Purpose:</translation>
    </message>
    <message>
        <source>Personas encontradas</source>
        <translation>People found</translation>
    </message>
    <message>
        <source>Resumen de la búsqueda</source>
        <translation>Search summary</translation>
    </message>
    <message>
        <source>Ver las visitas de la persona elegida</source>
        <translation>View the chosen person&apos;s visits</translation>
    </message>
    <message>
        <source>Visitas de la persona elegida</source>
        <translation>The chosen person&apos;s visits</translation>
    </message>
    <message>
        <source>Elija una persona y pulse Ver visitas</source>
        <translation>Choose a person and press View visits</translation>
    </message>
    <message>
        <source>Persona elegida</source>
        <translation>Chosen person</translation>
    </message>
    <message>
        <source>Exportar</source>
        <translation>Export</translation>
    </message>
    <message>
        <source>Exportar a un archivo</source>
        <translation>Export to a file</translation>
    </message>
    <message>
        <source>Resultados &amp;PDF…</source>
        <translation>Results &amp;PDF…</translation>
    </message>
    <message>
        <source>Exportar los resultados a PDF</source>
        <translation>Export the results to PDF</translation>
    </message>
    <message>
        <source>Resultados CS&amp;V…</source>
        <translation>Results CS&amp;V…</translation>
    </message>
    <message>
        <source>Exportar los resultados a CSV</source>
        <translation>Export the results to CSV</translation>
    </message>
    <message>
        <source>Exportar las visitas a PDF</source>
        <translation>Export the visits to PDF</translation>
    </message>
    <message>
        <source>Visitas PD&amp;F…</source>
        <translation>Visits P&amp;DF…</translation>
    </message>
    <message>
        <source>Visitas C&amp;SV…</source>
        <translation>Visits C&amp;SV…</translation>
    </message>
    <message>
        <source>Exportar las visitas a CSV</source>
        <translation>Export the visits to CSV</translation>
    </message>
    <message>
        <source>Día del libro diario</source>
        <translation>Day of the daily book</translation>
    </message>
    <message>
        <source>&amp;Libro diario PDF…</source>
        <translation>Daily &amp;book PDF…</translation>
    </message>
    <message>
        <source>Exportar el libro diario de visitantes del día</source>
        <translation>Export the day&apos;s visitor book</translation>
    </message>
    <message>
        <source>Personas encontradas: %1</source>
        <translation>People found: %1</translation>
    </message>
    <message>
        <source>Nadie coincide con la búsqueda</source>
        <translation>Nobody matches the search</translation>
    </message>
    <message>
        <source>Ficha %1 · %2 · %3 visitas</source>
        <translation>File %1 · %2 · %3 visits</translation>
    </message>
    <message>
        <source>Exportado: %1</source>
        <translation>Exported: %1</translation>
    </message>
    <message>
        <source>%1 filas</source>
        <translation>%1 rows</translation>
    </message>
    <message>
        <source>Documento PDF (*.pdf)</source>
        <translation>PDF document (*.pdf)</translation>
    </message>
    <message>
        <source>Tabla CSV (*.csv)</source>
        <translation>CSV table (*.csv)</translation>
    </message>
    <message>
        <source>¿Dónde guardar la exportación?</source>
        <translation>Where to save the export?</translation>
    </message>
    <message>
        <source>busqueda</source>
        <translation>search</translation>
    </message>
    <message>
        <source>visitas</source>
        <translation>visits</translation>
    </message>
    <message>
        <source>libro-diario</source>
        <translation>day-book</translation>
    </message>
</context>
<context>
    <name>KeyPage</name>
    <message>
        <source>1. El fichero de visitantes y su clave</source>
        <translation>1. The visitor file and its key</translation>
    </message>
    <message>
        <source>El fichero de visitantes (art. 20.3) se guarda cifrado. Al crearlo se genera una clave que se guarda en el llavero del sistema operativo, nunca en un archivo junto al fichero. Sin esa clave el fichero no se puede abrir: haga una copia de seguridad del llavero. El fichero se crea una sola vez.</source>
        <translation>The visitor file (art. 20.3) is kept encrypted. Creating it makes a key that is kept in the operating system&apos;s keyring, never in a file beside it. Without that key the file cannot be opened: back up the keyring. The file is created once only.</translation>
    </message>
    <message>
        <source>El fichero de visitantes (art. 20.3) se guarda cifrado. Este equipo no tiene llavero del sistema operativo: la clave es una frase de paso que usted elige ahora y que se pedirá cada vez que se abra el programa. Use cuatro palabras o más, o al menos 12 caracteres mezclando mayúsculas, minúsculas, cifras y signos. El fichero se crea una sola vez.</source>
        <translation>The visitor file (art. 20.3) is kept encrypted. This computer has no operating-system keyring: the key is a passphrase you choose now, asked each time the program opens. Use four words or more, or at least 12 characters mixing upper and lower case, digits and signs. The file is created once only.</translation>
    </message>
    <message>
        <source>Explicación de la clave del fichero</source>
        <translation>Explanation of the file&apos;s key</translation>
    </message>
    <message>
        <source>Frase de paso del fichero</source>
        <translation>Passphrase of the file</translation>
    </message>
    <message>
        <source>Repita la frase de paso</source>
        <translation>Repeat the passphrase</translation>
    </message>
    <message>
        <source>Solidez de la frase de paso</source>
        <translation>Strength of the passphrase</translation>
    </message>
    <message>
        <source>LA FRASE DE PASO NO SE PUEDE RECUPERAR. Nadie, tampoco el fabricante, puede abrir el fichero sin ella: si se pierde, se pierden los datos de los visitantes. Escríbala en papel y guárdela en la caja fuerte.</source>
        <translation>THE PASSPHRASE CANNOT BE RECOVERED. Nobody, the maker included, can open the file without it: if it is lost, the visitors&apos; data are lost. Write it on paper and keep it in the safe.</translation>
    </message>
    <message>
        <source>Aviso: la frase de paso no se puede recuperar</source>
        <translation>Warning: the passphrase cannot be recovered</translation>
    </message>
    <message>
        <source>He &amp;guardado la frase de paso en un lugar seguro y sé que no se puede recuperar</source>
        <translation>I have &amp;kept the passphrase in a safe place and know it cannot be recovered</translation>
    </message>
    <message>
        <source>&amp;Crear el fichero y su clave</source>
        <translation>&amp;Create the file and its key</translation>
    </message>
    <message>
        <source>Crear el fichero de visitantes</source>
        <translation>Create the visitor file</translation>
    </message>
    <message>
        <source>Fichero creado</source>
        <translation>File created</translation>
    </message>
    <message>
        <source>&amp;Frase de paso:</source>
        <translation>&amp;Passphrase:</translation>
    </message>
    <message>
        <source>&amp;Repita la frase:</source>
        <translation>&amp;Repeat it:</translation>
    </message>
    <message>
        <source>Frase de paso aceptable</source>
        <translation>Passphrase acceptable</translation>
    </message>
    <message>
        <source>Marque la casilla de la frase de paso</source>
        <translation>Tick the passphrase box</translation>
    </message>
    <message>
        <source>El fichero de visitantes ya existe: se usa ese</source>
        <translation>The visitor file already exists: that one is used</translation>
    </message>
    <message>
        <source>Fichero creado: %1</source>
        <translation>File created: %1</translation>
    </message>
</context>
<context>
    <name>ManualEntryDialog</name>
    <message>
        <source>Entrada manual del documento</source>
        <translation>Manual entry of the document</translation>
    </message>
    <message>
        <source>Tipo de documento</source>
        <translation>Document type</translation>
    </message>
    <message>
        <source>DNI / documento de identidad</source>
        <translation>DNI / identity card</translation>
    </message>
    <message>
        <source>Pasaporte</source>
        <translation>Passport</translation>
    </message>
    <message>
        <source>Permiso de conducir</source>
        <translation>Driving licence</translation>
    </message>
    <message>
        <source>Tarjeta de residencia (NIE)</source>
        <translation>Residence card (NIE)</translation>
    </message>
    <message>
        <source>País emisor (ESP, FRA…)</source>
        <translation>Issuing country (ESP, FRA…)</translation>
    </message>
    <message>
        <source>Número del documento</source>
        <translation>Document number</translation>
    </message>
    <message>
        <source>Apellidos</source>
        <translation>Surnames</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Fecha de nacimiento (DD/MM/AAAA)</source>
        <translation>Date of birth (DD/MM/YYYY)</translation>
    </message>
    <message>
        <source>Fecha de caducidad (DD/MM/AAAA)</source>
        <translation>Expiry date (DD/MM/YYYY)</translation>
    </message>
    <message>
        <source>Nacionalidad (ESP, FRA…)</source>
        <translation>Nationality (ESP, FRA…)</translation>
    </message>
    <message>
        <source>Sexo</source>
        <translation>Sex</translation>
    </message>
    <message>
        <source>X / sin indicar</source>
        <translation>X / not stated</translation>
    </message>
    <message>
        <source>Problema del documento</source>
        <translation>Problem with the document</translation>
    </message>
    <message>
        <source>Aceptar o cancelar</source>
        <translation>Accept or cancel</translation>
    </message>
    <message>
        <source>Tipo</source>
        <translation>Type</translation>
    </message>
    <message>
        <source>País emisor</source>
        <translation>Issuing country</translation>
    </message>
    <message>
        <source>Número</source>
        <translation>Number</translation>
    </message>
    <message>
        <source>Nacimiento</source>
        <translation>Birth</translation>
    </message>
    <message>
        <source>Caducidad</source>
        <translation>Expiry</translation>
    </message>
    <message>
        <source>Nacionalidad</source>
        <translation>Nationality</translation>
    </message>
    <message>
        <source>Escriba al menos el número y los apellidos</source>
        <translation>Type at least the number and the surnames</translation>
    </message>
    <message>
        <source>Fecha de nacimiento: DD/MM/AAAA</source>
        <translation>Date of birth: DD/MM/YYYY</translation>
    </message>
    <message>
        <source>Fecha de caducidad: DD/MM/AAAA</source>
        <translation>Expiry date: DD/MM/YYYY</translation>
    </message>
    <message>
        <source>letra esperada: </source>
        <translation>expected letter: </translation>
    </message>
</context>
<context>
    <name>MenuBase</name>
    <message>
        <source>Tarjeta nº %1 expedida</source>
        <translation>Card no. %1 issued</translation>
    </message>
    <message>
        <source>Configuración guardada. Se aplica al reiniciar: %1</source>
        <translation>Settings saved. Applies after a restart: %1</translation>
    </message>
    <message>
        <source>Configuración aplicada</source>
        <translation>Settings applied</translation>
    </message>
</context>
<context>
    <name>ObservationDialog</name>
    <message>
        <source>Observación en la ficha del visitante (art. 20.3)</source>
        <translation>Observation on the visitor&apos;s file (art. 20.3)</translation>
    </message>
    <message>
        <source>La observación queda en la ficha con su nombre y la fecha, se muestra en la próxima visita y se borra con la ficha a los seis meses (art. 20.4).</source>
        <translation>The observation stays on the file with your name and the date, is shown at the next visit and is erased with the file after six months (art. 20.4).</translation>
    </message>
    <message>
        <source>(escriba el número)</source>
        <translation>(type the number)</translation>
    </message>
    <message>
        <source>Número de ficha</source>
        <translation>File number</translation>
    </message>
    <message>
        <source>Visitante</source>
        <translation>Visitor</translation>
    </message>
    <message>
        <source>Texto de la observación</source>
        <translation>Text of the observation</translation>
    </message>
    <message>
        <source>Qué ha ocurrido, con hechos (máx. 500 caracteres)</source>
        <translation>What happened, with facts (max. 500 characters)</translation>
    </message>
    <message>
        <source>Caracteres escritos</source>
        <translation>Characters written</translation>
    </message>
    <message>
        <source>&amp;Ficha nº:</source>
        <translation>&amp;File no.:</translation>
    </message>
    <message>
        <source>Visitante:</source>
        <translation>Visitor:</translation>
    </message>
    <message>
        <source>&amp;Observación:</source>
        <translation>&amp;Observation:</translation>
    </message>
    <message>
        <source>&amp;Añadir a la ficha</source>
        <translation>&amp;Add to the file</translation>
    </message>
    <message>
        <source>Añadir la observación a la ficha</source>
        <translation>Add the observation to the file</translation>
    </message>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancelar sin escribir nada</source>
        <translation>Cancel without writing anything</translation>
    </message>
    <message>
        <source>%1 de %2 caracteres</source>
        <translation>%1 of %2 characters</translation>
    </message>
</context>
<context>
    <name>OfficialDialog</name>
    <message>
        <source>Funcionario en servicio (art. 24)</source>
        <translation>Official on duty (art. 24)</translation>
    </message>
    <message>
        <source>Se registran su identidad y su condición: no se le expide tarjeta, no paga y no puede jugar (art. 24).</source>
        <translation>Their identity and capacity are recorded: no card is issued, they do not pay and may not play (art. 24).</translation>
    </message>
    <message>
        <source>Aviso sobre funcionarios en servicio</source>
        <translation>Notice on officials on duty</translation>
    </message>
    <message>
        <source>Documento en pantalla</source>
        <translation>Document on screen</translation>
    </message>
    <message>
        <source>Condición del funcionario</source>
        <translation>Official&apos;s capacity</translation>
    </message>
    <message>
        <source>Inspector del juego de la Comunidad de Madrid</source>
        <translation>Gaming inspector of the Comunidad de Madrid</translation>
    </message>
    <message>
        <source>Agente de la Policía Nacional</source>
        <translation>National Police officer</translation>
    </message>
    <message>
        <source>Agente de la Guardia Civil</source>
        <translation>Guardia Civil officer</translation>
    </message>
    <message>
        <source>Agente de la Policía Municipal</source>
        <translation>Municipal Police officer</translation>
    </message>
    <message>
        <source>Cargo o condición (obligatorio)</source>
        <translation>Post or capacity (required)</translation>
    </message>
    <message>
        <source>&amp;Registrar sin tarjeta</source>
        <translation>&amp;Record without a card</translation>
    </message>
    <message>
        <source>Registrar al funcionario, sin tarjeta</source>
        <translation>Record the official, without a card</translation>
    </message>
    <message>
        <source>Documento:</source>
        <translation>Document:</translation>
    </message>
    <message>
        <source>&amp;Condición:</source>
        <translation>&amp;Capacity:</translation>
    </message>
    <message>
        <source>Registrado en servicio: sin tarjeta, sin cobro</source>
        <translation>Recorded on duty: no card, no charge</translation>
    </message>
</context>
<context>
    <name>OfflineVoucherDialog</name>
    <message>
        <source>Volante provisional sin servidor (art. 23.4)</source>
        <translation>Provisional voucher without the server (art. 23.4)</translation>
    </message>
    <message>
        <source>Sin conexión con el servidor del casino: no se puede admitir a nadie hasta que vuelva.</source>
        <translation>No connection to the casino&apos;s server: nobody can be admitted until it is back.</translation>
    </message>
    <message>
        <source>Aviso: sin servidor</source>
        <translation>Notice: no server</translation>
    </message>
    <message>
        <source>Volante provisional (art. 23.4): el visitante deposita el documento y el precio. El volante se guarda en la cola cifrada de este puesto con una referencia provisional y recibe su número cuando vuelva el servidor; la tarjeta se formaliza después con el mismo documento.</source>
        <translation>Provisional voucher (art. 23.4): the visitor deposits the document and the price. The voucher is kept in this desk&apos;s encrypted queue under a provisional reference and gets its number when the server is back; the card is formalised later with the same document.</translation>
    </message>
    <message>
        <source>Aviso del volante provisional</source>
        <translation>Provisional voucher notice</translation>
    </message>
    <message>
        <source>Titular del documento</source>
        <translation>Document holder</translation>
    </message>
    <message>
        <source>Tipo de documento</source>
        <translation>Document type</translation>
    </message>
    <message>
        <source>DNI / documento de identidad</source>
        <translation>DNI / identity card</translation>
    </message>
    <message>
        <source>Pasaporte</source>
        <translation>Passport</translation>
    </message>
    <message>
        <source>Permiso de conducir</source>
        <translation>Driving licence</translation>
    </message>
    <message>
        <source>Tarjeta de residencia (NIE)</source>
        <translation>Residence card (NIE)</translation>
    </message>
    <message>
        <source>Número del documento</source>
        <translation>Document number</translation>
    </message>
    <message>
        <source>Tipo de tarjeta y precio</source>
        <translation>Card type and price</translation>
    </message>
    <message>
        <source>He comprobado el documento original: en &amp;vigor y titular mayor de edad</source>
        <translation>I checked the original document: &amp;valid and the holder of age</translation>
    </message>
    <message>
        <source>Documento original comprobado</source>
        <translation>Original document checked</translation>
    </message>
    <message>
        <source>&amp;Emitir volante provisional (Intro)</source>
        <translation>&amp;Issue provisional voucher (Enter)</translation>
    </message>
    <message>
        <source>&amp;Titular:</source>
        <translation>&amp;Holder:</translation>
    </message>
    <message>
        <source>Tipo de &amp;documento:</source>
        <translation>Document &amp;type:</translation>
    </message>
    <message>
        <source>&amp;Número:</source>
        <translation>&amp;Number:</translation>
    </message>
    <message>
        <source>T&amp;arjeta:</source>
        <translation>C&amp;ard:</translation>
    </message>
    <message>
        <source>Titular</source>
        <translation>Holder</translation>
    </message>
    <message>
        <source>Número</source>
        <translation>Number</translation>
    </message>
    <message>
        <source>Volante provisional %1 registrado, NO impreso: %2</source>
        <translation>Provisional voucher %1 recorded, NOT printed: %2</translation>
    </message>
    <message>
        <source>Cerrar (Esc)</source>
        <translation>Close (Esc)</translation>
    </message>
</context>
<context>
    <name>PassphraseDialog</name>
    <message>
        <source>Fichero de visitantes</source>
        <translation>Visitor file</translation>
    </message>
    <message>
        <source>Escriba la frase de paso del fichero de visitantes (la que se eligió al instalar el programa). Sin ella el fichero no se puede abrir.</source>
        <translation>Type the passphrase of the visitor file (the one chosen when the program was installed). Without it the file cannot be opened.</translation>
    </message>
    <message>
        <source>Explicación de la frase de paso</source>
        <translation>Explanation of the passphrase</translation>
    </message>
    <message>
        <source>Frase de paso del fichero</source>
        <translation>Passphrase of the file</translation>
    </message>
    <message>
        <source>&amp;Abrir</source>
        <translation>&amp;Open</translation>
    </message>
    <message>
        <source>Abrir el fichero</source>
        <translation>Open the file</translation>
    </message>
    <message>
        <source>&amp;Salir</source>
        <translation>&amp;Quit</translation>
    </message>
    <message>
        <source>Salir del programa</source>
        <translation>Quit the program</translation>
    </message>
    <message>
        <source>&amp;Frase de paso:</source>
        <translation>&amp;Passphrase:</translation>
    </message>
</context>
<context>
    <name>PinDialog</name>
    <message>
        <source>Mi PIN de desbloqueo</source>
        <translation>My unlock PIN</translation>
    </message>
    <message>
        <source>Con el PIN (de 4 a 8 cifras) usted desbloquea el puesto que se bloqueó en su sesión. Para iniciar sesión se pide siempre la contraseña. Tres PIN erróneos y se pide la contraseña.</source>
        <translation>With the PIN (4 to 8 digits) you unlock the desk that locked itself during your session. Signing in always takes the password. After three wrong PINs the password is asked.</translation>
    </message>
    <message>
        <source>Operador</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Contraseña actual</source>
        <translation>Current password</translation>
    </message>
    <message>
        <source>Nuevo PIN</source>
        <translation>New PIN</translation>
    </message>
    <message>
        <source>Repita el PIN</source>
        <translation>Repeat the PIN</translation>
    </message>
    <message>
        <source>Operador:</source>
        <translation>Operator:</translation>
    </message>
    <message>
        <source>&amp;Contraseña actual:</source>
        <translation>Current &amp;password:</translation>
    </message>
    <message>
        <source>&amp;Nuevo PIN:</source>
        <translation>&amp;New PIN:</translation>
    </message>
    <message>
        <source>&amp;Repita el PIN:</source>
        <translation>&amp;Repeat the PIN:</translation>
    </message>
    <message>
        <source>&amp;Guardar el PIN</source>
        <translation>&amp;Save the PIN</translation>
    </message>
    <message>
        <source>Guardar el PIN</source>
        <translation>Save the PIN</translation>
    </message>
    <message>
        <source>&amp;Quitar el PIN</source>
        <translation>&amp;Remove the PIN</translation>
    </message>
    <message>
        <source>Quitar el PIN</source>
        <translation>Remove the PIN</translation>
    </message>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancelar sin cambiar nada</source>
        <translation>Cancel without changing anything</translation>
    </message>
</context>
<context>
    <name>PresentationView</name>
    <message>
        <source>Documentos en espera</source>
        <translation>Documents waiting</translation>
    </message>
    <message>
        <source>Reimprimir la tarjeta que ya tiene…</source>
        <translation>Reprint the card already held…</translation>
    </message>
    <message>
        <source>Ya admitido: tarjeta nº %1, válida hasta la sesión del %2</source>
        <translation>Already admitted: card no. %1, valid through the session of %2</translation>
    </message>
    <message>
        <source>Intro: cobrar %1 · %2 e imprimir la tarjeta · F1-F8: otro tipo</source>
        <translation>Enter: charge %1 · %2 and print the card · F1-F8: another type</translation>
    </message>
    <message>
        <source>Intro: entra con su abono, tarjeta nº %1 válida hasta la sesión del %2 · sin cobro</source>
        <translation>Enter: in on their pass, card no. %1 valid through the session of %2 · no charge</translation>
    </message>
    <message>
        <source>Intro: autorización del director de juegos, cobrar %1 · %2 e imprimir · F1-F8: otro tipo</source>
        <translation>Enter: the game director&apos;s authorisation, charge %1 · %2 and print · F1-F8: another type</translation>
    </message>
    <message>
        <source>Registrado en la ficha %1 · imprimiendo la tarjeta nº %2…</source>
        <translation>Recorded in file %1 · printing card no. %2…</translation>
    </message>
    <message>
        <source>Registrado en la ficha %1 · entra con la tarjeta nº %2</source>
        <translation>Recorded in file %1 · enters on card no. %2</translation>
    </message>
    <message>
        <source>Reentrada registrada en la ficha %1 (no es una visita nueva) · Ctrl+R: reimprimir la tarjeta nº %2 · Intro: visto</source>
        <translation>Re-entry recorded in file %1 (not a new visit) · Ctrl+R: reprint card no. %2 · Enter: seen</translation>
    </message>
    <message>
        <source>No admitido, registrado en la ficha %1 (no es una denegación) · Intro: visto</source>
        <translation>Not admitted, recorded in file %1 (not a refusal) · Enter: seen</translation>
    </message>
    <message>
        <source>Denegación registrada en la ficha %1 · Intro: visto</source>
        <translation>Refusal recorded in file %1 · Enter: seen</translation>
    </message>
    <message>
        <source>No admitido: descartado por el empleado, registrado en la ficha %1</source>
        <translation>Not admitted: dismissed by the clerk, recorded in file %1</translation>
    </message>
    <message>
        <source>Denegación registrada en la ficha %1</source>
        <translation>Refusal recorded in file %1</translation>
    </message>
    <message>
        <source>Visto · lea el siguiente documento</source>
        <translation>Seen · read the next document</translation>
    </message>
    <message>
        <source>Documentos en espera: %1. Intro confirma y Esc descarta el veredicto en pantalla; después se comprueba el siguiente</source>
        <translation>Documents waiting: %1. Enter confirms and Esc dismisses the verdict on screen; then the next one is checked</translation>
    </message>
    <message>
        <source>El mismo documento otra vez: ya está en pantalla, se registra una vez</source>
        <translation>The same document again: it is on screen already and is recorded once</translation>
    </message>
    <message>
        <source>No hay en pantalla una tarjeta que reimprimir</source>
        <translation>No card to reprint on screen</translation>
    </message>
</context>
<context>
    <name>PrinterDialog</name>
    <message>
        <source>Impresoras</source>
        <translation>Printers</translation>
    </message>
    <message>
        <source>Guardar o cancelar</source>
        <translation>Save or cancel</translation>
    </message>
    <message>
        <source>&amp;Guardar</source>
        <translation>&amp;Save</translation>
    </message>
    <message>
        <source>Guardar la impresora elegida</source>
        <translation>Save the chosen printer</translation>
    </message>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancelar sin guardar</source>
        <translation>Cancel without saving</translation>
    </message>
</context>
<context>
    <name>PrinterFields</name>
    <message>
        <source>Tipo de impresión</source>
        <translation>Printing type</translation>
    </message>
    <message>
        <source>Cola de impresión CUPS</source>
        <translation>CUPS print queue</translation>
    </message>
    <message>
        <source>Impresora del sistema (Qt)</source>
        <translation>System printer (Qt)</translation>
    </message>
    <message>
        <source>Carpeta de PDF (sin impresora)</source>
        <translation>PDF folder (no printer)</translation>
    </message>
    <message>
        <source>Cola de la impresora de tarjetas</source>
        <translation>Card printer queue</translation>
    </message>
    <message>
        <source>Cola de la impresora de volantes</source>
        <translation>Voucher printer queue</translation>
    </message>
    <message>
        <source>Cola de la impresora del folleto</source>
        <translation>Leaflet printer queue</translation>
    </message>
    <message>
        <source>Carpeta de los PDF</source>
        <translation>Folder of the PDFs</translation>
    </message>
    <message>
        <source>Vacío = carpeta de datos/cards</source>
        <translation>Empty = data folder/cards</translation>
    </message>
    <message>
        <source>E&amp;xaminar…</source>
        <translation>B&amp;rowse…</translation>
    </message>
    <message>
        <source>Elegir la carpeta de los PDF</source>
        <translation>Choose the folder of the PDFs</translation>
    </message>
    <message>
        <source>&amp;Comprobar la impresora</source>
        <translation>&amp;Check the printer</translation>
    </message>
    <message>
        <source>Comprobar el estado de la impresora</source>
        <translation>Check the printer&apos;s status</translation>
    </message>
    <message>
        <source>Estado de la impresora</source>
        <translation>Printer&apos;s status</translation>
    </message>
    <message>
        <source>&amp;Impresión:</source>
        <translation>&amp;Printing:</translation>
    </message>
    <message>
        <source>Impresora de &amp;tarjetas:</source>
        <translation>&amp;Card printer:</translation>
    </message>
    <message>
        <source>Impresora de &amp;volantes:</source>
        <translation>&amp;Voucher printer:</translation>
    </message>
    <message>
        <source>Impresora del &amp;folleto:</source>
        <translation>&amp;Leaflet printer:</translation>
    </message>
    <message>
        <source>Carpeta de &amp;PDF:</source>
        <translation>&amp;PDF folder:</translation>
    </message>
    <message>
        <source>Comprobando…</source>
        <translation>Checking…</translation>
    </message>
</context>
<context>
    <name>PrinterPage</name>
    <message>
        <source>4. La impresora de tarjetas</source>
        <translation>4. The card printer</translation>
    </message>
</context>
<context>
    <name>RectificationDialog</name>
    <message>
        <source>Rectificar datos de un visitante (RGPD art. 16)</source>
        <translation>Rectify a visitor&apos;s data (GDPR art. 16)</translation>
    </message>
    <message>
        <source>Número de ficha</source>
        <translation>File number</translation>
    </message>
    <message>
        <source>Motivo de la consulta (obligatorio)</source>
        <translation>Purpose of the query (required)</translation>
    </message>
    <message>
        <source>Obligatorio: solicitud del interesado…</source>
        <translation>Required: the data subject&apos;s request…</translation>
    </message>
    <message>
        <source>&amp;Cargar la ficha</source>
        <translation>&amp;Load the file</translation>
    </message>
    <message>
        <source>Cargar la ficha del visitante</source>
        <translation>Load the visitor&apos;s file</translation>
    </message>
    <message>
        <source>&amp;Ficha nº:</source>
        <translation>&amp;File no.:</translation>
    </message>
    <message>
        <source>Mo&amp;tivo:</source>
        <translation>P&amp;urpose:</translation>
    </message>
    <message>
        <source>Nombre que consta en la ficha</source>
        <translation>Name held in the file</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Rectificar el nombre</source>
        <translation>Rectify the name</translation>
    </message>
    <message>
        <source>Apellidos rectificados</source>
        <translation>Rectified surname</translation>
    </message>
    <message>
        <source>Nombre rectificado</source>
        <translation>Rectified given names</translation>
    </message>
    <message>
        <source>Motivo de la rectificación del nombre</source>
        <translation>Reason for rectifying the name</translation>
    </message>
    <message>
        <source>&amp;Rectificar el nombre</source>
        <translation>&amp;Rectify the name</translation>
    </message>
    <message>
        <source>Guardar el nombre rectificado</source>
        <translation>Save the rectified name</translation>
    </message>
    <message>
        <source>&amp;Apellidos:</source>
        <translation>&amp;Surname:</translation>
    </message>
    <message>
        <source>&amp;Nombre:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>Motivo:</source>
        <translation>Reason:</translation>
    </message>
    <message>
        <source>Observaciones</source>
        <translation>Observations</translation>
    </message>
    <message>
        <source>Rectificar una observación</source>
        <translation>Rectify an observation</translation>
    </message>
    <message>
        <source>Fecha</source>
        <translation>Date</translation>
    </message>
    <message>
        <source>Autor</source>
        <translation>Author</translation>
    </message>
    <message>
        <source>Texto</source>
        <translation>Text</translation>
    </message>
    <message>
        <source>Observaciones de la ficha</source>
        <translation>Observations of the file</translation>
    </message>
    <message>
        <source>Texto rectificado de la observación</source>
        <translation>Rectified text of the observation</translation>
    </message>
    <message>
        <source>Motivo de la rectificación de la observación</source>
        <translation>Reason for rectifying the observation</translation>
    </message>
    <message>
        <source>Rectificar la &amp;observación</source>
        <translation>Rectify the &amp;observation</translation>
    </message>
    <message>
        <source>Guardar la observación rectificada</source>
        <translation>Save the rectified observation</translation>
    </message>
    <message>
        <source>Te&amp;xto:</source>
        <translation>Te&amp;xt:</translation>
    </message>
    <message>
        <source>Ficha %1: %2</source>
        <translation>File %1: %2</translation>
    </message>
    <message>
        <source>Observación rectificada</source>
        <translation>Observation rectified</translation>
    </message>
</context>
<context>
    <name>RegistryFields</name>
    <message>
        <source>Dirección del servicio del RIAJ</source>
        <translation>Address of the RIAJ service</translation>
    </message>
    <message>
        <source>Vacío = solo la copia local</source>
        <translation>Empty = the local copy only</translation>
    </message>
    <message>
        <source>Tiempo de espera de la consulta</source>
        <translation>Check&apos;s timeout</translation>
    </message>
    <message>
        <source>Intentos por consulta</source>
        <translation>Attempts per check</translation>
    </message>
    <message>
        <source>Antigüedad máxima de la copia local</source>
        <translation>Maximum age of the local copy</translation>
    </message>
    <message>
        <source>Periodo de actualización de la copia</source>
        <translation>Copy&apos;s refresh period</translation>
    </message>
    <message>
        <source>Si el RIAJ no se puede consultar</source>
        <translation>If the RIAJ cannot be checked</translation>
    </message>
    <message>
        <source>No puede entrar (recomendado)</source>
        <translation>May not enter (recommended)</translation>
    </message>
    <message>
        <source>Decide el director de juegos</source>
        <translation>The game director decides</translation>
    </message>
    <message>
        <source>Usuario del RIAJ</source>
        <translation>RIAJ user name</translation>
    </message>
    <message>
        <source>Certificados de la autoridad (CA) del RIAJ</source>
        <translation>RIAJ certificate authority (CA) certificates</translation>
    </message>
    <message>
        <source>Certificado de cliente (PEM)</source>
        <translation>Client certificate (PEM)</translation>
    </message>
    <message>
        <source>Clave privada del cliente (PEM)</source>
        <translation>Client private key (PEM)</translation>
    </message>
    <message>
        <source>&amp;Servicio en línea:</source>
        <translation>&amp;Online service:</translation>
    </message>
    <message>
        <source>&amp;Espera:</source>
        <translation>&amp;Timeout:</translation>
    </message>
    <message>
        <source>&amp;Intentos:</source>
        <translation>&amp;Attempts:</translation>
    </message>
    <message>
        <source>&amp;Antigüedad máxima de la copia:</source>
        <translation>&amp;Maximum age of the copy:</translation>
    </message>
    <message>
        <source>&amp;Actualizar la copia cada:</source>
        <translation>&amp;Refresh the copy every:</translation>
    </message>
    <message>
        <source>Si el RIAJ &amp;no responde:</source>
        <translation>If the RIAJ does &amp;not answer:</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
    <message>
        <source>&amp;CA del servicio:</source>
        <translation>Service &amp;CA:</translation>
    </message>
    <message>
        <source>Certificado de c&amp;liente:</source>
        <translation>C&amp;lient certificate:</translation>
    </message>
    <message>
        <source>Clave del clien&amp;te:</source>
        <translation>Clien&amp;t key:</translation>
    </message>
    <message>
        <source>Las contraseñas del RIAJ se guardan en el llavero del sistema, no aquí.</source>
        <translation>The RIAJ passwords are kept in the system keyring, not here.</translation>
    </message>
    <message>
        <source>Aviso sobre las contraseñas del RIAJ</source>
        <translation>Notice on the RIAJ passwords</translation>
    </message>
</context>
<context>
    <name>RegistryPage</name>
    <message>
        <source>5. El Registro de Interdicciones (RIAJ)</source>
        <translation>5. The access-ban register (RIAJ)</translation>
    </message>
    <message>
        <source>Cada visitante se comprueba en el RIAJ antes de entrar (art. 20.2). Importe la copia del registro que facilita la Comunidad de Madrid, o configure el servicio en línea. Después se hace una consulta de prueba: sin registro que responda, nadie puede ser admitido.</source>
        <translation>Every visitor is checked in the RIAJ before entering (art. 20.2). Import the copy of the register the Comunidad de Madrid provides, or set up the online service. A test query follows: without a register that answers, nobody can be admitted.</translation>
    </message>
    <message>
        <source>Explicación del registro</source>
        <translation>Explanation of the register</translation>
    </message>
    <message>
        <source>Importar una &amp;copia del registro (archivo)</source>
        <translation>Import a &amp;copy of the register (file)</translation>
    </message>
    <message>
        <source>Usar el servicio en &amp;línea del RIAJ</source>
        <translation>Use the RIAJ&apos;s &amp;online service</translation>
    </message>
    <message>
        <source>Archivo de la copia del RIAJ</source>
        <translation>File of the RIAJ copy</translation>
    </message>
    <message>
        <source>E&amp;xaminar…</source>
        <translation>B&amp;rowse…</translation>
    </message>
    <message>
        <source>Elegir el archivo de la copia del RIAJ</source>
        <translation>Choose the file of the RIAJ copy</translation>
    </message>
    <message>
        <source>Dirección del servicio del RIAJ</source>
        <translation>Address of the RIAJ service</translation>
    </message>
    <message>
        <source>Usuario del RIAJ</source>
        <translation>RIAJ user name</translation>
    </message>
    <message>
        <source>Certificados de la autoridad (CA) del RIAJ</source>
        <translation>Certificate authority (CA) of the RIAJ</translation>
    </message>
    <message>
        <source>Certificado de cliente (PEM)</source>
        <translation>Client certificate (PEM)</translation>
    </message>
    <message>
        <source>Clave privada del cliente (PEM)</source>
        <translation>Client private key (PEM)</translation>
    </message>
    <message>
        <source>Ruta del archivo (si el RIAJ lo pide)</source>
        <translation>Path of the file (if the RIAJ asks for it)</translation>
    </message>
    <message>
        <source>&amp;Probar</source>
        <translation>&amp;Test</translation>
    </message>
    <message>
        <source>Probar el registro</source>
        <translation>Test the register</translation>
    </message>
    <message>
        <source>Resultado de la prueba del registro</source>
        <translation>Result of the register test</translation>
    </message>
    <message>
        <source>&amp;Archivo:</source>
        <translation>&amp;File:</translation>
    </message>
    <message>
        <source>&amp;Dirección:</source>
        <translation>A&amp;ddress:</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
    <message>
        <source>CA del ser&amp;vicio:</source>
        <translation>CA of the ser&amp;vice:</translation>
    </message>
    <message>
        <source>Certificado de clie&amp;nte:</source>
        <translation>Client cert&amp;ificate:</translation>
    </message>
    <message>
        <source>Clave del client&amp;e:</source>
        <translation>Client &amp;key:</translation>
    </message>
    <message>
        <source>Copia del RIAJ</source>
        <translation>RIAJ copy</translation>
    </message>
    <message>
        <source>Copias del RIAJ (*.txt *.csv *.riaj);;*</source>
        <translation>RIAJ copies (*.txt *.csv *.riaj);;*</translation>
    </message>
    <message>
        <source>Consultando el registro…</source>
        <translation>Asking the register…</translation>
    </message>
    <message>
        <source>Copia importada: %1 inscripciones, al día de %2</source>
        <translation>Copy imported: %1 entries, current as of %2</translation>
    </message>
    <message>
        <source>Prueba superada: el registro responde.</source>
        <translation>Test passed: the register answers.</translation>
    </message>
</context>
<context>
    <name>RegulationDialog</name>
    <message>
        <source>Reglamento de Casinos de Juego (Decreto 58/2006)</source>
        <translation>Casino Gaming Regulation (Decree 58/2006)</translation>
    </message>
    <message>
        <source>Buscar en el texto (Intro: siguiente)</source>
        <translation>Find in the text (Enter: next)</translation>
    </message>
    <message>
        <source>Buscar en el reglamento</source>
        <translation>Find in the regulation</translation>
    </message>
    <message>
        <source>Texto del reglamento</source>
        <translation>Text of the regulation</translation>
    </message>
    <message>
        <source>Siguiente</source>
        <translation>Next</translation>
    </message>
    <message>
        <source>&amp;Imprimir</source>
        <translation>&amp;Print</translation>
    </message>
    <message>
        <source>No aparece en el texto</source>
        <translation>Not found in the text</translation>
    </message>
    <message>
        <source>Enviado a la impresora</source>
        <translation>Sent to the printer</translation>
    </message>
</context>
<context>
    <name>ReprintQueueDialog</name>
    <message>
        <source>Tarjetas emitidas sin imprimir</source>
        <translation>Cards issued and not printed</translation>
    </message>
    <message>
        <source>Tarjetas pendientes de imprimir</source>
        <translation>Cards waiting to be printed</translation>
    </message>
    <message>
        <source>Tarjeta</source>
        <translation>Card</translation>
    </message>
    <message>
        <source>Ficha</source>
        <translation>File</translation>
    </message>
    <message>
        <source>Tipo</source>
        <translation>Type</translation>
    </message>
    <message>
        <source>Emitida</source>
        <translation>Issued</translation>
    </message>
    <message>
        <source>&amp;Imprimir la seleccionada</source>
        <translation>&amp;Print the selected one</translation>
    </message>
    <message>
        <source>Imprimir la tarjeta seleccionada</source>
        <translation>Print the selected card</translation>
    </message>
    <message>
        <source>&amp;Actualizar</source>
        <translation>&amp;Refresh</translation>
    </message>
    <message>
        <source>Actualizar la lista</source>
        <translation>Refresh the list</translation>
    </message>
    <message>
        <source>Tarjeta %1 impresa</source>
        <translation>Card %1 printed</translation>
    </message>
</context>
<context>
    <name>ResultsModel</name>
    <message>
        <source>Ficha</source>
        <translation>File</translation>
    </message>
    <message>
        <source>Apellidos</source>
        <translation>Surname</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Nacimiento</source>
        <translation>Born</translation>
    </message>
    <message>
        <source>Nacionalidad</source>
        <translation>Nationality</translation>
    </message>
    <message>
        <source>Primera visita</source>
        <translation>First visit</translation>
    </message>
    <message>
        <source>Última visita</source>
        <translation>Last visit</translation>
    </message>
</context>
<context>
    <name>RetentionDialog</name>
    <message>
        <source>Conservación de datos: seis meses (art. 20.4)</source>
        <translation>Data retention: six months (art. 20.4)</translation>
    </message>
    <message>
        <source>Próxima purga</source>
        <translation>Next purge</translation>
    </message>
    <message>
        <source>Visitantes:</source>
        <translation>Visitors:</translation>
    </message>
    <message>
        <source>Visitas:</source>
        <translation>Visits:</translation>
    </message>
    <message>
        <source>Observaciones:</source>
        <translation>Observations:</translation>
    </message>
    <message>
        <source>Tarjetas:</source>
        <translation>Cards:</translation>
    </message>
    <message>
        <source>Visita más antigua:</source>
        <translation>Oldest visit:</translation>
    </message>
    <message>
        <source>Observación más antigua:</source>
        <translation>Oldest observation:</translation>
    </message>
    <message>
        <source>Se conserva desde:</source>
        <translation>Kept since:</translation>
    </message>
    <message>
        <source>Mes</source>
        <translation>Month</translation>
    </message>
    <message>
        <source>Visitas</source>
        <translation>Visits</translation>
    </message>
    <message>
        <source>Admisiones</source>
        <translation>Admissions</translation>
    </message>
    <message>
        <source>Denegaciones</source>
        <translation>Refusals</translation>
    </message>
    <message>
        <source>Tarjetas</source>
        <translation>Cards</translation>
    </message>
    <message>
        <source>Visitantes nuevos</source>
        <translation>New visitors</translation>
    </message>
    <message>
        <source>Registros por mes</source>
        <translation>Records per month</translation>
    </message>
    <message>
        <source>Visitas por mes</source>
        <translation>Visits per month</translation>
    </message>
    <message>
        <source>&amp;Actualizar</source>
        <translation>&amp;Refresh</translation>
    </message>
    <message>
        <source>Actualizar la vista de conservación</source>
        <translation>Refresh the retention view</translation>
    </message>
    <message>
        <source>ninguno</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Purga pendiente: %1 visitas pasan de seis meses</source>
        <translation>Purge due: %1 visits are over six months old</translation>
    </message>
    <message>
        <source>El fichero está vacío: nada que purgar</source>
        <translation>The file is empty: nothing to purge</translation>
    </message>
    <message>
        <source>Próxima purga: %1</source>
        <translation>Next purge: %1</translation>
    </message>
</context>
<context>
    <name>SessionMenu</name>
    <message>
        <source>Operador: %1</source>
        <translation>Operator: %1</translation>
    </message>
    <message>
        <source>Bloqueada: %1</source>
        <translation>Locked: %1</translation>
    </message>
    <message>
        <source>Sin sesión</source>
        <translation>Nobody signed in</translation>
    </message>
    <message>
        <source>PIN de desbloqueo guardado</source>
        <translation>Unlock PIN saved</translation>
    </message>
    <message>
        <source>PIN de desbloqueo quitado</source>
        <translation>Unlock PIN removed</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Configuración</source>
        <translation>Settings</translation>
    </message>
    <message>
        <source>Apartados de la configuración</source>
        <translation>Settings sections</translation>
    </message>
    <message>
        <source>&amp;Casino</source>
        <translation>&amp;Casino</translation>
    </message>
    <message>
        <source>&amp;Tarjetas y precios</source>
        <translation>&amp;Cards and prices</translation>
    </message>
    <message>
        <source>&amp;Horario</source>
        <translation>&amp;Hours</translation>
    </message>
    <message>
        <source>&amp;Dispositivos</source>
        <translation>&amp;Devices</translation>
    </message>
    <message>
        <source>&amp;Registro (RIAJ)</source>
        <translation>&amp;Register (RIAJ)</translation>
    </message>
    <message>
        <source>&amp;Impresoras</source>
        <translation>&amp;Printers</translation>
    </message>
    <message>
        <source>P&amp;antalla</source>
        <translation>Displ&amp;ay</translation>
    </message>
    <message>
        <source>&amp;Sala</source>
        <translation>&amp;Floor</translation>
    </message>
    <message>
        <source>Se aplica al reiniciar el programa (se lee solo al arrancar el puesto).</source>
        <translation>Applies after restarting the program (read only when the desk starts).</translation>
    </message>
    <message>
        <source>Los cambios se aplican al guardar, en el puesto en marcha. Los campos marcados con ⟳ se aplican al reiniciar el programa.</source>
        <translation>Changes apply when saved, on the running desk. The fields marked ⟳ apply after restarting the program.</translation>
    </message>
    <message>
        <source>Cuándo se aplican los cambios</source>
        <translation>When the changes apply</translation>
    </message>
    <message>
        <source>Guardar o cancelar</source>
        <translation>Save or cancel</translation>
    </message>
    <message>
        <source>&amp;Guardar</source>
        <translation>&amp;Save</translation>
    </message>
    <message>
        <source>Guardar la configuración</source>
        <translation>Save the settings</translation>
    </message>
    <message>
        <source>Cancelar</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancelar sin guardar</source>
        <translation>Cancel without saving</translation>
    </message>
</context>
<context>
    <name>ShortcutsOverlay</name>
    <message>
        <source>Atajos de teclado</source>
        <translation>Keyboard shortcuts</translation>
    </message>
    <message>
        <source>Pulse cualquier tecla para volver</source>
        <translation>Press any key to go back</translation>
    </message>
</context>
<context>
    <name>SignInDialog</name>
    <message>
        <source>Iniciar sesión</source>
        <translation>Sign in</translation>
    </message>
    <message>
        <source>Identifíquese para trabajar en el puesto de admisión.</source>
        <translation>Sign in to work at the admission desk.</translation>
    </message>
    <message>
        <source>Usuario</source>
        <translation>User name</translation>
    </message>
    <message>
        <source>Contraseña</source>
        <translation>Password</translation>
    </message>
    <message>
        <source>Error de inicio de sesión</source>
        <translation>Sign-in error</translation>
    </message>
    <message>
        <source>&amp;Entrar</source>
        <translation>&amp;Sign in</translation>
    </message>
    <message>
        <source>Entrar</source>
        <translation>Sign in</translation>
    </message>
    <message>
        <source>&amp;Usuario:</source>
        <translation>&amp;User name:</translation>
    </message>
</context>
<context>
    <name>StaffDialog</name>
    <message>
        <source>Personal del casino (art. 18)</source>
        <translation>Casino staff (art. 18)</translation>
    </message>
    <message>
        <source>Lista del personal</source>
        <translation>Staff list</translation>
    </message>
    <message>
        <source>Nombre</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Identidad</source>
        <translation>Identity</translation>
    </message>
    <message>
        <source>Función</source>
        <translation>Role</translation>
    </message>
    <message>
        <source>Estado</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Añadir al personal</source>
        <translation>Add to the staff</translation>
    </message>
    <message>
        <source>Identidad: DNI/NIE o TIPO:PAÍS:NÚMERO</source>
        <translation>Identity: DNI/NIE or TYPE:COUNTRY:NUMBER</translation>
    </message>
    <message>
        <source>DNI/NIE o TIPO:PAÍS:NÚMERO</source>
        <translation>DNI/NIE or TYPE:COUNTRY:NUMBER</translation>
    </message>
    <message>
        <source>Nombre y apellidos</source>
        <translation>Full name</translation>
    </message>
    <message>
        <source>Personal</source>
        <translation>Staff</translation>
    </message>
    <message>
        <source>Director de juegos</source>
        <translation>Game director</translation>
    </message>
    <message>
        <source>&amp;Añadir…</source>
        <translation>&amp;Add…</translation>
    </message>
    <message>
        <source>Añadir al personal (pide al director)</source>
        <translation>Add to the staff (asks the director)</translation>
    </message>
    <message>
        <source>&amp;Identidad:</source>
        <translation>&amp;Identity:</translation>
    </message>
    <message>
        <source>&amp;Nombre:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Función:</source>
        <translation>&amp;Role:</translation>
    </message>
    <message>
        <source>&amp;Dar de baja la fila seleccionada…</source>
        <translation>&amp;Remove the selected row…</translation>
    </message>
    <message>
        <source>Dar de baja a la persona seleccionada (pide al director)</source>
        <translation>Remove the selected person (asks the director)</translation>
    </message>
    <message>
        <source>Activo</source>
        <translation>Active</translation>
    </message>
    <message>
        <source>De baja</source>
        <translation>Removed</translation>
    </message>
    <message>
        <source>Añadir al personal (art. 18)</source>
        <translation>Add to the staff (art. 18)</translation>
    </message>
    <message>
        <source>Añadido al personal</source>
        <translation>Added to the staff</translation>
    </message>
    <message>
        <source>Dar de baja del personal (art. 18)</source>
        <translation>Remove from the staff (art. 18)</translation>
    </message>
    <message>
        <source>Dado de baja</source>
        <translation>Removed</translation>
    </message>
</context>
<context>
    <name>TimelineModel</name>
    <message>
        <source>Fecha y hora</source>
        <translation>Date and time</translation>
    </message>
    <message>
        <source>Puesto</source>
        <translation>Desk</translation>
    </message>
    <message>
        <source>Operador</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Resultado</source>
        <translation>Outcome</translation>
    </message>
    <message>
        <source>Motivos</source>
        <translation>Reasons</translation>
    </message>
    <message>
        <source>Tarjeta</source>
        <translation>Card</translation>
    </message>
    <message>
        <source>Admitido</source>
        <translation>Admitted</translation>
    </message>
    <message>
        <source>Denegado</source>
        <translation>Refused</translation>
    </message>
    <message>
        <source>Decide el director</source>
        <translation>The director decides</translation>
    </message>
    <message>
        <source>Reentrada (no es visita)</source>
        <translation>Re-entry (not a visit)</translation>
    </message>
    <message>
        <source>No admitido</source>
        <translation>Not admitted</translation>
    </message>
</context>
<context>
    <name>UnlockDialog</name>
    <message>
        <source>Puesto bloqueado</source>
        <translation>Desk locked</translation>
    </message>
    <message>
        <source>El puesto se ha bloqueado. Solo su operador puede abrirlo:</source>
        <translation>The desk is locked. Only its operator can open it:</translation>
    </message>
    <message>
        <source>Operador del puesto</source>
        <translation>Desk&apos;s operator</translation>
    </message>
    <message>
        <source>Contraseña</source>
        <translation>Password</translation>
    </message>
    <message>
        <source>Error al desbloquear</source>
        <translation>Unlock error</translation>
    </message>
    <message>
        <source>&amp;Desbloquear</source>
        <translation>&amp;Unlock</translation>
    </message>
    <message>
        <source>Desbloquear</source>
        <translation>Unlock</translation>
    </message>
    <message>
        <source>Cambiar de &amp;operador</source>
        <translation>Change &amp;operator</translation>
    </message>
    <message>
        <source>Cambiar de operador</source>
        <translation>Change operator</translation>
    </message>
    <message>
        <source>&amp;Contraseña:</source>
        <translation>&amp;Password:</translation>
    </message>
    <message>
        <source>&amp;PIN:</source>
        <translation>&amp;PIN:</translation>
    </message>
    <message>
        <source>PIN</source>
        <translation>PIN</translation>
    </message>
    <message>
        <source>Usar la contr&amp;aseña</source>
        <translation>Use the p&amp;assword</translation>
    </message>
    <message>
        <source>Usar el P&amp;IN</source>
        <translation>Use the P&amp;IN</translation>
    </message>
    <message>
        <source>Bloqueada hasta las %1.</source>
        <translation>Locked until %1.</translation>
    </message>
</context>
<context>
    <name>VerdictBanner</name>
    <message>
        <source>Veredicto</source>
        <translation>Verdict</translation>
    </message>
    <message>
        <source>Motivos</source>
        <translation>Reasons</translation>
    </message>
    <message>
        <source>Registro y tarjeta</source>
        <translation>Record and card</translation>
    </message>
    <message>
        <source>Foto del titular del documento</source>
        <translation>Photo of the document&apos;s holder</translation>
    </message>
    <message>
        <source>Chip del documento</source>
        <translation>The document&apos;s chip</translation>
    </message>
    <message>
        <source>CHIP AUTÉNTICO</source>
        <translation>GENUINE CHIP</translation>
    </message>
    <message>
        <source>CHIP NO VERIFICABLE</source>
        <translation>CHIP NOT VERIFIABLE</translation>
    </message>
    <message>
        <source>CHIP FALSIFICADO</source>
        <translation>FORGED CHIP</translation>
    </message>
    <message>
        <source>Lea un documento</source>
        <translation>Read a document</translation>
    </message>
    <message>
        <source>Cámara, lector o Ctrl+M para entrada manual</source>
        <translation>Camera, reader or Ctrl+M for manual entry</translation>
    </message>
    <message>
        <source>Comprobando…</source>
        <translation>Checking…</translation>
    </message>
    <message>
        <source>ADMITIR</source>
        <translation>ADMIT</translation>
    </message>
    <message>
        <source>DENEGAR</source>
        <translation>DENY</translation>
    </message>
    <message>
        <source>SUPERVISOR</source>
        <translation>SUPERVISOR</translation>
    </message>
    <message>
        <source>YA ADMITIDO</source>
        <translation>ALREADY ADMITTED</translation>
    </message>
    <message>
        <source>NO ADMITIDO</source>
        <translation>NOT ADMITTED</translation>
    </message>
    <message>
        <source>Intro: registrar e imprimir la tarjeta · F1-F8: tipo de tarjeta</source>
        <translation>Enter: record and print the card · F1-F8: card type</translation>
    </message>
    <message>
        <source>Denegación registrada · Esc: siguiente</source>
        <translation>Refusal recorded · Esc: next</translation>
    </message>
    <message>
        <source>Intro: pedir la autorización del director de juegos</source>
        <translation>Enter: ask for the game director&apos;s authorisation</translation>
    </message>
    <message>
        <source>Reentrada: entra con su tarjeta · Ctrl+R: reimprimirla (con motivo) · Intro: visto</source>
        <translation>Re-entry: enters on the card held · Ctrl+R: reprint it (with a reason) · Enter: seen</translation>
    </message>
    <message>
        <source>No admitido, no es una denegación · Intro: visto</source>
        <translation>Not admitted, not a refusal · Enter: seen</translation>
    </message>
    <message>
        <source>⟲  LEA DE NUEVO</source>
        <translation>⟲  READ AGAIN</translation>
    </message>
</context>
<context>
    <name>VoucherDialogs</name>
    <message>
        <source>Emitir el volante provisional</source>
        <translation>Issue the provisional voucher</translation>
    </message>
    <message>
        <source>Cancelar (Esc)</source>
        <translation>Cancel (Esc)</translation>
    </message>
    <message>
        <source>Cancelar sin emitir</source>
        <translation>Cancel without issuing</translation>
    </message>
</context>
<context>
    <name>VoucherIssueDialog</name>
    <message>
        <source>Volante provisional (art. 23.4)</source>
        <translation>Provisional voucher (art. 23.4)</translation>
    </message>
    <message>
        <source>Se entrega el volante contra depósito del documento y del precio; la tarjeta se formaliza después con el mismo documento.</source>
        <translation>The voucher is handed over against a deposit of the document and the price; the card is completed later with the same document.</translation>
    </message>
    <message>
        <source>Aviso del volante provisional</source>
        <translation>Provisional voucher notice</translation>
    </message>
    <message>
        <source>Documento depositado</source>
        <translation>Document deposited</translation>
    </message>
    <message>
        <source>Tipo de tarjeta y precio</source>
        <translation>Card type and price</translation>
    </message>
    <message>
        <source>&amp;Emitir volante (Intro)</source>
        <translation>&amp;Issue voucher (Enter)</translation>
    </message>
    <message>
        <source>Documento:</source>
        <translation>Document:</translation>
    </message>
    <message>
        <source>Tarjeta:</source>
        <translation>Card:</translation>
    </message>
</context>
<context>
    <name>VouchersDialog</name>
    <message>
        <source>Volantes provisionales pendientes (art. 23.4)</source>
        <translation>Provisional vouchers pending (art. 23.4)</translation>
    </message>
    <message>
        <source>Solo los abiertos al &amp;cierre de la sesión</source>
        <translation>Only those open at the session&apos;s &amp;close</translation>
    </message>
    <message>
        <source>Lista de cierre</source>
        <translation>Closing list</translation>
    </message>
    <message>
        <source>Hora de cierre</source>
        <translation>Closing time</translation>
    </message>
    <message>
        <source>Volantes abiertos</source>
        <translation>Open vouchers</translation>
    </message>
    <message>
        <source>Volante</source>
        <translation>Voucher</translation>
    </message>
    <message>
        <source>Emitido</source>
        <translation>Issued</translation>
    </message>
    <message>
        <source>Titular</source>
        <translation>Holder</translation>
    </message>
    <message>
        <source>Documento</source>
        <translation>Document</translation>
    </message>
    <message>
        <source>Tarjeta</source>
        <translation>Card</translation>
    </message>
    <message>
        <source>Precio</source>
        <translation>Price</translation>
    </message>
    <message>
        <source>&amp;Formalizar con el documento en pantalla</source>
        <translation>&amp;Complete with the document on screen</translation>
    </message>
    <message>
        <source>Formalizar la tarjeta del volante seleccionado</source>
        <translation>Complete the selected voucher&apos;s card</translation>
    </message>
    <message>
        <source>&amp;Imprimir otra vez el volante</source>
        <translation>&amp;Print the voucher again</translation>
    </message>
    <message>
        <source>Imprimir otra vez el volante seleccionado</source>
        <translation>Print the selected voucher again</translation>
    </message>
    <message>
        <source>Motivo de la anulación del volante</source>
        <translation>Reason for cancelling the voucher</translation>
    </message>
    <message>
        <source>&amp;Anular el volante</source>
        <translation>&amp;Cancel the voucher</translation>
    </message>
    <message>
        <source>Anular el volante seleccionado</source>
        <translation>Cancel the selected voucher</translation>
    </message>
    <message>
        <source>Volantes provisionales de este puesto dados sin servidor, aún sin número (se numeran solos cuando vuelve el servidor):</source>
        <translation>Provisional vouchers this desk gave without the server, still without a number (numbered by themselves when the server is back):</translation>
    </message>
    <message>
        <source>Volantes provisionales sin número del servidor</source>
        <translation>Provisional vouchers without a server number</translation>
    </message>
    <message>
        <source>Referencia</source>
        <translation>Reference</translation>
    </message>
    <message>
        <source>Estado</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Imprimir otra vez el volante p&amp;rovisional</source>
        <translation>Print the p&amp;rovisional voucher again</translation>
    </message>
    <message>
        <source>Imprimir otra vez el volante provisional seleccionado</source>
        <translation>Print the selected provisional voucher again</translation>
    </message>
    <message>
        <source>Cierre: %1</source>
        <translation>Closing: %1</translation>
    </message>
    <message>
        <source>Fuera de sesión: todos los abiertos</source>
        <translation>Outside a session: all open ones</translation>
    </message>
    <message>
        <source>Pendiente</source>
        <translation>Pending</translation>
    </message>
    <message>
        <source>Enviándose</source>
        <translation>Being sent</translation>
    </message>
    <message>
        <source>Volante provisional %1 impreso</source>
        <translation>Provisional voucher %1 printed</translation>
    </message>
    <message>
        <source>Volante %1 formalizado: tarjeta %2</source>
        <translation>Voucher %1 completed: card %2</translation>
    </message>
    <message>
        <source>Volante %1 impreso</source>
        <translation>Voucher %1 printed</translation>
    </message>
    <message>
        <source>Volante %1 anulado</source>
        <translation>Voucher %1 cancelled</translation>
    </message>
</context>
</TS>
