//! A catalogue of malformed inputs, one or more per rule of SPEC section 2,
//! each run through the binary from a file and from standard input: exit
//! status 1, nothing on standard output, one `error:` line on standard
//! error naming the input, with the offset of the first wrong byte and, for
//! the text formats, its line and column.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// One malformed input and where its first wrong byte is.
struct Bad {
    what: &'static str,
    format: &'static str,
    bytes: Vec<u8>,
    offset: u64,
    /// Line and column, for the text formats.
    at: Option<(u64, u64)>,
    /// Words the message must contain (what was found or expected).
    says: &'static str,
}

fn text(what: &'static str, format: &'static str, bytes: &[u8], offset: u64) -> Bad {
    Bad {
        what,
        format,
        bytes: bytes.to_vec(),
        offset,
        at: None,
        says: "",
    }
}

impl Bad {
    fn at(mut self, line: u64, column: u64) -> Bad {
        self.at = Some((line, column));
        self
    }

    fn says(mut self, words: &'static str) -> Bad {
        self.says = words;
        self
    }
}

const HEADER: &[u8] = b"NIMB\x01\x00\x00\x00";

fn nimb(records: &[u8]) -> Vec<u8> {
    [HEADER, records].concat()
}

fn binary(what: &'static str, format: &'static str, bytes: Vec<u8>, offset: u64) -> Bad {
    Bad {
        what,
        format,
        bytes,
        offset,
        at: None,
        says: "",
    }
}

fn token_cases() -> Vec<Bad> {
    vec![
        text("bits: bad byte at the start", "bits", b"x1 0", 0)
            .at(1, 1)
            .says("'x'"),
        text("bits: digit 2 in the middle", "bits", b"01 102\n", 5).at(1, 6),
        text("bits: bad byte at the end", "bits", b"101 11 2", 7).at(1, 8),
        text("bits: form feed", "bits", b"1\x0c1", 1)
            .at(1, 2)
            .says("form feed"),
        text("bits: vertical tab at the end", "bits", b"1 \x0b", 2)
            .at(1, 3)
            .says("vertical tab"),
        text("bits: 0b prefix on line 3", "bits", b"1\n\n  0b1", 6).at(3, 4),
        text("bits: hex prefix", "bits", b"0x1", 1).at(1, 2),
        text("bits: NUL byte", "bits", b"10 \x00", 3).at(1, 4),
        text("bits: high byte", "bits", b"\xff", 0).at(1, 1),
        text("bits: after CRLF", "bits", b"1\r\n1-", 4).at(2, 2),
        text("hex: bad byte at the start", "hex", b"g", 0).at(1, 1),
        text("hex: bad byte in the middle", "hex", b"ff 1g 2", 4).at(1, 5),
        text("hex: bad byte at the end", "hex", b"ff\n12z", 5).at(2, 3),
        text("hex: bare 0x at the end", "hex", b"0x", 2)
            .at(1, 3)
            .says("0x"),
        text("hex: bare 0X at the end after a token", "hex", b"1f 0X", 5)
            .at(1, 6)
            .says("0x"),
        text("hex: bare 0x before a space", "hex", b"0x \n1", 2).at(1, 3),
        text("hex: bare 0x before LF", "hex", b"a\n0x\n", 4).at(2, 3),
        text("hex: bare 0X before a tab", "hex", b"1 0X\t2", 4).at(1, 5),
        text("hex: bare 0x before CR", "hex", b"0x\r\n", 2).at(1, 3),
        text("hex: 0x after a leading zero", "hex", b"00x1", 2).at(1, 3),
        text("hex: 0x twice", "hex", b"0x0x1", 3).at(1, 4),
        text("hex: 0x inside a token", "hex", b"ab0x1", 3).at(1, 4),
        text("hex: 0x before a bad digit", "hex", b"0xg", 2).at(1, 3),
        text("hex: 0x before a form feed", "hex", b"0x\x0c", 2).at(1, 3),
        text("hex: form feed at the end", "hex", b"12\x0c", 2)
            .at(1, 3)
            .says("form feed"),
        text("hex: vertical tab at the start", "hex", b"\x0b12", 0).at(1, 1),
        text("hex: minus sign", "hex", b"0x1 -", 4).at(1, 5),
        text("dec: bad byte at the start", "dec", b"-1", 0)
            .at(1, 1)
            .says("'-'"),
        text("dec: letter in the middle", "dec", b"12a 3", 2).at(1, 3),
        text("dec: decimal point on line 2", "dec", b"1 2 3\n4.5", 7).at(2, 2),
        text("dec: bad byte at the end", "dec", b"1 2 3 x", 6).at(1, 7),
        text("dec: vertical tab", "dec", b"1\x0b2", 1)
            .at(1, 2)
            .says("vertical tab"),
        text("dec: form feed at the end", "dec", b"12 34\x0c", 5).at(1, 6),
        text("dec: hex digits", "dec", b"ff", 0).at(1, 1),
        text("dec: hex prefix", "dec", b"0x10", 1).at(1, 2),
        text("dec: exponent", "dec", b"\n\n1e5", 3).at(3, 2),
    ]
}

