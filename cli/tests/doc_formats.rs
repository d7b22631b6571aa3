//! docs/formats.md is the CLI's: its `hsi-gpu summary` sample is what the command prints,
//! its Comparison table documents every field with the range and default the CLI applies,
//! and its Report table names every field `hsi-gpu estimate` writes.

mod common;

use common::docs::estimate;
use common::{json, repo_file, run};
use serde_json::Value;

/// docs/formats.md shows the start of `echo '{}' | hsi-gpu summary -`: it is what the
/// command prints, line for line, up to the sample's closing `...`.
#[test]
fn the_formats_summary_sample_is_the_commands_output() {
    let doc = repo_file("docs/formats.md");
    let intro = "The start of `echo '{}' | hsi-gpu summary -`";
    let after = &doc[doc.find(intro).expect("formats.md introduces the sample")..];
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a text block after the introduction");
    let sample: Vec<&str> = block.lines().collect();
    assert_eq!(sample.last(), Some(&"  ..."), "the sample ends with ...");
    let out = run(&["summary", "-"], "{}");
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<&str> = printed.lines().collect();
    let shown = &sample[..sample.len() - 1];
    assert!(
        printed.len() > shown.len(),
        "the sample is longer than the output"
    );
    assert_eq!(
        shown.join("\n"),
        printed[..shown.len()].join("\n"),
        "docs/formats.md's sample is not what `echo '{{}}' | hsi-gpu summary -` prints"
    );
}

/// The section of `doc` from `heading` to the next heading of its level.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading}"));
    let rest = &doc[start + heading.len() + 2..];
    let level = heading.split(' ').next().unwrap();
    match rest.find(&format!("\n{level} ")) {
        Some(end) => &rest[..end],
        None => rest,
    }
}

/// The cells of the table row whose first cell is `` `field` ``.
fn row<'a>(text: &'a str, field: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("| `{field}` |")))
        .unwrap_or_else(|| panic!("no row for `{field}`"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// What `hsi-gpu options` allows, by its one-line error on `document`.
fn allowed(document: &str) -> String {
    let out = run(&["options", "-"], document);
    let err = common::one_line_error(&out);
    err.split("allowed: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"))
        .trim()
        .to_string()
}

/// docs/formats.md's Comparison JSON: a row for every field the reader knows, each
/// range the one the command's error gives, each default the one it takes, the
/// article's options named, and the example accepted.
#[test]
fn the_comparison_format_documents_every_field_with_its_range_and_default() {
    use hsi_gpu_core::compare::{decision::DecisionInputs, CompareOption, Comparison};
    let doc = repo_file("docs/formats.md");
    let text = section(&doc, "## Comparison JSON");
    let mut fields: Vec<String> = Comparison::FIELDS.iter().map(|f| f.to_string()).collect();
    fields.extend(
        CompareOption::FIELDS
            .iter()
            .map(|f| format!("options[].{f}")),
    );
    fields.extend(
        DecisionInputs::FIELDS
            .iter()
            .map(|f| format!("decision.{f}")),
    );
    let mut documented: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    documented.sort();
    fields.sort();
    assert_eq!(documented, fields, "a row per field the reader knows");
    // Ranges, as the errors state them ("an integer from 1 to 64", "one of ...").
    let out_of_range = [
        ("options", r#"{"options": []}"#),
        (
            "options[].label",
            &format!(r#"{{"options": [{{"label": "{}"}}]}}"#, "x".repeat(81)),
        ),
        ("decision.team_size", r#"{"decision": {"team_size": 0}}"#),
        ("decision.priority", r#"{"decision": {"priority": "?"}}"#),
        ("decision.budget_usd", r#"{"decision": {"budget_usd": -1}}"#),
        (
            "decision.ops_hours_per_month",
            r#"{"decision": {"ops_hours_per_month": -1}}"#,
        ),
        (
            "decision.simplicity_margin",
            r#"{"decision": {"simplicity_margin": -1}}"#,
        ),
    ];
    for (field, document) in out_of_range {
        let allowed = allowed(document);
        let range = &row(text, field)[1];
        let said = match allowed.strip_prefix("one of ") {
            Some(ids) => ids
                .split(", ")
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            None => allowed.replace("from 1 to 8 options", "1 to 8 options"),
        };
        assert!(
            range.contains(&said),
            "`{field}`: the CLI allows {allowed}; the doc says {range}"
        );
    }
    // Defaults: the decision inputs' own, and the article's option set by label.
    let defaults = serde_json::to_value(DecisionInputs::default()).unwrap();
    for (key, value) in defaults.as_object().unwrap() {
        let default = row(text, &format!("decision.{key}"))[2];
        let said = match value {
            Value::String(id) => format!("`{id}`"),
            other => other.to_string(),
        };
        assert!(
            default.starts_with(&said),
            "`decision.{key}` defaults to {said}; the doc says {default}"
        );
    }
    let article = json(&run(&["options", "-"], "{}"));
    let labels: Vec<&str> = article["report"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["label"].as_str().unwrap())
        .collect();
    let default = row(text, "options")[2];
    assert!(
        default.contains(&format!(
            "{}: {}",
            count_word(labels.len()),
            labels.join(", ")
        )),
        "the article's options are {labels:?}; the doc says {default}"
    );
    let example = text
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("an example");
    json(&run(&["options", "-"], example));
}

fn count_word(n: usize) -> &'static str {
    [
        "none", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ][n]
}

/// docs/formats.md's Report table names every field `hsi-gpu estimate` writes, at the
/// top and in `memory`, `layers[]`, `lever_baseline`, `levers[]`, `inference` and
/// `parallel` (a field added to the Report fails here until it is documented).
#[test]
fn the_report_table_names_every_field_the_estimate_writes() {
    let doc = repo_file("docs/formats.md");
    let text = section(&doc, "## Report JSON");
    let report =
        estimate(r#"{"model": {"kind": "preset", "id": "vit", "size": "small"}, "patch": 32}"#);
    let default = estimate("{}");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let first_cells: String = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l[2..].split(" | ").next())
        .collect::<Vec<_>>()
        .join(" ");
    let mut missing = Vec::new();
    for key in keys(&default) {
        if ![format!("`{key}`"), format!("`{key}[]`")]
            .iter()
            .any(|k| first_cells.contains(k.as_str()))
        {
            missing.push(key);
        }
    }
    let mut layer_keys: Vec<String> = Vec::new();
    for r in [&default, &report] {
        for l in r["layers"].as_array().unwrap() {
            layer_keys.extend(keys(l));
        }
    }
    layer_keys.sort();
    layer_keys.dedup();
    let parts: [(&str, Vec<String>); 6] = [
        ("memory", keys(&default["memory"])),
        ("layers[]", layer_keys),
        ("lever_baseline", keys(&default["lever_baseline"])),
        ("levers[]", keys(&default["levers"][0])),
        ("inference", keys(&default["inference"])),
        ("parallel", keys(&default["parallel"])),
    ];
    for (part, fields) in parts {
        let cells = row(text, part).join(" | ");
        for key in fields {
            let named = [format!("`{key}`"), format!("`{key}[]`")]
                .iter()
                .any(|k| cells.contains(k.as_str()))
                || text.contains(&format!("`{part}.{key}`"));
            if !named {
                missing.push(format!("{part}.{key}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/formats.md's Report table should name {missing:?}"
    );
}
