//! Importing Scenario, Comparison and custom layer-list JSON: errors name the field and
//! the line; random, truncated and hostile input gives an error, never a panic, in
//! bounded time.

use std::time::{Duration, Instant};

use hsi_gpu_core::build_model;
use hsi_gpu_core::compare::import::{
    import_any, import_comparison, import_model_spec, import_scenario, Imported,
};
use hsi_gpu_core::compare::Comparison;
use hsi_gpu_core::scenario::{Scenario, MAX_JSON_BYTES};
use proptest::prelude::*;

/// Line (from 1) of the `nth` (from 0) occurrence of `needle`.
fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    let (at, _) = text.match_indices(needle).nth(nth).unwrap();
    text[..at].matches('\n').count() + 1
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

/// Limit on one import, far above what a valid document takes; catches runaway loops.
const SLOW: Duration = Duration::from_secs(5);

#[test]
fn exported_json_imports_back_to_the_same_values() {
    let s = Scenario::default();
    assert_eq!(import_scenario(&pretty(&s)).unwrap(), s);
    let c = Comparison::default();
    assert_eq!(import_comparison(&pretty(&c)).unwrap(), c);
    let spec = build_model(&s).unwrap();
    assert_eq!(import_model_spec(&pretty(&spec)).unwrap(), spec);
}

#[test]
fn any_document_is_recognised_by_its_keys() {
    let s = Scenario::default();
    let c = Comparison::default();
    let spec = build_model(&s).unwrap();
    assert_eq!(import_any(&pretty(&c)).unwrap(), Imported::Comparison(c));
    assert_eq!(
        import_any(&pretty(&spec)).unwrap(),
        Imported::ModelSpec(spec)
    );
    assert_eq!(
        import_any(&pretty(&s)).unwrap(),
        Imported::Scenario(Box::new(s))
    );
    assert_eq!(
        import_any("{}").unwrap(),
        Imported::Scenario(Box::default())
    );
    assert!(import_any("{\"options\": 3}").unwrap_err()[0]
        .error
        .field
        .starts_with("options"));
}

/// Windows editors start a saved file with a byte-order mark, and it comes along when
/// the text is copied: pasted or loaded, the document reads as without it, and an error
/// keeps its line.
#[test]
fn a_byte_order_mark_before_the_document_is_ignored() {
    let s = Scenario::default();
    let c = Comparison::default();
    let spec = build_model(&s).unwrap();
    let bom = |text: String| format!("\u{feff}{text}");
    assert_eq!(
        import_any(&bom(pretty(&c))).unwrap(),
        Imported::Comparison(c)
    );
    assert_eq!(
        import_any(&bom(pretty(&spec))).unwrap(),
        Imported::ModelSpec(spec)
    );
    assert_eq!(
        import_any(&bom(pretty(&s))).unwrap(),
        Imported::Scenario(Box::new(s))
    );
    let e = &import_any("\u{feff}{\n  \"bands\": \"many\"\n}").unwrap_err()[0];
    assert_eq!((e.error.field.as_str(), e.line), ("bands", Some(2)));
}

#[test]
fn a_type_error_names_the_field_and_its_line() {
    let text = pretty(&Scenario::default()).replace("\"patch\": 25", "\"patch\": \"big\"");
    let e = &import_scenario(&text).unwrap_err()[0];
    assert_eq!(e.error.field, "patch");
    assert_eq!(e.line, Some(line_of(&text, "\"patch\"", 0)));
}

#[test]
fn a_type_error_inside_a_comparison_option_names_the_field() {
    let text = pretty(&Comparison::default()).replacen(
        "\"batch_per_gpu\": 64",
        "\"batch_per_gpu\": \"many\"",
        1,
    );
    let e = &import_comparison(&text).unwrap_err()[0];
    assert_eq!(e.error.field, "options[0].scenario.batch_per_gpu");
    assert_eq!(e.line, Some(line_of(&text, "\"many\"", 0)));
    assert!(e.error.value.contains("many"), "{e}");
}

