//! The README's and the docs' quoted outputs, checked against what the
//! binary prints; and the links between them.
//!
//! A quoted output is a fenced block right after a marker that says what
//! prints it:
//!
//! ```text
//! <!-- output: nimstream analyze fixtures/three-four-five.dec -->
//! ```
//!
//! The marker's script (one line, or several up to `-->`) runs with `sh`
//! in a fresh folder where `fixtures/` is the repository's and `nimstream`
//! is the binary under test, standard error merged into standard output.
//! A `text` block must equal that output line by line, but for lines of
//! measurements (those starting with `stats` or `computed`), whose numbers
//! are masked on both sides, and lines starting with `$ `, which show the
//! command and are not output. A `json` block must hold the same JSON
//! value, `stats` aside (its fields must be the same).
//!
//! Figures (`<!-- figure: SCRIPT -->` … `<!-- end figure -->`: timings,
//! plots, tables of measurements) are not checked here: they change from
//! run to run. Quotes and figures may stand in `README.md` and in any
//! `docs/*.md`; every one of them is checked. With `README_BLESS=1` this
//! test rewrites every quoted output and, with `README_FIGURES=1` too,
//! every figure, from what the scripts print now: `bench/figures.sh` runs
//! it so on the release build.
//!
//! Every relative link and anchor of those documents must resolve
//! ([`every_link_resolves`]), anchors as GitHub makes them from headings.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One marked place in the README.
#[derive(Debug)]
struct Quote {
    /// The script that prints it.
    script: String,
    /// What kind of block it is: `text`, `json`, or `figure`.
    kind: String,
    /// The lines of the block's body: `lines[body]`.
    body: std::ops::Range<usize>,
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// The README and every `docs/*.md`, in a fixed order.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    std::iter::once(readme_path()).chain(docs).collect()
}

/// The marked places of `lines`, in order.
fn quotes(lines: &[&str]) -> Vec<Quote> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        let (kind, rest) = if let Some(rest) = line.strip_prefix("<!-- output:") {
            ("output", rest)
        } else if let Some(rest) = line.strip_prefix("<!-- figure:") {
            ("figure", rest)
        } else {
            i += 1;
            continue;
        };
        let (script, after) = marker_script(lines, i, rest);
        let quote = match kind {
            "figure" => figure_body(lines, after, script),
            _ => fenced_body(lines, after, script),
        };
        i = quote.body.end;
        found.push(quote);
    }
    found
}

/// The script of a marker that starts with `rest` on line `at`, and the
/// line after the marker.
fn marker_script(lines: &[&str], at: usize, rest: &str) -> (String, usize) {
    if let Some(one) = rest.strip_suffix("-->") {
        return (one.trim().to_string(), at + 1);
    }
    let mut script = vec![rest.trim().to_string()];
    let mut end = at + 1;
    while !lines[end].trim_end().ends_with("-->") {
        script.push(lines[end].to_string());
        end += 1;
    }
    script.push(lines[end].trim_end().trim_end_matches("-->").to_string());
    (script.join("\n").trim().to_string(), end + 1)
}

/// The fenced block that follows a marker (blank lines may come between).
fn fenced_body(lines: &[&str], from: usize, script: String) -> Quote {
    let open = (from..lines.len())
        .find(|&i| !lines[i].trim().is_empty())
        .expect("a block after the marker");
    let kind = lines[open]
        .strip_prefix("```")
        .unwrap_or_else(|| panic!("line {}: a fenced block after the marker", open + 1));
    let close = (open + 1..lines.len())
        .find(|&i| lines[i].starts_with("```"))
        .expect("the block is closed");
    Quote {
        script,
        kind: kind.to_string(),
        body: open + 1..close,
    }
}

/// The lines between a figure's marker and `<!-- end figure -->`.
fn figure_body(lines: &[&str], from: usize, script: String) -> Quote {
    let end = (from..lines.len())
        .find(|&i| lines[i].trim() == "<!-- end figure -->")
        .unwrap_or_else(|| panic!("line {from}: a figure without its end"));
    Quote {
        script,
        kind: "figure".to_string(),
        body: from..end,
    }
}

