// tpm2-tss's ESAPI, TCTI loader, response-code decoder and marshalling, for WidgetTPM.
//
// The headers define most constants as casts (`((TPMA_OBJECT) 0x2)`), which Swift does
// not import; the ones WidgetTPM needs are restated here as typed constants, so their
// values still come from the headers.
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <dirent.h>
#include <stdlib.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

static const ESYS_TR ctpm2_tr_none = ESYS_TR_NONE;
static const ESYS_TR ctpm2_tr_password = ESYS_TR_PASSWORD;
static const ESYS_TR ctpm2_tr_owner = ESYS_TR_RH_OWNER;
static const ESYS_TR ctpm2_tr_lockout = ESYS_TR_RH_LOCKOUT;
static const ESYS_TR ctpm2_tr_platform = ESYS_TR_RH_PLATFORM;

static const TPM2_ALG_ID ctpm2_alg_ecc = TPM2_ALG_ECC;
static const TPM2_ALG_ID ctpm2_alg_keyedhash = TPM2_ALG_KEYEDHASH;
static const TPM2_ALG_ID ctpm2_alg_sha256 = TPM2_ALG_SHA256;
static const TPM2_ALG_ID ctpm2_alg_aes = TPM2_ALG_AES;
static const TPM2_ALG_ID ctpm2_alg_cfb = TPM2_ALG_CFB;
static const TPM2_ALG_ID ctpm2_alg_null = TPM2_ALG_NULL;
static const TPM2_ECC_CURVE ctpm2_ecc_nist_p256 = TPM2_ECC_NIST_P256;

static const TPMA_OBJECT ctpm2_object_fixedtpm = TPMA_OBJECT_FIXEDTPM;
static const TPMA_OBJECT ctpm2_object_fixedparent = TPMA_OBJECT_FIXEDPARENT;
static const TPMA_OBJECT ctpm2_object_sensitivedataorigin = TPMA_OBJECT_SENSITIVEDATAORIGIN;
static const TPMA_OBJECT ctpm2_object_userwithauth = TPMA_OBJECT_USERWITHAUTH;
static const TPMA_OBJECT ctpm2_object_noda = TPMA_OBJECT_NODA;
static const TPMA_OBJECT ctpm2_object_restricted = TPMA_OBJECT_RESTRICTED;
static const TPMA_OBJECT ctpm2_object_decrypt = TPMA_OBJECT_DECRYPT;

static const TPMA_NV ctpm2_nv_ownerwrite = TPMA_NV_OWNERWRITE;
static const TPMA_NV ctpm2_nv_ownerread = TPMA_NV_OWNERREAD;
static const TPMA_NV ctpm2_nv_authwrite = TPMA_NV_AUTHWRITE;
static const TPMA_NV ctpm2_nv_authread = TPMA_NV_AUTHREAD;
static const TPMA_NV ctpm2_nv_no_da = TPMA_NV_NO_DA;
static const TPMA_NV ctpm2_nv_type_counter = TPM2_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT;
static const TPMA_NV ctpm2_nv_policy_delete = TPMA_NV_POLICY_DELETE;
static const TPMA_NV ctpm2_nv_platformcreate = TPMA_NV_PLATFORMCREATE;

static const TPMA_SESSION ctpm2_session_continue = TPMA_SESSION_CONTINUESESSION;
static const TPMA_SESSION ctpm2_session_decrypt = TPMA_SESSION_DECRYPT;
static const TPMA_SESSION ctpm2_session_encrypt = TPMA_SESSION_ENCRYPT;
static const TPM2_SE ctpm2_session_hmac = TPM2_SE_HMAC;

static const TPM2_SU ctpm2_startup_clear = TPM2_SU_CLEAR;
static const TPM2_CAP ctpm2_cap_tpm_properties = TPM2_CAP_TPM_PROPERTIES;
static const TPM2_CAP ctpm2_cap_handles = TPM2_CAP_HANDLES;
static const TPM2_HC ctpm2_hr_nv_index = TPM2_HR_NV_INDEX;
static const TPM2_PT ctpm2_pt_permanent = TPM2_PT_PERMANENT;
static const TPM2_PT ctpm2_pt_lockout_counter = TPM2_PT_LOCKOUT_COUNTER;
static const TPMA_PERMANENT ctpm2_permanent_inlockout = TPMA_PERMANENT_INLOCKOUT;

// Zeroes a buffer in a way the compiler may not drop (TPM2B structures that held a
// secret, and the buffers ESAPI returned it in, before they are freed).
static inline void ctpm2_zero(void *pointer, size_t count) { explicit_bzero(pointer, count); }

// Shuts down (both ways) every socket of this process connected to the Unix socket
// `path`: what wakes tpm2-tss's swtpm/mssim TCTI from a wait for an answer, which polls
// without a timeout, on a connection it opens per command. Returns how many.
static inline int ctpm2_shutdown_sockets_to(const char *path) {
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        struct stat status;
        if (fd == dirfd(directory) || fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) continue;
        struct sockaddr_un peer;
        socklen_t length = sizeof peer;
        memset(&peer, 0, sizeof peer);
        if (getpeername(fd, (struct sockaddr *)&peer, &length) != 0 || peer.sun_family != AF_UNIX) continue;
        if (strncmp(peer.sun_path, path, sizeof peer.sun_path) != 0) continue;
        if (shutdown(fd, SHUT_RDWR) == 0) count++;
    }
    closedir(directory);
    return count;
}
