//! The core stays pure: no browser, UI or JS dependency, so it builds and tests natively
//! and the same code serves the CLI and the web app.

const FORBIDDEN: [&str; 6] = [
    "yew",
    "web-sys",
    "web_sys",
    "gloo",
    "js-sys",
    "wasm-bindgen",
];

#[test]
fn core_depends_on_no_ui_or_browser_crate() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("a [dependencies] table")
        .split("\n[")
        .next()
        .unwrap();
    for name in FORBIDDEN {
        assert!(!deps.contains(name), "core depends on {name}");
    }
}

#[test]
fn core_sources_import_no_ui_or_browser_crate() {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut stack = vec![std::path::PathBuf::from(src)];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for name in FORBIDDEN {
                    let krate = name.replace('-', "_");
                    assert!(
                        !text.contains(&format!("{krate}::")),
                        "{} uses {krate}",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(files > 5, "walked the sources");
}