fn unary_cases() -> Vec<Bad> {
    vec![
        text("unary: CR inside a line", "unary", b"1\r1\n", 1)
            .at(1, 2)
            .says("carriage return"),
        text("unary: CR at the end of the file", "unary", b"11\r", 2)
            .at(1, 3)
            .says("carriage return"),
        text("unary: CR alone at the end", "unary", b"1\n\r", 2).at(2, 1),
        text("unary: two CRs before LF", "unary", b"1\r\r\n", 1).at(1, 2),
        text("unary: CR at the start", "unary", b"\r\r\n", 0).at(1, 1),
        text("unary: a zero", "unary", b"\n10\n", 2)
            .at(2, 2)
            .says("'0'"),
        text("unary: a space", "unary", b"1 \n", 1).at(1, 2),
        text("unary: a tab on line 2", "unary", b"11\n\t", 3).at(2, 1),
        text("unary: a letter at the end", "unary", b"111\n\n1x", 6).at(3, 2),
        text("unary: a digit at the start", "unary", b"0\n", 0).at(1, 1),
        text("unary: form feed", "unary", b"1\x0c\n", 1).at(1, 2),
    ]
}

fn raw_cases() -> Vec<Bad> {
    vec![
        binary("u16le: one byte", "u16le", vec![7], 0).says("1 trailing byte"),
        binary("u16le: five bytes", "u16le", vec![1; 5], 4).says("1 trailing byte"),
        binary("u32le: three bytes", "u32le", vec![1; 3], 0).says("3 trailing bytes"),
        binary("u32le: seven bytes", "u32le", vec![1; 7], 4).says("3 trailing bytes"),
        binary("u32le: nine bytes", "u32le", vec![0; 9], 8).says("1 trailing byte"),
        binary("u64le: one byte", "u64le", vec![0], 0).says("1 trailing byte"),
        binary("u64le: fifteen bytes", "u64le", vec![9; 15], 8).says("7 trailing bytes"),
        binary("u64le: seventeen bytes", "u64le", vec![9; 17], 16).says("1 trailing byte"),
    ]
}

fn nimb_cases() -> Vec<Bad> {
    let mut cases = Vec::new();
    for at in 0..8 {
        let mut bytes = nimb(&[1, 5]);
        bytes[at] ^= 0x20;
        cases.push(binary("nimb: a wrong header byte", "nimb", bytes, at as u64).says("header"));
    }
    cases.push(binary(
        "nimb: version 2",
        "nimb",
        b"NIMB\x02\x00\x00\x00\x01\x05".to_vec(),
        4,
    ));
    cases.push(binary(
        "nimb: version 0",
        "nimb",
        b"NIMB\x00\x00\x00\x00".to_vec(),
        4,
    ));
    cases.push(binary(
        "nimb: wrong byte after a short right start",
        "nimb",
        b"NIMB\x01\x01".to_vec(),
        5,
    ));
    for len in 0..8 {
        cases.push(
            binary(
                "nimb: header right so far but short",
                "nimb",
                HEADER[..len].to_vec(),
                len as u64,
            )
            .says("header"),
        );
    }
    cases.extend([
        binary("nimb: prefix cut short", "nimb", nimb(&[0x80]), 8).says("cut short"),
        binary(
            "nimb: prefix cut short after a record",
            "nimb",
            nimb(&[1, 5, 0x80, 0x80]),
            10,
        )
        .says("cut short"),
        binary(
            "nimb: prefix of 11 bytes",
            "nimb",
            nimb(&[&[0x80; 10][..], &[0]].concat()),
            8,
        )
        .says("10 bytes"),
        binary(
            "nimb: prefix of 11 bytes after a record",
            "nimb",
            nimb(&[&[2, 0, 0][..], &[0x80; 10], &[0]].concat()),
            11,
        )
        .says("10 bytes"),
        binary(
            "nimb: ten continuation bytes at the end",
            "nimb",
            nimb(&[0x80; 10]),
            8,
        )
        .says("10 bytes"),
        binary(
            "nimb: length above 2^64 - 1",
            "nimb",
            nimb(&[&[0xff; 9][..], &[0x02]].concat()),
            8,
        )
        .says("2^64"),
        binary(
            "nimb: length far above 2^64 - 1",
            "nimb",
            nimb(&[&[0x80; 9][..], &[0x7f]].concat()),
            8,
        )
        .says("2^64"),
        binary("nimb: record cut short", "nimb", nimb(&[3, 1, 2]), 8).says("cut short"),
        binary(
            "nimb: second record cut short",
            "nimb",
            nimb(&[1, 7, 5, 1, 2, 3]),
            10,
        )
        .says("cut short"),
        binary(
            "nimb: a length of 2^64 - 1",
            "nimb",
            nimb(&[&[0xff; 9][..], &[0x01]].concat()),
            8,
        )
        .says("cut short"),
        binary(
            "nimb: non-minimal prefix cut short",
            "nimb",
            nimb(&[0x81, 0x80, 0x00]),
            8,
        )
        .says("cut short"),
    ]);
    cases
}

