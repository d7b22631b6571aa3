//! Core modules import downward only: the order written in ARCHITECTURE.md (bottom first)
//! is the law, every module must be in it, and no module may import one listed after it.
//! With every import pointing down there can be no circle.

use std::collections::BTreeSet;
use std::path::Path;

/// The module order from ARCHITECTURE.md: the first word of each line of the layers block.
fn written_order() -> Vec<String> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md at the repository top");
    let start = text.find("<!-- layers").expect("a layers block");
    let end = text
        .find("<!-- /layers -->")
        .expect("the end of the layers block");
    text[start..end]
        .lines()
        .skip(1)
        .filter(|line| !line.starts_with("```") && !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .map(String::from)
        .collect()
}

/// Every .rs file under `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The crate items a file names: `X` of every `crate::X` and of `crate::{X, Y::..}`, and in
/// lib.rs the `X` of `use X::...` (the root names its modules without `crate::`).
fn imports(code: &str, is_root: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (at, _) in line.match_indices("crate::") {
            if at > 0 && line[..at].ends_with(|c: char| is_ident(c)) {
                continue; // e.g. `hsi_gpu_core::`, not `crate::`
            }
            let rest = &line[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name: String = item.trim().chars().take_while(|c| is_ident(*c)).collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                out.insert(name);
            }
        }
        let trimmed = line.trim_start();
        if is_root {
            if let Some(rest) = trimmed
                .strip_prefix("use ")
                .or(trimmed.strip_prefix("pub use "))
            {
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn core_modules_import_downward_only() {
    let order = written_order();
    assert!(order.len() > 10, "{order:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap();
        let module = first.as_os_str().to_str().unwrap().trim_end_matches(".rs");
        let Some(level) = order.iter().position(|m| m == module) else {
            panic!(
                "core/src/{} is not in ARCHITECTURE.md's layers",
                relative.display()
            );
        };
        let code = std::fs::read_to_string(file).unwrap();
        for name in imports(&code, module == "lib") {
            // A name that is not a module is an item of lib.rs (`crate::estimate`).
            let target = order.iter().position(|m| *m == name).unwrap_or_else(|| {
                order
                    .iter()
                    .position(|m| m == "lib")
                    .expect("lib in the layers")
            });
            if target > level {
                upward.push(format!("{} -> {}", relative.display(), order[target]));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the written order: {upward:#?}"
    );
}

#[test]
fn the_import_reader_sees_every_form() {
    let code = "use crate::scenario::{A, B};\nuse crate::{estimate, memory::budget};\n\
                fn f() { crate::gpu::gpu_by_id(\"x\"); hsi_gpu_crate::nothing(); }\n\
                // crate::commented\n";
    let names: Vec<String> = imports(code, false).into_iter().collect();
    assert_eq!(names, ["estimate", "gpu", "memory", "scenario"]);
    assert!(imports("use graph::ModelSpec;", true).contains("graph"));
}
