//! `nimstream complexity` end to end, on sizes small enough for a test:
//! the CSV, the SVG and the printed growth exponents.

use std::process::Command;

const HEADER: &str =
    "bytes,heaps,max_bit_length,passes,bytes_scanned,working_memory_bytes,peak_rss_bytes,seconds";

#[test]
fn complexity_writes_one_row_per_size_in_order_a_plot_and_the_exponents() {
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("results");
    let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(["complexity", "--sizes", "64KiB,256KiB", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "complexity failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    let csv = std::fs::read_to_string(out.join("complexity.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for (row, asked) in rows.iter().zip([64u64 << 10, 256 << 10]) {
        assert_eq!(row.len(), 8, "{csv}");
        let bytes: u64 = row[0].parse().unwrap();
        let off = (bytes as f64 - asked as f64).abs() / asked as f64;
        assert!(off <= 0.10, "{bytes} bytes for {asked} asked");
        let seconds: f64 = row[7].parse().unwrap();
        assert!(seconds >= 0.0);
        let peak_rss_bytes: u64 = row[6].parse().unwrap();
        assert!(peak_rss_bytes > 0);
    }

    let svg = std::fs::read_to_string(out.join("complexity.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{svg:.200}"
    );

    let exponents = stdout
        .lines()
        .find(|line| line.starts_with("time grows as n^"))
        .unwrap_or_else(|| panic!("no exponents line in:\n{stdout}"));
    assert!(exponents.contains(", working memory as n^"), "{exponents}");
}

#[test]
fn complexity_refuses_a_size_of_zero_as_bad_usage() {
    let folder = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(["complexity", "--sizes", "0", "--out"])
        .arg(folder.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}