/// Errors past the first 4 KiB, where standard input is read in chunks.
fn far_cases() -> Vec<Bad> {
    let mut many_lines = b"1\n".repeat(3000);
    many_lines.push(b'2');
    let mut unary_cr = b"1\n".repeat(3000);
    unary_cr.extend_from_slice(b"1\r");
    let mut long_line = b"11\n".to_vec();
    long_line.extend(vec![b'1'; 5000]);
    long_line.push(b'x');
    let mut long_token = b" ".to_vec();
    long_token.extend(vec![b'1'; 5000]);
    long_token.push(b'x');
    let mut dec_tail = b"12345 ".repeat(1000);
    dec_tail.extend_from_slice(b"\n\t9;");
    let mut nimb_tail = HEADER.to_vec();
    for _ in 0..2000 {
        nimb_tail.extend_from_slice(&[2, 0xff, 0x01]);
    }
    nimb_tail.extend_from_slice(&[4, 1, 2, 3]);
    let mut u32_tail = vec![0u8; 6000];
    u32_tail.extend_from_slice(&[1, 2]);
    vec![
        Bad {
            what: "bits: a bad digit on line 3001",
            format: "bits",
            bytes: many_lines,
            offset: 6000,
            at: Some((3001, 1)),
            says: "'2'",
        },
        Bad {
            what: "unary: a CR at the end of line 3001",
            format: "unary",
            bytes: unary_cr,
            offset: 6001,
            at: Some((3001, 2)),
            says: "carriage return",
        },
        Bad {
            what: "unary: a bad byte ending a 5000-byte line",
            format: "unary",
            bytes: long_line,
            offset: 5003,
            at: Some((2, 5001)),
            says: "'x'",
        },
        Bad {
            what: "bits: a bad byte ending a 5000-digit token",
            format: "bits",
            bytes: long_token,
            offset: 5001,
            at: Some((1, 5002)),
            says: "'x'",
        },
        Bad {
            what: "dec: a semicolon after 6000 bytes",
            format: "dec",
            bytes: dec_tail,
            offset: 6003,
            at: Some((2, 3)),
            says: "';'",
        },
        Bad {
            what: "nimb: a record cut short after 6000 bytes",
            format: "nimb",
            bytes: nimb_tail,
            offset: 6008,
            at: None,
            says: "cut short",
        },
        Bad {
            what: "u32le: two trailing bytes after 6000",
            format: "u32le",
            bytes: u32_tail,
            offset: 6000,
            at: None,
            says: "2 trailing bytes",
        },
    ]
}

fn extension(format: &str) -> &str {
    match format {
        "u16le" => "u16",
        "u32le" => "u32",
        "u64le" => "u64",
        other => other,
    }
}

fn nimstream(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // The analyzer may stop reading at the first bad byte.
        let _ = pipe.write_all(bytes);
    }
    child.wait_with_output().unwrap()
}

/// The one `error:` line of a failed run with exit status `status`.
fn error_line(output: &Output, status: i32, context: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(status),
        "{context}; stderr: {stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "{context}: stdout: {:?}",
        String::from_utf8_lossy(&output.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{context}: one stderr line expected: {stderr:?}"
    );
    assert!(lines[0].starts_with("error: "), "{context}: {stderr:?}");
    lines[0].to_string()
}

