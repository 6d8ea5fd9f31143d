<#
.SYNOPSIS
    Builds AdmissionDesk-<version>-setup.exe on a Windows machine or a Windows CI runner.

.DESCRIPTION
    The same recipe as the Linux .deb (tools/package_desk.py): this script checks what the
    build needs, then runs `py -3.11 tools/bootstrap.py package`, which on Windows
      - installs nothing system-wide (bootstrap.py's system_packages() runs
        scripts/system-packages.sh only on Linux),
      - creates the build's own environment .venv-package and installs
        packaging/requirements-lock.txt into it with pip --require-hashes (build_venv),
      - freezes the desk with PyInstaller --onedir into build\package\dist\admission-desk,
      - and compiles packaging\windows\admission-desk.nsi with makensis into
        dist\AdmissionDesk-<version>-setup.exe.
    With -CertificateThumbprint or -PfxPath it signs the uninstaller and the installer
    with signtool while makensis compiles them (SHA-256, RFC 3161 timestamp), then
    verifies the signature. It prints the SHA-256 of the result and writes it beside it.

    Needs: 64-bit Windows 10/11, Python 3.11 (64-bit, from python.org, with the `py`
    launcher), NSIS 3.08 or newer, git (to record the source commit); for signing, the
    Windows SDK's signtool.exe.

.PARAMETER Version
    The package's version (default: pyproject.toml's).
.PARAMETER Out
    Where the setup goes (default: dist in the repository).
.PARAMETER CertificateThumbprint
    SHA-1 thumbprint of a code-signing certificate in the Windows certificate store
    (Cert:\CurrentUser\My, or Cert:\LocalMachine\My with -MachineStore); the key may be
    on a hardware token (EV certificates).
.PARAMETER PfxPath
    A .pfx file with the code-signing certificate and its key, instead of a thumbprint.
.PARAMETER PfxPasswordVariable
    The NAME of the environment variable that holds the .pfx's password (default
    DESK_PFX_PASSWORD): the password itself is never a parameter, so it stays out of the
    shell's history and of CI logs.
.PARAMETER Publisher
    The Publisher shown in Settings > Apps and the file's properties: the company named on
    the code-signing certificate (default "Admission Desk").
.PARAMETER PythonExe
    A python.exe to build with instead of `py -3.11` (a CI runner's Python from
    actions/setup-python need not be registered with the launcher). It must be
    Python 3.11, 64-bit.
