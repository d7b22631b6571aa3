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
    let mut out = names_after(code, "crate::");
    if is_root {
        for line in code.lines() {
            let trimmed = line.split("//").next().unwrap_or("").trim_start();
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

/// The names that follow `prefix` (`crate::`, `super::`) in code: `X` of `prefix X` and
/// of `prefix {X, Y::..}`, comments left out.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (at, _) in line.match_indices(prefix) {
            if at > 0 && line[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                continue; // e.g. `hsi_gpu_core::`, not `crate::`; `super::super::`
            }
            let rest = &line[at + prefix.len()..];
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
                // `super::super::` names the grandparent, outside this folder.
                if name != "super" {
                    out.insert(name);
                }
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

/// Inside a module folder (`analysis/`, `zoo/`, ...) the files import each other without a
/// circle. (The folder's root, `mod.rs` or the `<folder>.rs` beside it, declares them and
/// holds the types they share; it is not part of the order.)
#[test]
fn files_inside_a_module_folder_import_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut problems = Vec::new();
    let mut folders: Vec<&Path> = files
        .iter()
        .filter_map(|f| f.parent())
        .filter(|d| *d != src)
        .collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        let module_path = folder
            .strip_prefix(&src)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_str().unwrap())
            .collect::<Vec<_>>()
            .join("::");
        let siblings: Vec<String> = files
            .iter()
            .filter(|f| f.parent() == Some(folder))
            .map(|f| f.file_stem().unwrap().to_str().unwrap().to_string())
            .filter(|name| name != "mod")
            .collect();
        let mut edges: Vec<(String, String)> = Vec::new();
        for file in &siblings {
            let code = std::fs::read_to_string(folder.join(format!("{file}.rs"))).unwrap();
            let names = names_after(&code, "super::")
                .into_iter()
                .chain(names_after(&code, &format!("crate::{module_path}::")));
            for name in names {
                if siblings.contains(&name) {
                    edges.push((file.clone(), name));
                }
            }
        }
        if let Some(circle) = find_circle(&siblings, &edges) {
            problems.push(format!("{module_path}: {}", circle.join(" -> ")));
        }
    }
    assert!(
        problems.is_empty(),
        "imports against the folder's order: {problems:#?}"
    );
}

/// A circle in the graph, as the names along it, if there is one (depth-first search).
fn find_circle(nodes: &[String], edges: &[(String, String)]) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &[(String, String)],
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for (_, to) in edges.iter().filter(|(from, _)| from == node) {
            if let Some(circle) = visit(to, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    nodes
        .iter()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_circle_finder_finds_circles_and_only_circles() {
    let nodes: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let edge = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        find_circle(&nodes, &[edge("a", "b"), edge("b", "c"), edge("a", "c")]),
        None
    );
    assert_eq!(
        find_circle(&nodes, &[edge("a", "b"), edge("b", "c"), edge("c", "a")]),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
    let names: Vec<String> = names_after(
        "use super::{ctx::Ctx, base};\nsuper::ops::bad(); super::super::x",
        "super::",
    )
    .into_iter()
    .collect();
    assert_eq!(names, ["base", "ctx", "ops"]);
}
