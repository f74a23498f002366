#!/usr/bin/python3
"""The device key as a TPM2-sealed credential: the unit's commented
LoadCredentialEncrypted=device-key line, with a credential made as widgetd(8) says
(systemd-creds encrypt --with-key=host+tpm2) from the daemon's own key. With
STATE/device.key moved away, the daemon opens its data (unlock, content) only if
systemd unsealed the right key into $CREDENTIALS_DIRECTORY/device-key. Skipped, and
said so, without swtpm on the host."""
import os
import shutil
import subprocess
import sys

from container import PASSCODE, SECRET, STATE, SYSTEM_DROPINS, expect_equal, fail, log, passed, run

TCTI = "swtpm:path=/run/swtpm/sock"
CREDENTIAL = "/etc/credstore.encrypted/widgetd.device-key"


def flush_tpm(swtpm):
    """Without a resource manager every process that leaves a TPM session or object
    loaded keeps its slot (PID 1 leaks one per decrypt, systemd 252): flushed from the
    host after each use, so that repeated runs and activations cannot run out."""
    if not shutil.which("tpm2_flushcontext"):
        return
    environment = dict(os.environ, TPM2TOOLS_TCTI=f"swtpm:path={swtpm}/sock")
    for kind in ("-t", "-s"):
        subprocess.run(["tpm2_flushcontext", kind], env=environment, capture_output=True)


def tpm2_credential(c):
    if not c.swtpm:
        log("skipped: the TPM2-sealed credential (swtpm is not installed: apt-get install swtpm libtss2-dev)")
        return
    with c.installed():
        try:
            c.with_content()
            c.run("systemctl", "stop", "widgetd.service")
            c.inside("install", "-d", "-m", "0700", os.path.dirname(CREDENTIAL))
            c.inside("env", f"SYSTEMD_TPM2_DEVICE={TCTI}", "systemd-creds", "encrypt", "--with-key=host+tpm2",
                     "--name=device-key", f"{STATE}/device.key", CREDENTIAL,
                     what="systemd-creds encrypt --with-key=host+tpm2")
            flush_tpm(c.swtpm)
            # Bound to the TPM: without it the credential does not decrypt.
            if c.succeeds("systemd-creds", "decrypt", "--name=device-key", CREDENTIAL, "-"):
                fail("the host+tpm2 credential decrypted without the TPM")
            c.inside("mv", f"{STATE}/device.key", "/root/device.key.aside")
            c.inside("mkdir", "-p", SYSTEM_DROPINS)
            c.write(f"{SYSTEM_DROPINS}/60-test-credential.conf", f"[Service]\nLoadCredentialEncrypted=device-key:{CREDENTIAL}\n")
            c.inside("systemctl", "daemon-reload")
            c.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
            flush_tpm(c.swtpm)
            presentation = c.presentation()
            expect_equal("presentation with the credential's key",
                         (presentation["mode"], presentation["entry"]["fields"]["count"]["value"]), ("content", SECRET))
            if c.succeeds("test", "-e", f"{STATE}/device.key"):
                fail("the daemon made STATE/device.key although the credential holds the key")
            passed("LoadCredentialEncrypted=device-key from systemd-creds --with-key=host+tpm2 (swtpm): the daemon "
                   "opened its data with STATE/device.key gone; no decrypt without the TPM")
        finally:
            flush_tpm(c.swtpm)


sys.exit(run(tpm2_credential))