/// Runs `script` as the README's reader would, in a fresh folder.
fn run(script: &str) -> String {
    let folder = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::os::unix::fs::symlink(root.join("fixtures"), folder.path().join("fixtures")).unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(folder.path())
        .env("PATH", path_with_the_binary())
        .env("ROOT", root)
        .env_remove("NIMSTREAM_SIMD")
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// `PATH` with the folder of the binary under test first, so that a script
/// runs it as `nimstream`.
fn path_with_the_binary() -> String {
    let binary = Path::new(env!("CARGO_BIN_EXE_nimstream"));
    format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A line as compared: the numbers of measurement lines masked.
fn comparable(line: &str) -> String {
    let measured = ["stats", "computed"]
        .iter()
        .any(|word| line.split_whitespace().next() == Some(word));
    if !measured {
        return line.trim_end().to_string();
    }
    let mut masked = String::new();
    let mut in_number = false;
    for c in line.trim_end().chars() {
        let digit = c.is_ascii_digit() || (in_number && c == '.');
        if digit && !in_number {
            masked.push('#');
        } else if !digit {
            masked.push(c);
        }
        in_number = digit;
    }
    masked
}

/// Why `printed` does not match the quoted `body`, if it does not.
fn mismatch(kind: &str, body: &[&str], printed: &str) -> Option<String> {
    match kind {
        "json" => json_mismatch(&body.join("\n"), printed),
        _ => {
            let quoted: Vec<String> = body
                .iter()
                .filter(|line| !line.starts_with("$ "))
                .map(|line| comparable(line))
                .collect();
            let actual: Vec<String> = printed.lines().map(comparable).collect();
            (quoted != actual).then(|| {
                format!(
                    "quoted:\n{}\nprinted:\n{}",
                    quoted.join("\n"),
                    actual.join("\n")
                )
            })
        }
    }
}

fn json_mismatch(quoted: &str, printed: &str) -> Option<String> {
    let parse = |text: &str| -> serde_json::Value { serde_json::from_str(text).unwrap() };
    let (mut quoted, mut printed) = (parse(quoted), parse(printed));
    let keys = |value: &mut serde_json::Value| -> Vec<String> {
        let stats = value.as_object_mut().unwrap().remove("stats");
        let mut keys: Vec<String> = stats
            .and_then(|s| s.as_object().map(|o| o.keys().cloned().collect()))
            .unwrap_or_default();
        keys.sort();
        keys
    };
    let (quoted_stats, printed_stats) = (keys(&mut quoted), keys(&mut printed));
    (quoted != printed || quoted_stats != printed_stats).then(|| {
        format!("quoted:\n{quoted:#}\n{quoted_stats:?}\nprinted:\n{printed:#}\n{printed_stats:?}")
    })
}

/// The block as it should now read (for `README_BLESS`): what was printed,
/// after the quoted commands (`$ …`). A JSON block that holds the printed
/// value is kept as it is laid out; one that does not becomes the printed
/// line. A figure is what its script prints, whole (fences and commands
/// shown included).
fn blessed(kind: &str, body: &[&str], printed: &str) -> Vec<String> {
    if kind == "json" && json_mismatch(&body.join("\n"), printed).is_none() {
        return body.iter().map(|line| line.to_string()).collect();
    }
    let kept_commands = body
        .iter()
        .filter(|line| kind != "figure" && line.starts_with("$ "));
    let printed = printed.trim_end_matches('\n').lines().map(str::to_string);
    kept_commands
        .map(|line| line.to_string())
        .chain(printed)
        .collect()
}

#[test]
fn the_readme_quotes_what_the_binary_prints() {
    let mut counts = Vec::new();
    for document in documents() {
        counts.push((check_document(&document), document));
    }
    let (in_readme, _) = &counts[0];
    assert!(
        *in_readme >= 8,
        "only {in_readme} quoted outputs found in the README"
    );
    let in_docs: usize = counts[1..].iter().map(|(count, _)| count).sum();
    assert!(
        in_docs >= 8,
        "only {in_docs} quoted outputs in docs/: {counts:?}"
    );
}

/// Checks (or, with `README_BLESS`, rewrites) the quotes of the document at
/// `path`; returns how many quoted outputs it has.
fn check_document(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let quotes = quotes(&lines);
    let bless = std::env::var_os("README_BLESS").is_some();
    let figures = bless && std::env::var_os("README_FIGURES").is_some();
    let mut rewritten: Vec<String> = Vec::new();
    let mut next = 0;
    let mut failures = Vec::new();
    for quote in &quotes {
        rewritten.extend(lines[next..quote.body.start].iter().map(|l| l.to_string()));
        next = quote.body.start;
        let body = &lines[quote.body.clone()];
        if quote.kind == "figure" && !figures {
            continue;
        }
        let printed = run(&quote.script);
        if bless {
            rewritten.extend(blessed(&quote.kind, body, &printed));
            next = quote.body.end;
        } else if let Some(why) = mismatch(&quote.kind, body, &printed) {
            let line = quote.body.start;
            let name = path.display();
            failures.push(format!("{name}:{line}: `{}`\n{why}", quote.script));
        }
    }
    if bless {
        rewritten.extend(lines[next..].iter().map(|l| l.to_string()));
        std::fs::write(path, rewritten.join("\n") + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    quotes.iter().filter(|quote| quote.kind != "figure").count()
}

#[test]
fn measurement_lines_are_compared_without_their_numbers() {
    assert_eq!(
        comparable("stats          1 pass (1 GiB window), 6 bytes scanned, 3.2 KiB, 0.19 ms"),
        "stats          # pass (# GiB window), # bytes scanned, # KiB, # ms"
    );
    assert_eq!(comparable("nim-sum  2 = 0b10"), "nim-sum  2 = 0b10");
    assert!(mismatch("text", &["winner  first"], "winner  second\n").is_some());
    assert!(mismatch("text", &["$ nimstream x", "a"], "a\n").is_none());
    assert_eq!(
        blessed("text", &["$ nimstream x", "b"], "a\n"),
        ["$ nimstream x", "a"]
    );
    let figure = ["```text", "$ nimstream x", "b", "```"];
    assert_eq!(
        blessed("figure", &figure, "```text\n$ nimstream x\na\n```\n"),
        ["```text", "$ nimstream x", "a", "```"]
    );
}

/// The body of the first fenced block after the line that starts with
/// `marker`.
fn block_after<'t>(lines: &[&'t str], marker: &str) -> Vec<&'t str> {
    let at = lines
        .iter()
        .position(|line| line.starts_with(marker))
        .unwrap_or_else(|| panic!("no line starting with {marker}"));
    let quote = fenced_body(lines, at + 1, String::new());
    lines[quote.body].to_vec()
}

#[test]
fn the_install_lines_work_in_an_empty_home() {
    let text = std::fs::read_to_string(readme_path()).unwrap();
    assert!(
        text.contains("\ncargo install --path . --locked\n"),
        "the install keeps Cargo.lock's versions"
    );
    let lines: Vec<&str> = text.lines().collect();
    let script = block_after(&lines, "<!-- install:").join("\n");
    let home = tempfile::tempdir().unwrap();
    let output = Command::new("sh")
        .args(["-ec", &script])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("PATH", path_with_the_binary())
        .output()
        .unwrap();
    assert!(output.status.success(), "{script}\n{output:?}");
    for file in [
        ".local/share/bash-completion/completions/nimstream",
        ".zfunc/_nimstream",
        ".config/fish/completions/nimstream.fish",
        ".local/share/man/man1/nimstream-analyze.1",
    ] {
        let written = std::fs::metadata(home.path().join(file)).map(|m| m.len());
        assert!(
            written.as_ref().is_ok_and(|&bytes| bytes > 0),
            "{file}: {written:?}"
        );
    }
}

#[test]
fn the_docs_point_nowhere_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Texts a user of the repository does not have.
    let outside = [
        "spec section",
        "spec.md",
        "seed 00",
        "seed's",
        "seed text",
        "../shared",
    ];
    assert!(documents().len() > 3, "{:?}", documents());
    for path in documents() {
        let doc = path.strip_prefix(root).unwrap().display();
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            for word in outside {
                assert!(
                    !lower.contains(word),
                    "{doc}:{}: {word}: {line}",
                    number + 1
                );
            }
        }
    }
}

