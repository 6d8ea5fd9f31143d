; The admission desk's Windows installer: AdmissionDesk-<version>-setup.exe.
;
; NSIS 3 (3.08 or newer), Modern UI 2, Unicode. Compiled by tools/package_desk.py's
; make_setup() around the PyInstaller bundle (the same recipe as the .deb):
;
;   makensis -DVERSION=1.2.3 -DPRODUCT_VERSION=1.2.3.0 -DBUNDLE=<dist\admission-desk>
;            -DICON=<admission-desk.ico> -DOUTFILE=<AdmissionDesk-1.2.3-setup.exe>
;            packaging\windows\admission-desk.nsi
;
; Optional: -DPUBLISHER="..." or DESK_PUBLISHER (the name on the vendor's code-signing
; certificate), and
; the environment variable DESK_SIGN_COMMAND, a command with %1 for the file, which
; makensis runs to sign the uninstaller before it is packed and the installer once it is
; written (!uninstfinalize, !finalize); a command that fails (exit code not 0) stops the
; build, so a signed build never yields an unsigned setup. packaging/windows/build.ps1
; sets it for signtool.
;
; What it does: installs per machine in "$PROGRAMFILES64\Admission Desk" (the bundle is
; win_amd64), a Start-menu entry for all users, an optional start at sign-in, and an
; uninstaller registered in Add/Remove Programs. Installing over an older version
; replaces the program files and keeps everything else; installing an older version
; over a newer one is refused before anything is written (DOWNGRADE_REFUSED, exit code
; 3 in silent mode): a newer desk may have migrated the visitor file's schema.
;
; The visitor file, its keys, the settings, the certificates, the reprint queue, the
; vouchers and the logs are NOT program files: they live in the counter user's data
; folder, platformdirs' user_data_path("admission-desk", appauthor=False) (main.py's
; default_data_dir), that is %LOCALAPPDATA%\admission-desk. Neither an upgrade nor the
; uninstaller ever touches it.
;
; Exit codes (silent mode, /S): 0 done, 1 cancelled, 2 aborted (a file could not be
; written), 3 DOWNGRADE_REFUSED, 4 NOT_64_BIT (the desk needs 64-bit Windows),
; 5 DESK_RUNNING (the desk is open and its files cannot be replaced).

; Saved as UTF-8 WITH a byte order mark: makensis on Windows reads a script without one
; in the machine's ANSI code page, and the Spanish texts would come out garbled.
Unicode true
ManifestDPIAware true
ManifestSupportedOS all
RequestExecutionLevel admin
SetCompressor /SOLID lzma
SetCompressorDictSize 64
; Deterministic output: no file dates are stored in the installer (installed files get
; the install time), so two compilations of the same bundle are byte for byte equal.
SetDateSave off
CRCCheck on

!ifndef VERSION
  !error "VERSION is not defined: compile with -DVERSION=1.2.3 (tools/package_desk.py)"
!endif
!ifndef PRODUCT_VERSION
  !error "PRODUCT_VERSION is not defined: -DPRODUCT_VERSION=1.2.3.0 (four numbers)"
!endif
!ifndef BUNDLE
  !error "BUNDLE is not defined: -DBUNDLE=<the PyInstaller folder admission-desk>"
!endif
!ifndef ICON
  !error "ICON is not defined: -DICON=<admission-desk.ico>"
!endif
!ifndef OUTFILE
  !define OUTFILE "AdmissionDesk-${VERSION}-setup.exe"
!endif
; the Publisher Windows shows: the company named on the code-signing certificate, from
; -DPUBLISHER or the environment variable DESK_PUBLISHER (build.ps1 -Publisher)
!ifndef PUBLISHER
  !if `$%DESK_PUBLISHER%` != `${U+24}%DESK_PUBLISHER%`
    !define PUBLISHER "$%DESK_PUBLISHER%"
  !else
    !define PUBLISHER "Admission Desk"
  !endif
!endif

!define PRODUCT "Admission Desk"
!define EXE "admission-desk.exe"
!define UNINSTALLER "Uninstall.exe"
!define LINK "${PRODUCT}.lnk"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\AdmissionDesk"
!define EXIT_DOWNGRADE_REFUSED 3
!define EXIT_NOT_64_BIT 4
!define EXIT_DESK_RUNNING 5