/// The `error:` line of a command line clap refuses (exit status 2): its
/// first, which the help pointer clap prints under it follows.
fn usage_error_line(output: &Output, context: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{context}; stderr: {stderr}");
    assert!(output.stdout.is_empty(), "{context}");
    assert!(
        stderr
            .trim_end()
            .ends_with("For more information, try '--help'."),
        "{context}: {stderr:?}"
    );
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: "), "{context}: {stderr:?}");
    first.to_string()
}

fn check_error(case: &Bad, line: &str, name: &str, context: &str) {
    let location = match case.at {
        Some((l, c)) => format!("offset {} (line {l}, column {c}): ", case.offset),
        None => format!("offset {}: ", case.offset),
    };
    let want = format!("error: {name}: {location}");
    assert!(
        line.starts_with(&want),
        "{context}\n  want: {want}…\n   got: {line}"
    );
    let message = &line[want.len()..];
    assert!(!message.is_empty(), "{context}: the message says nothing");
    assert!(
        message.contains(case.says),
        "{context}: {line:?} should say {:?}",
        case.says
    );
}

fn all_cases() -> Vec<Bad> {
    [
        token_cases(),
        unary_cases(),
        raw_cases(),
        nimb_cases(),
        far_cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[test]
fn the_catalogue_covers_every_format() {
    let cases = all_cases();
    for format in [
        "bits", "hex", "dec", "unary", "u16le", "u32le", "u64le", "nimb",
    ] {
        assert!(cases.iter().any(|c| c.format == format), "{format}");
    }
    for case in &cases {
        let text = ["bits", "hex", "dec", "unary"].contains(&case.format);
        assert_eq!(
            case.at.is_some(),
            text,
            "{}: line/column only for text",
            case.what
        );
        assert!(case.offset <= case.bytes.len() as u64, "{}", case.what);
    }
}

#[test]
fn every_malformed_file_is_one_error_line_with_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in all_cases().iter().enumerate() {
        let path = dir
            .path()
            .join(format!("case{i}.{}", extension(case.format)));
        std::fs::write(&path, &case.bytes).unwrap();
        let shown = path.display().to_string();
        let context = format!("{} (file {shown})", case.what);
        for json in [false, true] {
            let mut args = vec!["analyze", shown.as_str()];
            if json {
                args.push("--json");
            }
            let output = nimstream(&args, None);
            let line = error_line(&output, 1, &context);
            check_error(case, &line, &shown, &context);
        }
    }
}

#[test]
fn every_malformed_file_with_an_explicit_format_fails_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in all_cases().iter().enumerate() {
        let path = dir.path().join(format!("case{i}.data"));
        std::fs::write(&path, &case.bytes).unwrap();
        let shown = path.display().to_string();
        let context = format!("{} (--format {})", case.what, case.format);
        for memory in ["64", "log"] {
            let output = nimstream(
                &[
                    "analyze",
                    &shown,
                    "--format",
                    case.format,
                    "--memory",
                    memory,
                ],
                None,
            );
            let line = error_line(&output, 1, &context);
            check_error(case, &line, &shown, &context);
        }
    }
}

#[test]
fn every_malformed_file_read_without_a_map_fails_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in all_cases().iter().enumerate() {
        let path = dir
            .path()
            .join(format!("case{i}.{}", extension(case.format)));
        std::fs::write(&path, &case.bytes).unwrap();
        let shown = path.display().to_string();
        let context = format!("{} (--no-mmap)", case.what);
        let output = nimstream(&["analyze", &shown, "--no-mmap", "--memory", "64"], None);
        let line = error_line(&output, 1, &context);
        check_error(case, &line, &shown, &context);
    }
}

#[test]
fn every_malformed_stream_is_one_error_line_naming_stdin() {
    for case in all_cases() {
        let context = format!("{} (stdin)", case.what);
        let output = nimstream(
            &["analyze", "-", "--format", case.format],
            Some(&case.bytes),
        );
        let line = error_line(&output, 1, &context);
        check_error(&case, &line, "<stdin>", &context);
    }
}

// ---------------------------------------------------------------------------
// Usage and file errors.

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.bits");
    let shown = path.display().to_string();
    let output = nimstream(&["analyze", &shown], None);
    let line = error_line(&output, 1, "missing file");
    assert!(line.starts_with(&format!("error: {shown}: ")), "{line}");
    assert!(line.to_lowercase().contains("no such file"), "{line}");
}

