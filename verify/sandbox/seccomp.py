"""The seccomp filter of a bubblewrap run: a classic BPF program refusing new user namespaces and a
few kernel interfaces no training run needs."""

from __future__ import annotations

import platform
import struct

from .base import SandboxUnavailable

# Syscall numbers per architecture (AUDIT_ARCH value, numbers).
CLONE_NEWUSER = 0x10000000
SECCOMP_ARCHES = {
    "x86_64": (0xC000003E, {
        "unshare": 272, "clone": 56, "clone3": 435, "setns": 308, "keyctl": 250, "add_key": 248, "request_key": 249,
        "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "kexec_load": 246, "kexec_file_load": 320,
        "open_by_handle_at": 304, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    }),
    "aarch64": (0xC00000B7, {
        "unshare": 97, "clone": 220, "clone3": 435, "setns": 268, "keyctl": 219, "add_key": 217, "request_key": 218,
        "bpf": 280, "userfaultfd": 282, "perf_event_open": 241, "kexec_load": 104, "kexec_file_load": 294,
        "open_by_handle_at": 265, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    }),
}
# Refused outright (EPERM): kernel interfaces no training run needs and that are frequent ways into
# the kernel (keyrings are not namespaced; eBPF, userfaultfd, io_uring; modules; kexec).
SECCOMP_REFUSED = ("setns", "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open", "kexec_load",
                   "kexec_file_load", "open_by_handle_at", "init_module", "finit_module", "delete_module",
                   "io_uring_setup", "io_uring_enter", "io_uring_register")
X32_SYSCALL_BIT = 0x40000000


def seccomp_filter(machine: str | None = None) -> bytes:
    """A classic BPF seccomp program (what bwrap --seccomp reads): unshare and clone with
    CLONE_NEWUSER fail with EPERM, clone3 with ENOSYS (its flags are behind a pointer; the C library
    then falls back to clone), SECCOMP_REFUSED with EPERM, any other architecture's calling
    convention is refused; everything else is allowed."""
    machine = machine or platform.machine()
    if machine not in SECCOMP_ARCHES:
        raise SandboxUnavailable(f"no seccomp filter for the {machine} architecture (only {', '.join(SECCOMP_ARCHES)})")
    arch, numbers = SECCOMP_ARCHES[machine]
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    tests = [(jeq, numbers["unshare"], "flags"), (jeq, numbers["clone"], "flags"), (jeq, numbers["clone3"], "enosys")]
    tests += [(jeq, numbers[name], "eperm") for name in SECCOMP_REFUSED]
    if machine == "x86_64":
        tests.insert(0, (jge, X32_SYSCALL_BIT, "eperm"))  # x32 calls reach the same numbers with this bit set
    # Jumps go forward only: the tests, then "allow", then the flags check, then the refusals.
    at_allow = 4 + len(tests)
    where = {"flags": at_allow + 1, "eperm": at_allow + 3, "enosys": at_allow + 5}
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, eperm), (load, 0, 0, 0)]  # arch, then syscall nr
    for test, value, target in tests:
        program.append((test, where[target] - len(program) - 1, 0, value))
    program += [
        (ret, 0, 0, allow),
        (load, 0, 0, 16),  # the low half of args[0]: the flags of unshare and clone
        (jset, 0, 1, CLONE_NEWUSER),
        (ret, 0, 0, eperm),
        (ret, 0, 0, allow),
        (ret, 0, 0, enosys),
    ]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in program)

