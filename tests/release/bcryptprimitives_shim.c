/* TEST ONLY — never shipped. Debian's wine 8 has no bcryptprimitives.dll, whose ProcessPrng
 * Rust's std calls on Windows for random bytes (HashMap keys, the bridge's token), so every
 * Rust .exe stops at start with STATUS_DLL_NOT_FOUND (c0000135) under it. Windows 10 and
 * newer have the DLL. tests/release/smoke.sh builds this stand-in with mingw and puts it
 * beside the .exe in its temporary directory only: ProcessPrng over RtlGenRandom
 * (SystemFunction036 in advapi32), which wine does provide. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a ULONG; ask in pieces no larger than that. */
    while (length > 0) {
        ULONG piece = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, piece))
            return FALSE;
        data += piece;
        length -= piece;
    }
    return TRUE;
}
