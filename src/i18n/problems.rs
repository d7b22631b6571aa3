//! The core's field errors (`FieldError`, and `ImportError` with its line) in the page's
//! words: the common frames (an empty text, not one JSON object, not valid JSON, a field
//! that does not exist, a value out of range) in the reader's language, each field by its
//! label rather than its JSON path. The field and the allowed range come from the error
//! itself; the command line keeps the core's own text, with its pointer to docs/formats.md
//! (which a web reader cannot open).

use hsi_gpu_core::compare::import::ImportError;
use hsi_gpu_core::FieldError;

use crate::compare::C;
use crate::{allowed_text, field_name, Lang};

texts! {
    /// A frame of an import or field error.
    enum P;
    Empty => "It is empty: paste or load one JSON object.", "内容为空：请粘贴或载入一个 JSON 对象。";
    NotObject => "This is not one JSON object ({ … }): a scenario, a comparison or a model's layer list.",
        "这不是一个 JSON 对象（{ … }）：应为场景、方案对比或模型层列表。";
    NotJson => "Not valid JSON", "不是有效的 JSON";
    UnknownField => "not a field here", "此处没有这个字段";
    Whole => "The document", "整个文件";
}

/// A field by its label: a comparison option's field under its option ("Option 2 · Batch
/// per GPU"), a decision input by its box's label, a scenario's by `field_name`.
fn field_words(path: &str, lang: Lang) -> String {
    if path == "(document)" {
        return P::Whole.get(lang).into();
    }
    if let Some((index, field)) = path
        .strip_prefix("options[")
        .and_then(|rest| rest.split_once("]."))
    {
        let option = index.parse::<usize>().map_or(0, |i| i + 1);
        let field = match field.strip_prefix("scenario.") {
            Some(scenario_field) => field_name(scenario_field, lang),
            None if field == "label" => C::Label.get(lang).into(),
            None => field.into(),
        };
        return format!("{} {option} · {field}", C::OptionWord.get(lang));
    }
    let decision = match path.strip_prefix("decision.") {
        Some("team_size") => C::TeamSize,
        Some("priority") => C::Goal,
        Some("budget_usd") => C::Budget,
        Some("ops_hours_per_month") => C::OpsHours,
        _ => return field_name(path, lang),
    };
    decision.get(lang).into()
}

/// "Batch per GPU: got 0; allowed: an integer from 1 to 1048576", in the reader's language.
pub fn field_error_text(e: &FieldError, lang: Lang) -> String {
    let (field, colon) = (field_words(&e.field, lang), lang.colon());
    if e.value.starts_with("unknown field `") {
        return format!("{field}{colon}{}", P::UnknownField.get(lang));
    }
    let allowed = allowed_text(lang, &e.allowed);
    match lang {
        Lang::En => format!("{field}: got {}; allowed: {allowed}", e.value),
        Lang::Zh => format!("{field}：当前值 {}；允许：{allowed}", e.value),
    }
}

/// An import's error, where it is ("line 3, column 5: ...") and what is wrong, for `text`,
/// the text that was read.
pub fn import_error_text(e: &ImportError, text: &str, lang: Lang) -> String {
    let what = &e.error;
    let whole = what.field == "(document)";
    let body = if text.trim().is_empty() {
        P::Empty.get(lang).into()
    } else if whole && what.value == "not a JSON object" {
        P::NotObject.get(lang).into()
    } else if whole && what.allowed.starts_with("one JSON object") {
        // serde_json's words for a syntax error are English: the Chinese page says where.
        // They end with where, which the line and column below already say.
        let words = what.value.split(" at line ").next().unwrap_or_default();
        match lang {
            Lang::En => format!("{}: {words}", P::NotJson.get(lang)),
            Lang::Zh => P::NotJson.get(lang).into(),
        }
    } else {
        field_error_text(what, lang)
    };
    match (e.line, e.column, lang) {
        (Some(l), Some(c), Lang::En) => format!("line {l}, column {c}: {body}"),
        (Some(l), Some(c), Lang::Zh) => format!("第 {l} 行第 {c} 列：{body}"),
        _ => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsi_gpu_core::compare::import::import_any;

    fn errors(text: &str, lang: Lang) -> Vec<String> {
        let errors = import_any(text).expect_err(text);
        errors
            .iter()
            .map(|e| import_error_text(e, text, lang))
            .collect()
    }

    #[test]
    fn every_frame_exists_in_both_languages() {
        for p in P::ALL {
            assert_ne!(p.get(Lang::En), p.get(Lang::Zh), "{p:?}");
        }
    }

    #[test]
    fn the_common_import_errors_speak_the_readers_language_without_json_paths() {
        let comparison = r#"{"options": [{"label": "a", "scenario": {"batch_per_gpu": 0}}],
            "decision": {"team_size": 99}}"#;
        for (text, en, zh) in [
            ("", "It is empty", "内容为空"),
            ("  \n", "It is empty", "内容为空"),
            ("[1, 2]", "not one JSON object", "不是一个 JSON 对象"),
            ("{\"bands\": ", "Not valid JSON", "不是有效的 JSON"),
            (
                "{\"bands\": [1, 2\n 3]}",
                "line 2, column 2: Not valid JSON: unexpected `3`",
                "第 2 行第 2 列：不是有效的 JSON",
            ),
            (
                "{\"bandz\": 200}",
                "bandz: not a field here",
                "bandz：此处没有这个字段",
            ),
            (
                "{\"batch_per_gpu\": 0}",
                "Batch per GPU: got 0; allowed: an integer from 1",
                "每卡批大小：当前值 0；允许：1 到",
            ),
            (
                comparison,
                "Option 1 · Batch per GPU: got 0",
                "方案 1 · 每卡批大小：当前值 0",
            ),
            (
                comparison,
                "Team size (people, each running a sweep): got 99",
                "团队人数",
            ),
            // Ids listed with the list comma of each language (an enum's: "one of" too).
            (
                "{\"precision\": \"fp8\"}",
                "allowed: one of torch_default, fp32, ",
                "以下之一：torch_default、fp32、",
            ),
            (
                "{\"gpu\": \"gtx_480\"}",
                "allowed: rtx_3090, rtx_3090_ti, ",
                "允许：rtx_3090、rtx_3090_ti、",
            ),
            // The readers' kinds of value, in words in both languages.
            ("{\"options\": 5}", "allowed: a list", "允许：列表"),
            (
                "{\"ecc\": 1}",
                "allowed: true or false",
                "允许：true 或 false",
            ),
            // A whole number without a range of its own: no type limit (2^64 - 1) shown.
            (
                r#"{"name": "m", "input": [8], "layers": [{"op": "linear", "out_features": -32}]}"#,
                "allowed: a whole number, 0 or more",
                "允许：非负整数",
            ),
        ] {
            let en_text = errors(text, Lang::En).join("; ");
            let zh_text = errors(text, Lang::Zh).join("; ");
            assert!(
                !en_text.contains(" at line"),
                "where, said twice: {en_text}"
            );
            assert!(en_text.contains(en), "{text}: {en_text}");
            assert!(zh_text.contains(zh), "{text}: {zh_text}");
            for shown in [&en_text, &zh_text] {
                assert!(!shown.contains("docs/formats.md"), "{shown}");
                assert!(
                    !shown.contains("(document)") && !shown.contains("options["),
                    "{shown}"
                );
            }
            for english in ["got", "allowed", "line", "empty", "field"] {
                assert!(!zh_text.contains(english), "{text}: {zh_text}");
            }
        }
    }
}
