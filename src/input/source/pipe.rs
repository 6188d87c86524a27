//! A pipe read as a stream, widened first: with the kernel's default of
//! 64 KiB the writer (`cat FILE | nimstream analyze -`) and this reader
//! wake each other every 64 KiB, and on an idle machine those wake-ups
//! cost more than the copy (`bench/stdin.sh`).

use std::os::fd::AsRawFd;

/// The pipe size asked for: 1 MiB, the most an unprivileged process may
/// ask for by default (`/proc/sys/fs/pipe-max-size`), and the one pass's
/// read size.
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Widens the pipe behind `stream` to [`PIPE_BYTES`] where it is a pipe
/// on Linux; anything else, or a refusal, leaves it as it is (the size
/// changes only how often the two ends wake each other).
pub(crate) fn widen(stream: &impl AsRawFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: F_SETPIPE_SZ takes an int and touches no memory of ours;
    // on a descriptor that is not a pipe it fails with EBADF, which is
    // ignored, as is any other refusal.
    unsafe {
        libc::fcntl(stream.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stream;
}
