//! Helpers shared by the CLI's integration tests.

use std::process::Output;

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
