//! Reading the repository's files as the doc-figure tests do. Shared by the core's and
//! the CLI's tests (both crates sit one folder below the top: `CARGO_MANIFEST_DIR/..`).

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