.PARAMETER TimestampUrl
    An RFC 3161 time-stamping service (default: DigiCert's). The timestamp keeps the
    signature valid after the certificate expires.

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
.EXAMPLE
    $env:DESK_PFX_PASSWORD = '...'; .\packaging\windows\build.ps1 -PfxPath C:\keys\vendor.pfx
.EXAMPLE
    .\packaging\windows\build.ps1 -CertificateThumbprint 0123456789ABCDEF0123456789ABCDEF01234567
#>
[CmdletBinding(DefaultParameterSetName = "Unsigned")]
param(
    [string] $Version = "",
    [string] $Out = "",
    [Parameter(ParameterSetName = "Thumbprint", Mandatory = $true)]
    [string] $CertificateThumbprint,
    [Parameter(ParameterSetName = "Thumbprint")]
    [switch] $MachineStore,
    [Parameter(ParameterSetName = "Pfx", Mandatory = $true)]
    [string] $PfxPath,
    [Parameter(ParameterSetName = "Pfx")]
    [string] $PfxPasswordVariable = "DESK_PFX_PASSWORD",
    [string] $TimestampUrl = "http://timestamp.digicert.com",
    [string] $PythonVersion = "3.11",
    [string] $PythonExe = "",
    [string] $Publisher = ""
)

Set-StrictMode -Version Latest
$ErrorActionPreference = "Stop"

$Root = (Resolve-Path (Join-Path $PSScriptRoot "..\..")).Path
$SetupName = "AdmissionDesk"  # tools/package_desk.py's WINDOWS_NAME
$SignVariable = "DESK_SIGN_COMMAND"  # read by admission-desk.nsi (!finalize)

function Stop-Build([string] $Message) {
    [Console]::Error.WriteLine("build: $Message")
    exit 1
}

function Step([string] $Message) {
    Write-Host "build: $Message"
}

# -- prerequisites -----------------------------------------------------------------------
if ($env:OS -ne "Windows_NT") {
    Stop-Build "this script builds the Windows installer and runs on Windows only"
}
if (-not [Environment]::Is64BitOperatingSystem) {
    Stop-Build "the desk is built for 64-bit Windows (win_amd64 wheels)"
}

if ($PythonExe) {
    $python = (Resolve-Path $PythonExe).Path
    $pythonArgs = @()
} else {
    if (-not (Get-Command py -ErrorAction SilentlyContinue)) {
        Stop-Build ("the Python launcher 'py' is missing: install Python $PythonVersion (64-bit) " +
            "from python.org with 'py launcher' ticked, or pass -PythonExe")
    }
    $python = "py"
    $pythonArgs = @("-$PythonVersion")
}
# Windows PowerShell 5.1 turns a native program's redirected stderr into an error, which
# "Stop" would make fatal: the launcher's own message is replaced by ours
$ErrorActionPreference = "Continue"
$pythonInfo = & $python @pythonArgs -c "import struct, sys; print(struct.calcsize('P') * 8, sys.version.split()[0])" 2>$null
$ErrorActionPreference = "Stop"
if ($LASTEXITCODE -ne 0 -or -not $pythonInfo) {
    Stop-Build "Python $PythonVersion is not installed (py -0p lists what is)"
}
$bits, $pythonFull = "$pythonInfo".Trim().Split(" ")
if (-not "$pythonFull".StartsWith("$PythonVersion.")) {
    Stop-Build "$python is Python $pythonFull, the lock is for Python $PythonVersion"
}
if ($bits -ne "64") {
    Stop-Build "Python $pythonFull is 32-bit: the lock pins win_amd64 wheels, install the 64-bit one"
}
Step "Python $pythonFull (64-bit)"

if (-not (Get-Command makensis -ErrorAction SilentlyContinue)) {
    foreach ($folder in @("${env:ProgramFiles(x86)}\NSIS", "$env:ProgramFiles\NSIS")) {
        if (Test-Path (Join-Path $folder "makensis.exe")) {
            # tools/package_desk.py finds makensis on the PATH
            $env:PATH = "$folder;$env:PATH"
            break
        }
    }
}
if (-not (Get-Command makensis -ErrorAction SilentlyContinue)) {
    Stop-Build "NSIS is not installed: https://nsis.sourceforge.io (3.08 or newer), or 'winget install NSIS.NSIS'"
}
$nsisVersion = (& makensis /VERSION | Out-String).Trim()
if ($nsisVersion -notmatch '^v(\d+)\.(\d+)' -or [int]$Matches[1] -lt 3 -or
    ([int]$Matches[1] -eq 3 -and [int]$Matches[2] -lt 8)) {
    Stop-Build "NSIS $nsisVersion is too old: the script needs NSIS 3.08 or newer (!uninstfinalize)"
}
Step "NSIS $nsisVersion"

if (-not (Get-Command git -ErrorAction SilentlyContinue)) {
    Write-Warning ("git is not on the PATH: the bundle's build_info.json will not name the " +
        "source commit, and the build's dates fall back to SOURCE_DATE_EPOCH or 1970")
}

if (-not $Version) {
    $pyproject = Get-Content -Raw -Encoding UTF8 (Join-Path $Root "pyproject.toml")
    if ($pyproject -notmatch '(?m)^version\s*=\s*"([^"]+)"') {
        Stop-Build "pyproject.toml has no version; pass -Version"
    }
    $Version = $Matches[1]
}
if (-not $Out) {
    $Out = Join-Path $Root "dist"
}
$Out = [IO.Path]::GetFullPath($Out)

# -- signing: signtool, run by makensis on the uninstaller and on the installer ---------------
$signing = $PSCmdlet.ParameterSetName -ne "Unsigned"
$signtool = $null
if ($signing) {
    $found = Get-Command signtool -ErrorAction SilentlyContinue
    if ($found) {
        $signtool = $found.Source
    } else {
        $kits = Join-Path ${env:ProgramFiles(x86)} "Windows Kits\10\bin"
        $signtool = Get-ChildItem -Path $kits -Filter signtool.exe -Recurse -ErrorAction SilentlyContinue |
            Where-Object { $_.FullName -match '\\x64\\' } |
            Sort-Object FullName -Descending | Select-Object -First 1 -ExpandProperty FullName
    }
    if (-not $signtool) {
        Stop-Build "signtool.exe is missing: install the Windows SDK's 'Signing Tools for Desktop Apps'"
    }
    $sign = "`"$signtool`" sign /fd sha256 /tr `"$TimestampUrl`" /td sha256 /d `"Admission Desk`""
    if ($PSCmdlet.ParameterSetName -eq "Thumbprint") {
        $sign += " /sha1 $CertificateThumbprint"
        if ($MachineStore) { $sign += " /sm" }
    } else {
        $PfxPath = (Resolve-Path $PfxPath).Path
        if (-not [Environment]::GetEnvironmentVariable($PfxPasswordVariable)) {
            Stop-Build "the environment variable $PfxPasswordVariable (the .pfx's password) is empty"
        }
        # %NAME% is expanded by cmd.exe when makensis runs the command, so the password is
        # never written in the script, the command or makensis's output
        $sign += " /f `"$PfxPath`" /p `"%$PfxPasswordVariable%`""
    }
    # makensis replaces %1 with the file it has just written
    Set-Item -Path "Env:$SignVariable" -Value "$sign `"%1`""
    Step "signing with $signtool ($($PSCmdlet.ParameterSetName)), timestamp $TimestampUrl"
} elseif (Test-Path "Env:$SignVariable") {
    Remove-Item "Env:$SignVariable"  # an unsigned build is unsigned, whatever the shell had
}

if ($Publisher) {
    $env:DESK_PUBLISHER = $Publisher  # read by admission-desk.nsi
}

# -- the build ---------------------------------------------------------------------------------
Push-Location $Root
try {
    Step "$python $pythonArgs tools/bootstrap.py package --version $Version --out $Out"
    & $python @pythonArgs tools/bootstrap.py package --version $Version --out $Out
    if ($LASTEXITCODE -ne 0) {
        Stop-Build "tools/bootstrap.py package failed (exit $LASTEXITCODE)"
    }
} finally {
    Pop-Location
    if ($signing) { Remove-Item "Env:$SignVariable" -ErrorAction SilentlyContinue }
}

$setup = Join-Path $Out "$SetupName-$Version-setup.exe"
if (-not (Test-Path $setup)) {
    Stop-Build "the build said it succeeded but $setup is missing"
}

if ($signing) {
    & $signtool verify /pa /all $setup
    if ($LASTEXITCODE -ne 0) {
        Stop-Build "signtool verify refused $setup (exit $LASTEXITCODE)"
    }
    $signature = Get-AuthenticodeSignature $setup
    Step "signature: $($signature.Status), $($signature.SignerCertificate.Subject)"
}

$hash = (Get-FileHash -Algorithm SHA256 $setup).Hash.ToLowerInvariant()
# sha256sum's format, so that `sha256sum -c` checks it on Linux too
Set-Content -Path "$setup.sha256" -Value "$hash  $(Split-Path -Leaf $setup)" -Encoding ASCII
Step "$setup"
Step "SHA-256 $hash"