#[test]
fn the_fixtures_are_what_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(readme_path()).unwrap();
    let start = text
        .find("The fixtures under `fixtures/`:")
        .expect("the README says what the fixtures are");
    let said = &text[start..start + text[start..].find("\n\n").unwrap()];
    let nimstream = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    for entry in std::fs::read_dir(root.join("fixtures")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let path = format!("fixtures/{name}");
        if name.starts_with("three-four-five.") {
            assert!(said.contains("`three-four-five.*`"), "{said}");
            let report = nimstream(&["analyze", &path, "--json"]);
            assert_eq!(
                (report["heaps"].as_u64(), report["big"].as_u64()),
                (Some(3), Some(3))
            );
            assert_eq!(report["nim_sum"]["dec"], "2", "{name}");
            continue;
        }
        assert!(
            said.contains(&format!("`{name}`")),
            "{name} is not named: {said}"
        );
        if name.starts_with("misere-") {
            let report = nimstream(&["analyze", &path, "--json", "--rule", "misere"]);
            let ones = if name.contains("-three-") { 3 } else { 4 };
            assert_eq!(
                (report["ones"].as_u64(), report["big"].as_u64()),
                (Some(ones), Some(0))
            );
        } else {
            let report = nimstream(&["graph", &path, "--json"]);
            assert_eq!(report["nodes"], 7, "{name}");
        }
    }
}

