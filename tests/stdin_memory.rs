//! Standard input is read once, so the move's candidates are kept as the
//! pass goes; an adversarial stream (every heap the first to hold a bit)
//! must still stay within the working-memory bound, spilling to disk.

use std::io::Write;
use std::process::{Command, Stdio};

fn analyze_stdin(input: &[u8], format: &str, memory: &str) -> serde_json::Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args([
            "analyze", "-", "--json", "--format", format, "--memory", memory,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Heaps 2^0, 2^1, …, 2^(count−1) in hex, one per line.
fn powers_of_two_hex(count: usize) -> Vec<u8> {
    let mut text = String::new();
    for k in 0..count {
        let digit = ["1", "2", "4", "8"][k % 4];
        text.push_str(digit);
        text.push_str(&"0".repeat(k / 4));
        text.push('\n');
    }
    text.into_bytes()
}

fn assert_last_heap_is_the_move(report: &serde_json::Value, count: u64) {
    assert_eq!(report["move"]["heap"], count - 1);
    assert_eq!(report["winning_moves"], 1);
    assert_eq!(report["nim_sum"]["bit_length"], count);
    assert_eq!(report["move"]["to"]["bit_length"], count - 1);
}

#[test]
fn every_heap_a_candidate_stays_within_the_log_bound() {
    let report = analyze_stdin(&powers_of_two_hex(4096), "hex", "log");
    assert_last_heap_is_the_move(&report, 4096);
    let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
    assert!(used <= 16 * 1024, "{used} bytes under --memory log");
}

#[test]
fn every_heap_a_candidate_stays_within_a_small_budget() {
    let report = analyze_stdin(&powers_of_two_hex(512), "hex", "64");
    assert_last_heap_is_the_move(&report, 512);
    let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
    assert!(used <= 64 + 16 * 1024, "{used} bytes under --memory 64");
}

/// `nimstream gen ARGS` into a file named `name` in a new folder, which
/// is deleted when the returned handle is dropped.
fn generated(name: &str, args: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .arg("gen")
        .args(args)
        .arg("-o")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    (folder, path)
}

/// The report of `nimstream analyze --json --memory log ARGS FILE`.
fn analyze_under_log(path: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(["analyze", "--json", "--memory", "log"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn decimal_heaps_of_thousands_of_digits_stay_within_the_log_bound() {
    // Heaps of 26,000 to 30,000 bits: up to 9,031 decimal digits each.
    let args = ["--format", "dec", "--heaps", "30", "--bits", "26000..30000"];
    let (_folder, path) = generated("long.dec", &args);
    let report = analyze_under_log(&path, &[]);
    let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
    assert!(used <= 16 * 1024, "{used} bytes under --memory log");
}

#[test]
fn plain_reads_under_log_stay_within_the_bound() {
    // Heaps of up to 1,024 bits in 2 MiB, read with plain reads: the
    // windows, the first-holder search and the move's line all read into
    // buffers of the log budget's size.
    let args = ["--format", "bits", "--size", "2MiB", "--bits", "1..1024"];
    let (_folder, path) = generated("short.bits", &args);
    let report = analyze_under_log(&path, &["--no-mmap"]);
    assert!(
        report["move"]["line"].is_u64(),
        "the move's line was counted"
    );
    let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
    assert!(
        used <= 16 * 1024,
        "{used} bytes under --memory log --no-mmap"
    );
}

/// Standard input on a pipe is read through a pipe of 1 MiB: the default
/// 64 KiB makes writer and reader wake each other sixteen times as often.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_on_standard_input_is_widened() {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors pipe2(2) writes
    // (close-on-exec, so that the child holds no write end of its own).
    assert_eq!(
        unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) },
        0
    );
    // SAFETY: pipe2(2) just opened both descriptors, owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    let size = |fd: &OwnedFd| {
        // SAFETY: F_GETPIPE_SZ reads a property of a live descriptor.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
    };
    let before = size(&write);
    // A second read end (close-on-exec too) keeps the pipe alive to be
    // asked about once the child is done.
    let kept = read.try_clone().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(["analyze", "-", "--json", "--format", "dec"])
        .stdin(Stdio::from(read))
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::fs::File::from(write).write_all(b"3\n4\n5\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["nim_sum"]["dec"], "2");
    assert!(before < 1 << 20, "{before}");
    assert_eq!(size(&kept), 1 << 20);
}