#[test]
fn a_syntax_error_gives_its_line() {
    let text = pretty(&Scenario::default()).replace("\"bands\": 30,", "\"bands\": 30,,");
    let e = &import_scenario(&text).unwrap_err()[0];
    assert_eq!(e.line, Some(line_of(&text, ",,", 0)));
    assert!(e.error.value.starts_with("unexpected `,` at line"), "{e}");
}

/// A syntax error says what stands where serde_json stopped (its column counts bytes, so
/// a line with Chinese text before it still finds the character), or that the text ended.
#[test]
fn a_syntax_error_names_what_stands_there() {
    for (text, said) in [
        (
            "{\"bands\": [1, 2\n 3]}",
            "unexpected `3` at line 2 column 2",
        ),
        (
            "{\"label\": \"方案\", x}",
            "unexpected `x` at line 1 column 21",
        ),
        ("{'bands': 3}", "unexpected `'` at line 1 column 2"),
        ("{\"bands\": 3,}", "unexpected `}` at line 1 column 13"),
        (
            "{\"bands\": ",
            "the text ends before the JSON does at line 1 column 10",
        ),
        (
            "{\n",
            "the text ends before the JSON does at line 2 column 0",
        ),
    ] {
        let e = &import_scenario(text).unwrap_err()[0];
        assert_eq!(e.error.value, said, "{text}");
    }
}

#[test]
fn an_out_of_range_value_points_at_its_line() {
    let text = pretty(&Scenario::default()).replace("\"epochs\": 100", "\"epochs\": 0");
    let e = &import_scenario(&text).unwrap_err()[0];
    assert_eq!(e.error.field, "workload.epochs");
    assert_eq!(e.line, Some(line_of(&text, "\"epochs\"", 0)));
}

#[test]
fn a_bad_option_in_a_comparison_points_at_that_option() {
    let mut c = Comparison::default();
    c.options[3].scenario.patch = 0;
    let text = pretty(&c);
    let errors = import_comparison(&text).unwrap_err();
    assert!(!errors.is_empty());
    for e in errors {
        // Out of range, and too small for HybridSN: both at the fourth option's "patch".
        assert_eq!(e.error.field, "options[3].scenario.patch");
        assert_eq!(e.line, Some(line_of(&text, "\"patch\"", 3)));
    }
}

#[test]
fn a_bad_layer_points_at_that_layer() {
    let mut spec = build_model(&Scenario::default()).unwrap();
    let text = pretty(&spec);
    assert!(import_model_spec(&text).is_ok());
    // A 99x99 kernel cannot run over a 25x25 patch.
    let bad = 2;
    if let hsi_gpu_core::graph::Op::Conv { kernel, .. } = &mut spec.layers[bad].op {
        *kernel = vec![3, 99, 99];
    } else {
        panic!("layer {bad} of HybridSN is a convolution");
    }
    let text = pretty(&spec);
    let e = &import_model_spec(&text).unwrap_err()[0];
    assert!(
        e.error.field.starts_with(&format!("layers[{bad}]")),
        "{}",
        e.error.field
    );
    // Pretty-printed, each layer opens on a line of its own, indented 4 spaces.
    let layers_line = line_of(&text, "\"layers\"", 0);
    let element_lines: Vec<usize> = (1..=text.lines().count())
        .zip(text.lines())
        .filter(|(n, line)| *n > layers_line && *line == "    {")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(e.line, Some(element_lines[bad]));
}

#[test]
fn unknown_fields_and_non_objects_are_refused() {
    let e = &import_scenario("{\"patchh\": 5}").unwrap_err()[0];
    assert!(e.error.value.contains("patchh"), "{e}");
    for text in ["", "[]", "42", "null", "\"x\""] {
        assert_eq!(
            import_comparison(text).unwrap_err()[0].error.field,
            "(document)"
        );
        assert_eq!(
            import_model_spec(text).unwrap_err()[0].error.field,
            "(document)"
        );
    }
}