/// The anchor GitHub gives a heading: its text in lower case, spaces made
/// hyphens, and every character but letters, digits, `-` and `_` dropped
/// (so `` `--json` `` keeps its hyphens and loses its backticks).
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// `text` without its fenced blocks (their lines left blank, so that line
/// numbers hold).
fn outside_fences(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return "";
            }
            if fenced {
                ""
            } else {
                line
            }
        })
        .collect()
}

/// The anchors of the headings of a Markdown `text`, a repeated one
/// numbered `-1`, `-2`, … as GitHub does.
fn anchors(text: &str) -> Vec<String> {
    let mut bases: Vec<String> = Vec::new();
    let mut found = Vec::new();
    for line in outside_fences(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = anchor(heading);
        let repeats = bases.iter().filter(|seen| **seen == base).count();
        found.push(match repeats {
            0 => base.clone(),
            n => format!("{base}-{n}"),
        });
        bases.push(base);
    }
    found
}

/// The targets of the links and images of a Markdown `text` (`[…](TARGET)`),
/// outside fenced blocks, code spans and HTML comments.
fn link_targets(text: &str) -> Vec<String> {
    let mut prose = outside_fences(text).join("\n");
    for (open, close) in [("<!--", "-->"), ("`", "`")] {
        let mut kept = String::new();
        let mut rest = prose.as_str();
        while let Some(start) = rest.find(open) {
            kept.push_str(&rest[..start]);
            let after = &rest[start + open.len()..];
            rest = after
                .find(close)
                .map_or("", |end| &after[end + close.len()..]);
        }
        kept.push_str(rest);
        prose = kept;
    }
    prose
        .match_indices("](")
        .filter_map(|(at, _)| {
            let target = &prose[at + 2..];
            target.find(')').map(|end| target[..end].trim().to_string())
        })
        .collect()
}

/// Why the link `target` of the document at `from` does not resolve, if
/// it does not: a relative path must name a file or folder of the
/// repository, and an anchor a heading of the Markdown file it names.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    let fragment = fragment?;
    let text = std::fs::read_to_string(&file).ok()?;
    let headings = anchors(&text);
    (!headings.iter().any(|heading| heading == fragment)).then(|| {
        format!(
            "no heading of {} has the anchor #{fragment}",
            file.display()
        )
    })
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        anchor(" The JSON report (`--json`, schema 1)"),
        "the-json-report---json-schema-1"
    );
    assert_eq!(
        anchor("Misère quotients: `grundy --rule misere`"),
        "misère-quotients-grundy---rule-misere"
    );
    assert_eq!(
        anchor("Long decimal heaps (`bench/long_decimal.sh`)"),
        "long-decimal-heaps-benchlong_decimalsh"
    );
    let text = "# A\n```sh\n# not a heading\n```\n## A\n#hashtag\n### B, b\n## A\n";
    assert_eq!(anchors(text), ["a", "a-1", "b-b", "a-2"]);
    assert_eq!(
        link_targets("[a](x.md#b) `[c](d)` <!-- [e](f) -->\n![g](h.svg)\n```\n[i](j)\n```\n"),
        ["x.md#b", "h.svg"]
    );
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    let folder = tempfile::tempdir().unwrap();
    let page = folder.path().join("page.md");
    std::fs::write(&page, "# Title\n\n## Two words\n").unwrap();
    assert_eq!(broken(&page, "#two-words"), None);
    assert_eq!(broken(&page, "page.md#title"), None);
    assert_eq!(broken(&page, "https://example.org/#nowhere"), None);
    assert!(broken(&page, "#three-words").is_some());
    assert!(broken(&page, "other.md").is_some());
    assert!(broken(&page, "page.md#two_words").is_some());
}

#[test]
fn every_link_resolves() {
    let mut failures = Vec::new();
    let mut links = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        for target in link_targets(&text) {
            links += 1;
            if let Some(why) = broken(&document, &target) {
                failures.push(format!("{}: ({target}): {why}", document.display()));
            }
        }
    }
    assert!(links > 50, "only {links} links found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
