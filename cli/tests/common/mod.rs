//! Helpers shared by the CLI's integration tests.
// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

pub mod docs;
#[path = "../../../core/tests/common/repo.rs"]
mod repo;
#[allow(unused_imports)] // Each test crate uses part of it.
pub use repo::{repo_file, repo_prose, repo_prose_zh};

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