#[test]
fn deep_nesting_and_huge_documents_fail_fast() {
    let deep = format!(
        "{{\"options\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let layers = format!(
        "{{\"layers\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let huge = format!("{{\"name\": \"{}\"}}", "x".repeat(MAX_JSON_BYTES));
    for text in [&deep, &layers, &huge] {
        let start = Instant::now();
        assert!(import_comparison(text).is_err());
        assert!(import_model_spec(text).is_err());
        assert!(import_scenario(text).is_err());
        assert!(start.elapsed() < SLOW);
    }
}

/// Absurd layer sizes (products past u64) are a field error from the analysis, not a
/// panic or wrapped garbage.
#[test]
fn a_model_with_absurd_sizes_is_an_error_not_a_panic() {
    for (field, value) in [
        ("out_features", "18446744073709551615"),
        ("out_features", "4294967296000"),
        ("out_features", "0"),
    ] {
        let text = format!(
            "{{\"name\": \"m\", \"input\": [200], \"layers\": [{{\"op\": \"linear\", \"{field}\": {value}}}]}}"
        );
        let start = Instant::now();
        let _ = import_model_spec(&text);
        assert!(start.elapsed() < SLOW);
    }
    let wide_input = "{\"name\": \"m\", \"input\": [4294967296, 4294967296, 4294967296], \"layers\": [{\"op\": \"flatten\"}]}";
    let _ = import_model_spec(wide_input);
}

fn valid_documents() -> Vec<String> {
    vec![
        pretty(&Scenario::default()),
        pretty(&Comparison::default()),
        pretty(&build_model(&Scenario::default()).unwrap()),
    ]
}

fn import_all(text: &str) {
    let start = Instant::now();
    let _ = import_any(text);
    let _ = import_scenario(text);
    let _ = import_comparison(text);
    let _ = import_model_spec(text);
    assert!(
        start.elapsed() < SLOW,
        "{} bytes took {:?}",
        text.len(),
        start.elapsed()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in ".{0,300}") {
        import_all(&text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        import_all(&String::from_utf8_lossy(&bytes));
    }

    /// Every truncation of a valid document is an error with a position, not a panic.
    #[test]
    fn truncated_documents_are_errors(doc in 0usize..3, cut in 0.0f64..1.0) {
        let text = &valid_documents()[doc];
        let mut at = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(at) { at -= 1; }
        let truncated = &text[..at];
        let errors = [
            import_scenario(truncated).err(),
            import_comparison(truncated).err(),
            import_model_spec(truncated).err(),
        ];
        for e in errors.into_iter().flatten() {
            prop_assert!(!e.is_empty() && !e[0].error.field.is_empty());
        }
    }

    /// Any number in place of any number of a Scenario or Comparison: a located error
    /// or a valid import.
    #[test]
    fn hostile_numbers_give_errors(doc in 0usize..2, nth in 0usize..400, value in hostile_number()) {
        check_hostile_number(doc, nth, &value)?;
    }

    /// The same in a custom layer list.
    #[test]
    fn hostile_numbers_in_layer_lists_give_errors(nth in 0usize..400, value in hostile_number()) {
        check_hostile_number(2, nth, &value)?;
    }
}

fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("-0".to_string()),
        Just("18446744073709551616".to_string()),
        Just("4294967296".to_string()),
        Just("null".to_string()),
        Just("[[[[[]]]]]".to_string()),
        Just("{}".to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
    ]
}

fn check_hostile_number(doc: usize, nth: usize, value: &str) -> Result<(), TestCaseError> {
    let text = &valid_documents()[doc];
    let numbers = number_spans(text);
    let (start, end) = numbers[nth % numbers.len()];
    let mutated = format!("{}{}{}", &text[..start], value, &text[end..]);
    let begin = Instant::now();
    let results = [
        import_scenario(&mutated).err(),
        import_comparison(&mutated).err(),
        import_model_spec(&mutated).err(),
    ];
    prop_assert!(begin.elapsed() < SLOW);
    for errors in results.into_iter().flatten() {
        for e in errors {
            prop_assert!(!e.error.field.is_empty() && !e.error.allowed.is_empty());
            if let Some(line) = e.line {
                prop_assert!(line >= 1 && line <= mutated.lines().count().max(1));
            }
        }
    }
    Ok(())
}

/// Byte spans of the numbers in a JSON document (outside strings).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b"-+.eE".contains(&b[i])) {
                i += 1;
            }
            spans.push((start, i));
            continue;
        }
        i += 1;
    }
    spans
}