#[test]
fn a_file_without_read_permission_is_an_io_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.path().join("secret.dec");
    std::fs::write(&path, b"3 4 5\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads any file: run the binary as `nobody` then.
    // SAFETY: `geteuid` has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let shown = path.display().to_string();
    for extra in [&[][..], &["--no-mmap"], &["--format", "dec"]] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nimstream"));
        command.args([&["analyze", shown.as_str()][..], extra].concat());
        if root {
            // SAFETY: runs in the child between fork and exec, and only
            // calls the async-signal-safe `setgid` and `setuid`.
            unsafe {
                command.pre_exec(|| {
                    if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let output = match command.output() {
            Ok(output) => output,
            Err(e) => {
                eprintln!("skipped: cannot run the binary as user nobody: {e}");
                return;
            }
        };
        let line = error_line(&output, 1, "unreadable file");
        assert!(line.starts_with(&format!("error: {shown}: ")), "{line}");
        assert!(line.to_lowercase().contains("permission denied"), "{line}");
    }
}

#[test]
fn a_directory_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.bits");
    std::fs::create_dir(&folder).unwrap();
    let shown = folder.display().to_string();
    for format in [None, Some("bits")] {
        let mut args = vec!["analyze", shown.as_str()];
        args.extend(format.iter().flat_map(|f| ["--format", f]));
        let output = nimstream(&args, None);
        let line = error_line(&output, 1, "directory");
        assert!(line.starts_with(&format!("error: {shown}: ")), "{line}");
        assert!(line.contains("directory"), "{line}");
    }
}

#[test]
fn an_unknown_extension_without_format_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heaps.txt");
    std::fs::write(&path, b"3 4 5\n").unwrap();
    let shown = path.display().to_string();
    let line = error_line(
        &nimstream(&["analyze", &shown], None),
        2,
        "unknown extension",
    );
    assert!(line.contains(&shown), "{line}");
    assert!(line.contains("--format"), "{line}");
    // With an explicit format the same file is fine.
    let output = nimstream(&["analyze", &shown, "--format", "dec"], None);
    assert_eq!(output.status.code(), Some(0));
    // A file without any extension, too short for a magic.
    let bare = dir.path().join("NI");
    std::fs::write(&bare, b"NI").unwrap();
    let shown = bare.display().to_string();
    let line = error_line(&nimstream(&["analyze", &shown], None), 2, "no extension");
    assert!(line.contains(&shown) && line.contains("--format"), "{line}");
}

#[test]
fn standard_input_without_format_is_a_usage_error_whatever_the_data() {
    for data in [&b"3 4 5\n"[..], HEADER, b""] {
        for format in [None, Some("auto")] {
            let mut args = vec!["analyze", "-"];
            args.extend(format.iter().flat_map(|f| ["--format", f]));
            let line = error_line(&nimstream(&args, Some(data)), 2, "stdin without --format");
            assert!(line.contains("--format"), "{line}");
        }
    }
}

#[test]
fn a_budget_below_64_bytes_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.dec");
    std::fs::write(&path, b"3 4 5\n").unwrap();
    let shown = path.display().to_string();
    for memory in ["63", "0", "10b", "lots", "1TiB"] {
        let output = nimstream(&["analyze", &shown, "--memory", memory], None);
        let line = usage_error_line(&output, &format!("--memory {memory}"));
        assert!(line.contains("memory"), "{line}");
    }
    let fine = nimstream(&["analyze", &shown, "--memory", "64"], None);
    assert_eq!(fine.status.code(), Some(0));
}

#[test]
fn an_unknown_rule_or_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.dec");
    std::fs::write(&path, b"3 4 5\n").unwrap();
    let shown = path.display().to_string();
    for (flag, value) in [("--rule", "poker"), ("--rule", ""), ("--format", "csv")] {
        let output = nimstream(&["analyze", &shown, flag, value], None);
        let line = usage_error_line(&output, &format!("{flag} {value}"));
        assert!(line.contains(value), "{line}");
    }
}

#[test]
fn a_heap_longer_than_the_stdin_window_names_stdin_and_suggests_a_file() {
    let mut data = b"1 ".to_vec();
    data.extend(vec![b'1'; 513]);
    data.push(b'\n');
    let output = nimstream(
        &["analyze", "-", "--format", "bits", "--memory", "64"],
        Some(&data),
    );
    let line = error_line(&output, 1, "long heap on stdin");
    assert!(line.starts_with("error: <stdin>: offset 2"), "{line}");
    assert!(line.contains("file"), "{line}");
    // 512 bits fit the 64-byte window.
    data.truncate(data.len() - 2);
    data.push(b'\n');
    let output = nimstream(
        &["analyze", "-", "--format", "bits", "--memory", "64"],
        Some(&data),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
