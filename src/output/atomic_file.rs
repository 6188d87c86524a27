//! Output files that appear whole or not at all: bytes go to a temporary
//! file in the destination's folder, renamed over the destination only when
//! complete. An error leaves no partial file behind, and neither does an
//! interrupt once [`remove_partial_outputs_on_interrupt`] has installed its
//! signal handler (the binary does, first thing).
//!
//! Files appear with the permissions of a plain create: 0666 less the
//! umask.

use crate::error::Error;
use std::ffi::{c_char, CString};
use std::fs::Permissions;
use std::io::{self, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;
use tempfile::NamedTempFile;

/// Buffer size of output files: small, so it barely counts as working memory.
const BUFFER_BYTES: usize = 4096;

/// A file being written, invisible under its name until [`AtomicFile::commit`].
///
/// ```
/// use nimstream::output::AtomicFile;
/// use std::io::Write;
///
/// let folder = tempfile::tempdir()?;
/// let path = folder.path().join("three-four-five.dec");
/// let mut file = AtomicFile::create(&path)?;
/// file.write_all(b"3 4 5\n")?;
/// assert!(!path.exists());
/// file.commit()?;
/// assert_eq!(std::fs::read(&path)?, b"3 4 5\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AtomicFile {
    writer: BufWriter<NamedTempFile>,
    path: PathBuf,
    /// Unlinks the temporary file if a signal ends the process first.
    _pending: Option<Pending>,
}

impl AtomicFile {
    /// Starts a file that will be named `path`.
    pub fn create(path: &Path) -> Result<AtomicFile, Error> {
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".nimstream-")
            .suffix(".part")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(folder)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        let pending = Pending::register(temp.path());
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(BUFFER_BYTES, temp),
            path: path.to_path_buf(),
            _pending: pending,
        })
    }

    /// Flushes and renames the file into place.
    pub fn commit(self) -> Result<(), Error> {
        let name = self.path.display().to_string();
        let temp = self
            .writer
            .into_inner()
            .map_err(|e| Error::io(&name, e.into_error()))?;
        temp.persist(&self.path)
            .map_err(|e| Error::io(&name, e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// How many temporary files can be pending at once for the signal
/// handler; one beyond that is still removed on error, only not on a signal.
const PENDING_SLOTS: usize = 16;

/// Paths of the temporary files being written, as C strings the signal
/// handler can unlink. A slot is null when free.
static PENDING: [AtomicPtr<c_char>; PENDING_SLOTS] =
    [const { AtomicPtr::new(ptr::null_mut()) }; PENDING_SLOTS];

/// A temporary file's place in [`PENDING`], given back on drop.
struct Pending {
    slot: &'static AtomicPtr<c_char>,
    path: *mut c_char,
}

// SAFETY: `path` is an owned C string (from `CString::into_raw`) that only
// this value frees; moving it to another thread moves that ownership.
unsafe impl Send for Pending {}

// SAFETY: `Pending` has no method that touches `path` through `&self`.
unsafe impl Sync for Pending {}

impl Pending {
    /// Registers `path` for removal on a signal, if a slot is free.
    fn register(path: &Path) -> Option<Pending> {
        let raw = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
        for slot in &PENDING {
            if slot
                .compare_exchange(ptr::null_mut(), raw, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Some(Pending { slot, path: raw });
            }
        }
        // SAFETY: `raw` came from `CString::into_raw` just above and was
        // not published anywhere.
        drop(unsafe { CString::from_raw(raw) });
        None
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let released = self
            .slot
            .compare_exchange(
                self.path,
                ptr::null_mut(),
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok();
        if released {
            // SAFETY: the slot held our pointer and now holds null, so no
            // signal handler can load it any more; it came from
            // `CString::into_raw` and is freed once, here.
            drop(unsafe { CString::from_raw(self.path) });
        }
        // Otherwise a signal handler took the path and the process is
        // ending: the string is left to it.
    }
}

/// Unlinks every temporary output file still being written. Async-signal-
/// safe (atomic swaps and `unlink`), for signal handlers; after it, no
/// output can be committed.
pub(crate) fn remove_partial_outputs() {
    for slot in &PENDING {
        let path = slot.swap(ptr::null_mut(), Ordering::AcqRel);
        if !path.is_null() {
            // SAFETY: a non-null slot holds a NUL-terminated string that
            // stays allocated: having swapped it out, we own it now (its
            // `Pending` sees the slot changed and does not free it).
            unsafe {
                libc::unlink(path);
            }
        }
    }
}

/// Installs, once, a SIGINT and SIGTERM handler that removes the
/// temporary files of outputs being written, then dies of the signal as
/// it would have. A signal ignored at start-up (`nohup`) stays ignored.
pub fn remove_partial_outputs_on_interrupt() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: `sigaction` gets a zero-initialised action whose
            // handler is an `extern "C" fn(c_int)`, and valid pointers.
            // An ignored signal gets its previous action back.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, &action, &mut previous);
                if previous.sa_sigaction == libc::SIG_IGN {
                    libc::sigaction(signal, &previous, ptr::null_mut());
                }
            }
        }
    });
}

/// The SIGINT/SIGTERM handler: removes partial outputs, then re-raises the
/// signal with its default action so the exit status tells what happened.
extern "C" fn on_interrupt(signal: libc::c_int) {
    remove_partial_outputs();
    // SAFETY: `signal` and `raise` are async-signal-safe; the re-raised
    // signal is blocked until this handler returns, then kills the process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_until_commit_and_nothing_stays_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bits");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"101\n").unwrap();
        assert!(!path.exists());
        file.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"101\n");

        let dropped = dir.path().join("dropped.bits");
        let mut file = AtomicFile::create(&dropped).unwrap();
        file.write_all(b"1").unwrap();
        drop(file);
        assert!(!dropped.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn files_get_the_permissions_of_a_plain_create() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bits");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"1\n").unwrap();
        file.commit().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"1\n").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&plain));
    }

    #[test]
    fn pending_files_are_registered_for_the_signal_handler() {
        let dir = tempfile::tempdir().unwrap();
        let file = AtomicFile::create(&dir.path().join("a")).unwrap();
        let temp = file.writer.get_ref().path().to_path_buf();
        let pending = file._pending.as_ref().expect("a free slot");
        assert_eq!(pending.slot.load(Ordering::Acquire), pending.path);
        // SAFETY: `pending.path` is the live C string this file owns.
        let registered = unsafe { std::ffi::CStr::from_ptr(pending.path) };
        assert_eq!(registered.to_bytes(), temp.as_os_str().as_bytes());
    }
}
