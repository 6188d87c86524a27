//! Files that change under the reader: a [`Stamp`] of size and
//! modification time taken at open and checked between passes, and a
//! SIGBUS handler that turns a fault in a truncated memory map into an
//! `error:` line naming the file.
//!
//! A mapped file that another process truncates makes every read of the
//! lost pages raise SIGBUS, which would otherwise kill the process without
//! a word. While a [`MapGuard`] lives, a fault inside its map writes a
//! preformatted message to standard error, removes partial outputs and
//! exits with status 1. Faults anywhere else go to the handler that was
//! installed before. A change that keeps the size (bytes rewritten in
//! place) is caught by the modification time when the pass ends.

use crate::error::Error;
use std::fs::File;
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::SystemTime;

/// An open regular file with the size and modification time it had when
/// it was opened.
pub struct Stamp {
    file: File,
    name: String,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// Records the size and modification time of `file`, named `name` in
    /// errors.
    pub fn take(file: File, name: &str) -> Result<Stamp, Error> {
        let metadata = file.metadata().map_err(|e| Error::io(name, e))?;
        Ok(Stamp {
            file,
            name: name.to_string(),
            len: metadata.len(),
            modified: metadata.modified().ok(),
        })
    }

    /// The file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The file's name as the user gave it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The size the file had when it was opened.
    pub fn len_at_open(&self) -> u64 {
        self.len
    }

    /// Fails when the file's size or modification time differs from the
    /// stamp: whatever was read may mix old and new bytes.
    pub fn check(&self) -> Result<(), Error> {
        let metadata = self.file.metadata().map_err(|e| Error::io(&self.name, e))?;
        let detail = if metadata.len() != self.len {
            format!("it was {} bytes, now {}", self.len, metadata.len())
        } else if metadata.modified().ok() != self.modified {
            "its modification time moved".to_string()
        } else {
            return Ok(());
        };
        Err(changed(&self.name, &detail))
    }
}

/// The error for a file that changed while it was being read.
pub fn changed(name: &str, detail: &str) -> Error {
    Error::io(
        name,
        io::Error::other(format!(
            "changed while being read ({detail}); the analysis is void, run it again on a stable file"
        )),
    )
}

/// One mapped range whose faults are reported as a change of its file.
struct Watched {
    claimed: AtomicBool,
    active: AtomicBool,
    start: AtomicUsize,
    end: AtomicUsize,
    message: AtomicPtr<u8>,
    message_len: AtomicUsize,
}

impl Watched {
    const fn new() -> Watched {
        Watched {
            claimed: AtomicBool::new(false),
            active: AtomicBool::new(false),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            message: AtomicPtr::new(ptr::null_mut()),
            message_len: AtomicUsize::new(0),
        }
    }
}

/// How many maps can be guarded at once. A file opened while every slot
/// is taken (more than 16 analyses at once in one process) is not mapped,
/// but read with plain reads, where a truncation is an ordinary error.
pub(super) const WATCHED_MAPS: usize = 16;

static WATCHED: [Watched; WATCHED_MAPS] = [const { Watched::new() }; WATCHED_MAPS];

/// The SIGBUS disposition before ours, restored for faults that are not ours.
static PREVIOUS_SIGBUS: OnceLock<libc::sigaction> = OnceLock::new();

/// While alive, a SIGBUS inside the guarded bytes prints an `error:` line
/// naming the file and exits with status 1.
pub struct MapGuard {
    slot: &'static Watched,
    /// Owns the bytes the handler writes; freed after the slot is released.
    _message: Box<[u8]>,
}