; Signing inside the compilation: the uninstaller is written by the installer at install
; time, so it can only be signed here, before it is packed.
; (Backquotes: the command has double quotes around %1 and its paths.)
!if `$%DESK_SIGN_COMMAND%` != `${U+24}%DESK_SIGN_COMMAND%`
  !uninstfinalize `$%DESK_SIGN_COMMAND%` = 0
  !finalize `$%DESK_SIGN_COMMAND%` = 0
!endif

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"
!include "FileFunc.nsh"
!include "WordFunc.nsh"
!include "Sections.nsh"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${PRODUCT}"
BrandingText "${PRODUCT} ${VERSION}"
ShowInstDetails show
ShowUninstDetails show

Var installed_version   ; DisplayVersion of the desk already installed, or ""
Var installed_dir       ; its InstallLocation

; -- Modern UI ------------------------------------------------------------------------
!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC
; the installer language is kept for the uninstaller in the uninstall key itself, which
; the uninstaller deletes
!define MUI_LANGDLL_REGISTRY_ROOT "HKLM"
!define MUI_LANGDLL_REGISTRY_KEY "${UNINSTALL_KEY}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "InstallerLanguage"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipDirectoryOnUpgrade
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
; No "run the desk now" checkbox: the installer runs elevated, and the desk started from
; it would run as the administrator, with the administrator's data folder.
!define MUI_FINISHPAGE_TEXT "$(FINISH_TEXT)"
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!define MUI_FINISHPAGE_TITLE "$(UN_FINISH_TITLE)"
!define MUI_FINISHPAGE_TEXT "$(UN_FINISH_TEXT)"
!insertmacro MUI_UNPAGE_FINISH

