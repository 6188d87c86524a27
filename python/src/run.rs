//! Long work without the GIL: [`interruptible`] runs it on a thread of its
//! own while the calling thread looks for Ctrl-C every
//! [`SIGNAL_POLL`] and raises the work's [`Cancel`] flag when it comes, so
//! that `KeyboardInterrupt` stops an analysis within milliseconds of the
//! poll. A panic in the crate is caught there and comes out as a
//! `RuntimeError`, never as a panic into Python. Work that takes no flag
//! runs in [`abandonable`]: Ctrl-C returns at once and leaves it to finish
//! in the background. The crate's errors become the package's exceptions
//! in [`to_python`].

use nimstream::{Cancel, Error};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

/// How often the calling thread looks for Ctrl-C while work runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` without the GIL on a thread of its own, raising `cancel`
/// when Ctrl-C (or any signal handler's exception) comes, which is then
/// raised in place of the work's result.
pub fn interruptible<T, F>(py: Python<'_>, cancel: &Cancel, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, Error> + Send,
{
    let mut interrupted = None;
    let done = py.detach(|| {
        std::thread::scope(|scope| {
            let (finished, wait) = channel();
            let worker = scope.spawn(move || {
                let done = catch_unwind(AssertUnwindSafe(work));
                let _ = finished.send(());
                done
            });
            while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(SIGNAL_POLL) {
                if interrupted.is_none() {
                    if let Err(signal) = Python::attach(|py| py.check_signals()) {
                        cancel.cancel();
                        interrupted = Some(signal);
                    }
                }
            }
            worker.join().unwrap_or_else(Err)
        })
    });
    if let Some(signal) = interrupted {
        return Err(signal);
    }
    match done {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_python(py, error)),
        Err(panic) => Err(internal(panic)),
    }
}

/// Runs `work`, which takes no [`Cancel`] flag (the crate's value
/// sequences), on a thread of its own without the GIL. On Ctrl-C the
/// `KeyboardInterrupt` is raised at once and the thread is left to finish
/// in the background, its result dropped: the caller gets control back,
/// the CPU the rest of the work.
pub fn abandonable<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, Error> + Send + 'static,
{
    let (finished, mut wait) = channel();
    std::thread::spawn(move || {
        let _ = finished.send(catch_unwind(AssertUnwindSafe(work)));
    });
    loop {
        // The receiver is moved into each wait and back (it is not Sync).
        let answer;
        (answer, wait) = py.detach(move || (wait.recv_timeout(SIGNAL_POLL), wait));
        match answer {
            Ok(Ok(Ok(value))) => return Ok(value),
            Ok(Ok(Err(error))) => return Err(to_python(py, error)),
            Ok(Err(panic)) => return Err(internal(panic)),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "nimstream internal error: no answer",
                ))
            }
        }
    }
}

/// A panic's message as a `RuntimeError`.
pub fn internal(panic: Box<dyn std::any::Any + Send>) -> PyErr {
    let message = panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    PyRuntimeError::new_err(format!(
        "nimstream internal error (please report it): {message}"
    ))
}

/// A `nimstream.UsageError`.
pub fn usage(message: impl Into<String>) -> PyErr {
    Python::attach(|py| {
        package_error(py, "UsageError", (message.into(),)).unwrap_or_else(|failed| failed)
    })
}

/// The exception of `nimstream._errors` named `class`, made with `args`.
fn package_error<'py, A: pyo3::call::PyCallArgs<'py>>(
    py: Python<'py>,
    class: &str,
    args: A,
) -> PyResult<PyErr> {
    let class = py.import("nimstream._errors")?.getattr(class)?;
    Ok(PyErr::from_value(class.call1(args)?))
}

/// The crate's error as the package's exception: bad input is an
/// `InputError` (a `ValueError` with `path`, `offset`, `line`, `column`),
/// bad usage a `UsageError`, an I/O failure the `OSError` of its kind
/// (`FileNotFoundError`, …) with the file named, a failed self-check a
/// `RuntimeError` (so is a sequence stopped past its memory), a run
/// interrupted after saving its state a `KeyboardInterrupt`.
pub fn to_python(py: Python<'_>, error: Error) -> PyErr {
    let message = error.to_string();
    let made = match error {
        Error::Input {
            path,
            offset,
            line_col,
            ..
        } => {
            let (line, column) = line_col.unzip();
            package_error(py, "InputError", (message, path, offset, line, column))
        }
        Error::Usage(_) => package_error(py, "UsageError", (message,)),
        Error::Io { source, .. } => Ok(PyErr::from(std::io::Error::new(source.kind(), message))),
        Error::Check(_) | Error::Stopped(_) => Ok(PyRuntimeError::new_err(message)),
        Error::Interrupted(_) => Ok(PyKeyboardInterrupt::new_err(message)),
    };
    made.unwrap_or_else(|failed| PyOSError::new_err(failed.to_string()))
}