impl MapGuard {
    /// Guards `bytes` (a memory map of the file named `name`); `None` when
    /// every slot is taken (the file is then not to be read through its
    /// map).
    pub fn new(bytes: &[u8], name: &str) -> Option<MapGuard> {
        install_sigbus_handler();
        let slot = WATCHED.iter().find(|w| {
            w.claimed
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        let mut message = format!(
            "error: {name}: changed while being read (the file shrank while it was \
             memory-mapped); the analysis is void, run it again on a stable file\n"
        )
        .into_bytes()
        .into_boxed_slice();
        let start = bytes.as_ptr() as usize;
        slot.start.store(start, Ordering::Relaxed);
        slot.end.store(start + bytes.len(), Ordering::Relaxed);
        slot.message.store(message.as_mut_ptr(), Ordering::Relaxed);
        slot.message_len.store(message.len(), Ordering::Relaxed);
        slot.active.store(true, Ordering::Release);
        Some(MapGuard {
            slot,
            _message: message,
        })
    }
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        self.slot.active.store(false, Ordering::Release);
        self.slot.claimed.store(false, Ordering::Release);
    }
}

/// Installs the SIGBUS handler, once per process.
fn install_sigbus_handler() {
    PREVIOUS_SIGBUS.get_or_init(|| {
        // SAFETY: `sigaction` is called with a zero-initialised, fully set
        // action whose handler is an `extern "C"` function with the
        // SA_SIGINFO signature, and a valid out-pointer for the previous
        // action. Both structs are plain data.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGBUS, &action, &mut previous);
            previous
        }
    });
}

/// The SIGBUS handler. Only async-signal-safe calls: atomic loads,
/// `write`, `unlink` (in the output clean-up), `sigaction` and `_exit`.
extern "C" fn on_sigbus(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler;
    // for SIGBUS `si_addr` is the faulting address.
    let address = unsafe { (*info).si_addr() } as usize;
    for w in &WATCHED {
        let ours = w.active.load(Ordering::Acquire)
            && (w.start.load(Ordering::Relaxed)..w.end.load(Ordering::Relaxed)).contains(&address);
        if ours {
            let message = w.message.load(Ordering::Relaxed);
            let len = w.message_len.load(Ordering::Relaxed);
            // SAFETY: an active slot's message points to `len` bytes owned
            // by a live MapGuard (the guard outlives every read of its
            // map, and this fault is such a read). `write` and `_exit`
            // are async-signal-safe.
            unsafe {
                libc::write(2, message.cast(), len);
            }
            crate::output::remove_partial_outputs();
            // SAFETY: `_exit` is async-signal-safe and never returns.
            unsafe { libc::_exit(1) }
        }
    }
    if let Some(previous) = PREVIOUS_SIGBUS.get() {
        // SAFETY: restores the disposition saved at installation; when
        // this handler returns the faulting access runs again and meets
        // the previous handler (by default: death by SIGBUS).
        unsafe {
            libc::sigaction(libc::SIGBUS, previous, ptr::null_mut());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Mutex, MutexGuard};

    /// Held by the tests that take every guard slot and by those that need
    /// a file mapped, so that the first do not leave the others without a
    /// map.
    pub(crate) fn hold_slot_tests() -> MutexGuard<'static, ()> {
        static SLOT_TESTS: Mutex<()> = Mutex::new(());
        SLOT_TESTS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[test]
    fn a_stamp_sees_a_file_grow_or_shrink() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"101\n").unwrap();
        let stamp = Stamp::take(File::open(file.path()).unwrap(), "x.bits").unwrap();
        assert_eq!(stamp.len_at_open(), 4);
        stamp.check().unwrap();
        file.write_all(b"1\n").unwrap();
        let error = stamp.check().unwrap_err().to_string();
        assert!(error.starts_with("x.bits: changed while being read (it was 4 bytes, now 6)"));
    }

    #[test]
    fn guards_release_their_slots() {
        let _slots = hold_slot_tests();
        let bytes = vec![0u8; 10];
        let guards: Vec<Option<MapGuard>> = (0..WATCHED_MAPS + 2)
            .map(|_| MapGuard::new(&bytes, "x"))
            .collect();
        // Other tests may hold slots too.
        assert!(guards.iter().filter(|g| g.is_none()).count() >= 2);
        drop(guards);
        assert!(MapGuard::new(&bytes, "x").is_some());
    }
}