; Spanish first (the counter's language), English second.
!insertmacro MUI_LANGUAGE "Spanish"
!insertmacro MUI_LANGUAGE "English"

LangString SEC_DESK ${LANG_SPANISH} "Control de admisión"
LangString SEC_DESK ${LANG_ENGLISH} "Admission desk"
LangString SEC_AUTOSTART ${LANG_SPANISH} "Arrancar al iniciar sesión"
LangString SEC_AUTOSTART ${LANG_ENGLISH} "Start at sign-in"
LangString LINK_COMMENT ${LANG_SPANISH} "Control de admisión del casino (Decreto 58/2006)"
LangString LINK_COMMENT ${LANG_ENGLISH} "Casino admission desk (Decreto 58/2006)"
LangString DOWNGRADE ${LANG_SPANISH} "DOWNGRADE_REFUSED: ya está instalada la versión $installed_version, más nueva que ${VERSION}. Una versión más nueva puede haber cambiado el esquema del fichero de visitantes: no se ha escrito nada. Desinstale primero solo si de verdad lo quiere (el fichero de visitantes se conserva)."
LangString DOWNGRADE ${LANG_ENGLISH} "DOWNGRADE_REFUSED: version $installed_version is installed, newer than ${VERSION}. A newer desk may have changed the visitor file's schema: nothing was written. Uninstall it first only if you mean to (the visitor file is kept)."
LangString NOT_64_BIT ${LANG_SPANISH} "NOT_64_BIT: el control de admisión necesita Windows de 64 bits."
LangString NOT_64_BIT ${LANG_ENGLISH} "NOT_64_BIT: the admission desk needs 64-bit Windows."
LangString DESK_RUNNING ${LANG_SPANISH} "DESK_RUNNING: el control de admisión está abierto y sus archivos no se pueden sustituir. Ciérrelo (en todas las sesiones) y pulse Reintentar."
LangString DESK_RUNNING ${LANG_ENGLISH} "DESK_RUNNING: the admission desk is open and its files cannot be replaced. Close it (in every session) and press Retry."
LangString FINISH_TEXT ${LANG_SPANISH} "El control de admisión está instalado. Ábralo desde el menú Inicio con la cuenta del mostrador (no con la del administrador): el fichero de visitantes se guarda en la carpeta de datos de esa cuenta, %LOCALAPPDATA%\admission-desk."
LangString FINISH_TEXT ${LANG_ENGLISH} "The admission desk is installed. Open it from the Start menu with the counter's account (not the administrator's): the visitor file is kept in that account's data folder, %LOCALAPPDATA%\admission-desk."
LangString UN_FINISH_TITLE ${LANG_SPANISH} "Programa desinstalado; los datos se conservan"
LangString UN_FINISH_TITLE ${LANG_ENGLISH} "Program uninstalled; the data is kept"
LangString UN_FINISH_TEXT ${LANG_SPANISH} "Se han quitado el programa, sus accesos directos y el arranque al iniciar sesión. El fichero de visitantes, sus claves, la configuración y los registros NO se han borrado: siguen en la carpeta de datos de cada usuario del mostrador, %LOCALAPPDATA%\admission-desk. Para borrarlos, hágalo a propósito siguiendo el manual (el Reglamento fija cuánto tiempo se conservan)."
LangString UN_FINISH_TEXT ${LANG_ENGLISH} "The program, its shortcuts and the start at sign-in were removed. The visitor file, its keys, the settings and the logs were NOT deleted: they stay in each counter user's data folder, %LOCALAPPDATA%\admission-desk. To erase them, do it on purpose as the manual says (the Reglamento sets how long they are kept)."

; -- version information (the file's Properties > Details) -----------------------------
VIProductVersion "${PRODUCT_VERSION}"
VIFileVersion "${PRODUCT_VERSION}"
!macro VERSION_KEYS LANG DESCRIPTION
  VIAddVersionKey /LANG=${LANG} "ProductName" "${PRODUCT}"
  VIAddVersionKey /LANG=${LANG} "CompanyName" "${PUBLISHER}"
  VIAddVersionKey /LANG=${LANG} "LegalCopyright" "${PUBLISHER}"
  VIAddVersionKey /LANG=${LANG} "FileDescription" "${DESCRIPTION}"
  VIAddVersionKey /LANG=${LANG} "FileVersion" "${VERSION}"
  VIAddVersionKey /LANG=${LANG} "ProductVersion" "${VERSION}"
  VIAddVersionKey /LANG=${LANG} "OriginalFilename" "AdmissionDesk-${VERSION}-setup.exe"
!macroend
!insertmacro VERSION_KEYS ${LANG_SPANISH} "Instalador del control de admisión ${VERSION}"
!insertmacro VERSION_KEYS ${LANG_ENGLISH} "Admission desk installer ${VERSION}"

; -- sections -----------------------------------------------------------------------------
Section "!$(SEC_DESK)" SecDesk
  SectionIn RO
  SetOutPath "$INSTDIR"

  ; An upgrade replaces the program files: the old bundle's _internal goes first, so no
  ; module of version N survives beside version N+1. The desk must be closed for that.
  ${Do}
    ClearErrors
    Delete "$INSTDIR\${EXE}"
    ${IfNot} ${Errors}
      ${Break}
    ${EndIf}
    ${If} ${Cmd} `MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION "$(DESK_RUNNING)" /SD IDCANCEL IDCANCEL`
      SetErrorLevel ${EXIT_DESK_RUNNING}
      Abort
    ${EndIf}
  ${Loop}
  RMDir /r "$INSTDIR\_internal"

  File /r "${BUNDLE}\*"
  File "/oname=admission-desk.ico" "${ICON}"
  WriteUninstaller "$INSTDIR\${UNINSTALLER}"

  CreateShortcut "$SMPROGRAMS\${LINK}" "$INSTDIR\${EXE}" "" \
    "$INSTDIR\admission-desk.ico" 0 SW_SHOWNORMAL "" "$(LINK_COMMENT)"

  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\admission-desk.ico"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKLM "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "EstimatedSize" $0
SectionEnd

; Start at sign-in: a shortcut in the COMMON Startup folder (all users), not HKCU's Run
; key. The installer runs elevated, often as an administrator who is not the counter's
; user (UAC asks for another account's password): HKCU would then be the
; administrator's hive and the desk would start for the wrong person. The common
; Startup folder is written with the installer's rights, removed by the uninstaller
; whoever runs it, and shown (and can be switched off) in Task Manager's Startup tab.
; A counter PC has the counter's account; an administrator signing in there gets the
; desk too, and can close it.
Section /o "$(SEC_AUTOSTART)" SecAutostart
  CreateShortcut "$SMSTARTUP\${LINK}" "$INSTDIR\${EXE}" "" \
    "$INSTDIR\admission-desk.ico" 0 SW_SHOWNORMAL "" "$(LINK_COMMENT)"
SectionEnd

; Unchecked on an upgrade: the start at sign-in is switched off.
Section "-AutostartOff"
  ${IfNot} ${SectionIsSelected} ${SecAutostart}
    Delete "$SMSTARTUP\${LINK}"
  ${EndIf}
SectionEnd

; -- helpers ------------------------------------------------------------------------------
; $R0 in: a version such as "1.2.3~rc1"; out: its leading numeric part "1.2.3" (what
; VersionCompare understands). A pre-release of the same numbers compares equal: a
; reinstall, not a downgrade.
Function NumericPrefix
  Push $R1
  Push $R2
  Push $R3
  StrCpy $R1 0
  ${Do}
    StrCpy $R2 $R0 1 $R1
    ${If} $R2 == ""
      ${Break}
    ${EndIf}
    ClearErrors
    ${WordFind} "0123456789." $R2 "E#" $R3 ; the error flag: $R2 is not a digit or "."
    ${If} ${Errors}
      ${Break}
    ${EndIf}
    IntOp $R1 $R1 + 1
  ${Loop}
  StrCpy $R0 $R0 $R1
  Pop $R3
  Pop $R2
  Pop $R1
FunctionEnd

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_OK|MB_ICONSTOP "$(NOT_64_BIT)" /SD IDOK
    SetErrorLevel ${EXIT_NOT_64_BIT}
    Abort
  ${EndIf}
  ; the 64-bit registry and the all-users Start menu, Startup folder and Program Files
  SetRegView 64
  SetShellVarContext all
  !insertmacro MUI_LANGDLL_DISPLAY

  ; Refuse a downgrade before anything is written.
  ReadRegStr $installed_version HKLM "${UNINSTALL_KEY}" "DisplayVersion"
  ReadRegStr $installed_dir HKLM "${UNINSTALL_KEY}" "InstallLocation"
  ${If} $installed_version != ""
    StrCpy $R0 $installed_version
    Call NumericPrefix
    StrCpy $R4 $R0
    StrCpy $R0 "${VERSION}"
    Call NumericPrefix
    ; 0: equal, 1: the installed one is newer, 2: this one is newer
    ${VersionCompare} $R4 $R0 $R5
    ${If} $R5 == 1
      MessageBox MB_OK|MB_ICONSTOP "$(DOWNGRADE)" /SD IDOK
      SetErrorLevel ${EXIT_DOWNGRADE_REFUSED}
      Abort
    ${EndIf}
    ; an upgrade (or a reinstall) goes where the installed desk is
    ${If} $installed_dir != ""
      StrCpy $INSTDIR $installed_dir
    ${EndIf}
    ; keep the start at sign-in as it was
    ${If} ${FileExists} "$SMSTARTUP\${LINK}"
      !insertmacro SelectSection ${SecAutostart}
    ${EndIf}
  ${EndIf}

  ; unattended installs: /AUTOSTART=1 or /AUTOSTART=0 chooses the start at sign-in
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/AUTOSTART=" $R1
  ${IfNot} ${Errors}
    ${If} $R1 == "1"
      !insertmacro SelectSection ${SecAutostart}
    ${Else}
      !insertmacro UnselectSection ${SecAutostart}
    ${EndIf}
  ${EndIf}
FunctionEnd

Function SkipDirectoryOnUpgrade
  ${If} $installed_version != ""
    Abort ; on a page's pre function: skip the page, the installed folder is kept
  ${EndIf}
FunctionEnd

; -- the uninstaller ----------------------------------------------------------------------
Function un.onInit
  SetRegView 64
  SetShellVarContext all
  !insertmacro MUI_UNGETLANGUAGE
FunctionEnd

; Removes what the installer wrote, by name, and nothing else: never $LOCALAPPDATA (the
; visitor file), never a folder it did not create (RMDir without /r on $INSTDIR: it
; stays if someone put a file of their own there).
Section "Uninstall"
  Delete "$SMSTARTUP\${LINK}"
  Delete "$SMPROGRAMS\${LINK}"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\admission-desk.png"
  Delete "$INSTDIR\admission-desk.ico"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINSTALL_KEY}"
SectionEnd
