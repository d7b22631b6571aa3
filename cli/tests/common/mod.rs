//! Helpers shared by the CLI's integration tests.
// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

pub mod docs;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `hsi-gpu ARGS` with `stdin` on its standard input.
pub fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hsi-gpu"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // A command refused on its arguments exits without reading its input: a broken pipe
    // then is its answer, not the test's failure.
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// The command's stdout as JSON, after checking it succeeded.
pub fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// The one-line error of a command that failed with status 2.
pub fn one_line_error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

/// A file of the repository by its path from the top (`README.md`, `docs/guide.md`).
pub fn repo_file(path: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// A file of the repository with each run of white space as one space: a sentence of
/// prose, wherever its lines wrap.
pub fn repo_prose(path: &str) -> String {
    repo_file(path)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Chinese file of the repository with its lines joined: Chinese prose wraps between
/// characters, where no space belongs.
pub fn repo_prose_zh(path: &str) -> String {
    repo_file(path).lines().map(str::trim).collect()
}
