//! Files that fit in a head: no Rust or Python source in the repository is over
//! `MAX_LINES` lines (tests and fixtures aside).

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

/// Folders that hold no source of ours (tools/.venv: PyTorch's environment), or only
/// tests and fixtures.
const SKIPPED_DIRS: [&str; 9] = [
    "target",
    ".venv",
    "node_modules",
    "dist",
    "dist-single",
    ".git",
    "tests",
    "fixtures",
    "benches",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str())
                && !name.starts_with('.')
                && !path.is_symlink()
            {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".py") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 50, "{} sources found", files.len());
    let over: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let relative = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{relative}: {lines} lines"))
        })
        .collect();
    assert!(over.is_empty(), "over {MAX_LINES} lines: {over:#?}");
}
