//! Sentences with figures (pre-formatted by the caller).

use super::Lang;
use hsi_gpu_core::format;

/// Tooltip of a roofline point; `ridge` where its compute and memory times meet, at the
/// rate its kernels reach.
pub fn roofline_point_sentence(
    lang: Lang,
    label: &str,
    intensity: &str,
    rate: &str,
    bound: &str,
    ridge: Option<&str>,
) -> String {
    let ridge = match (ridge, lang) {
        (None, _) => String::new(),
        (Some(r), Lang::En) => format!(" (its ridge, at the rate its kernels reach: {r})"),
        (Some(r), Lang::Zh) => format!("（按其内核可达算力，拐点为 {r}）"),
    };
    match lang {
        Lang::En => format!("{label}: {intensity}, {rate}; {bound}{ridge}."),
        Lang::Zh => format!("{label}：{intensity}，{rate}；{bound}{ridge}。"),
    }
}

/// Items in a sentence: "a, b, c"; in Chinese with the enumeration comma, "a、b、c".
pub fn enumerated(lang: Lang, items: &[&str]) -> String {
    items.join(match lang {
        Lang::En => ", ",
        Lang::Zh => "、",
    })
}

/// Groups in a sentence: "a; b", "a；b".
pub fn grouped(lang: Lang, groups: &[String]) -> String {
    groups.join(match lang {
        Lang::En => "; ",
        Lang::Zh => "；",
    })
}

/// "Run (100 epochs)".
pub fn run_time_label(lang: Lang, epochs: u32) -> String {
    match lang {
        Lang::En => format!("Run ({epochs} epochs)"),
        Lang::Zh => format!("整次训练（{epochs} 轮）"),
    }
}

/// "One step takes 8.9 ms: the GPU 5.5 ms, the host 1.1 ms, the input pipeline 3.4 ms
/// (18,900 samples/s on its own); the GPU bounds it." (`extras`: what the cards add, each
/// after its comma).
#[allow(clippy::too_many_arguments)]
pub fn step_parts_sentence(
    lang: Lang,
    step: &str,
    device: &str,
    host: &str,
    input: &str,
    input_rate: &str,
    extras: &str,
    bound: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "One step takes {step}: the GPU {device}, the host {host}, the input pipeline {input} ({input_rate} samples/s on its own){extras}; {bound} bounds it."
        ),
        Lang::Zh => format!(
            "单步 {step}：显卡 {device}，主机 {host}，输入管线 {input}（单独每秒 {input_rate} 个样本）{extras}；瓶颈在{bound}。"
        ),
    }
}

/// Where the step's time goes.
pub fn step_breakdown_sentence(
    lang: Lang,
    forward: &str,
    backward: &str,
    optimizer: &str,
    allreduce: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "Per micro-step: forward {forward}, backward {backward}; optimizer update {optimizer}; all-reduce not hidden by backward {allreduce}."
        ),
        Lang::Zh => format!(
            "每个微步：前向 {forward}，反向 {backward}；优化器更新 {optimizer}；未被反向掩盖的 all-reduce {allreduce}。"
        ),
    }
}

/// "The step is memory-bound." from the kind of pass that takes most of its time.
pub fn step_bound_sentence(lang: Lang, bound: &str) -> String {
    match lang {
        Lang::En => format!("Most of the step is {bound}."),
        Lang::Zh => format!("训练步的大部分时间{bound}。"),
    }
}

/// "With NVLink bridge (pairs) the step would take 41 ms instead of 42 ms."
pub fn alternative_sentence(lang: Lang, topology: &str, other: &str, chosen: &str) -> String {
    match lang {
        Lang::En => format!("With {topology} the step would take {other} instead of {chosen}."),
        Lang::Zh => format!("若使用 {topology}，单步时间为 {other}（当前 {chosen}）。"),
    }
}

/// "fits with 31 % headroom on RTX A5500" / "does not fit on RTX A5500 (needs 27.1 GiB of 24 GiB)".
pub fn fit_sentence(
    lang: Lang,
    fits: bool,
    gpu: &str,
    headroom: &str,
    total: &str,
    capacity: &str,
    asked: Option<&str>,
) -> String {
    match (lang, fits, asked) {
        (Lang::En, true, None) => format!(
            "Fits with {headroom} headroom on {gpu} ({total} of {capacity}: reserved peak + CUDA context)."
        ),
        (Lang::Zh, true, None) => {
            format!("可以放进 {gpu}，余量 {headroom}（{total} / {capacity}：已保留峰值 + CUDA 上下文）。")
        }
        (Lang::En, true, Some(asked)) => format!(
            "Fits on {gpu}, but with only {headroom} headroom, less than the {asked} asked ({total} of {capacity}: reserved peak + CUDA context)."
        ),
        (Lang::Zh, true, Some(asked)) => format!(
            "可以放进 {gpu}，但余量只有 {headroom}，低于要求的 {asked}（{total} / {capacity}：已保留峰值 + CUDA 上下文）。"
        ),
        (Lang::En, false, _) => format!(
            "Does not fit on {gpu}: needs {total} of {capacity} (reserved peak + CUDA context). The times and costs below are for a step that would run out of memory."
        ),
        (Lang::Zh, false, _) => {
            format!("放不进 {gpu}：需要 {total}（已保留峰值 + CUDA 上下文），容量 {capacity}。下面的时间与成本对应的是一个会显存不足的单步。")
        }
    }
}

/// A step that fits only because the caching allocator gave its cache back at the card's
/// limit: its total looks spare, but the card holds no headroom.
pub fn at_limit_sentence(
    lang: Lang,
    gpu: &str,
    total: &str,
    capacity: &str,
    asked: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "Fits on {gpu} only at the card's limit, where PyTorch hands its cached memory back ({total} of {capacity}: reserved peak + CUDA context): less than the {asked} headroom asked."
        ),
        Lang::Zh => format!(
            "只有在显存用到上限、PyTorch 交还缓存后才能放进 {gpu}（{total} / {capacity}：已保留峰值 + CUDA 上下文），余量低于要求的 {asked}。"
        ),
    }
}

/// "The largest batch that fits with the 20 % headroom kept is 212."
pub fn max_batch_sentence(lang: Lang, headroom: &str, max_batch: u32) -> String {
    match (lang, max_batch) {
        (Lang::En, 0) => format!("Not even batch 1 fits with {headroom} headroom kept."),
        (Lang::Zh, 0) => format!("保留 {headroom} 余量时连批大小 1 也放不下。"),
        (Lang::En, n) => format!(
            "The largest batch per GPU with {headroom} headroom kept is {}.",
            format::count(n.into())
        ),
        (Lang::Zh, n) => format!(
            "保留 {headroom} 余量时，每卡最大批大小为 {}。",
            format::count(n.into())
        ),
    }
}

/// A constant calibration left alone, and why (the reason is the core's, in English).
pub fn not_fitted_sentence(lang: Lang, label: &str, why: &str) -> String {
    match lang {
        Lang::En => format!("{label}: not fitted ({why})."),
        Lang::Zh => format!("{label}：未拟合（{why}）。"),
    }
}

/// Under a custom model: its layer list fixes the input, whatever the sliders say.
pub fn custom_model_note(lang: Lang, input: &str) -> String {
    match lang {
        Lang::En => format!(
            "The layer list fixes the input shape {input}: bands, patch and classes do not change the model (export it again for another geometry)."
        ),
        Lang::Zh => format!(
            "层列表固定了输入形状 {input}：波段数、空间块大小与类别数不会改变模型（如需其他尺寸请重新导出）。"
        ),
    }
}

pub fn could_not_read_sentence(lang: Lang, source: &str) -> String {
    match lang {
        Lang::En => format!("Could not use {source}:"),
        Lang::Zh => format!("无法使用 {source}："),
    }
}

pub fn cannot_compare_sentence(lang: Lang, source: &str) -> String {
    match lang {
        Lang::En => format!("{source} cannot be compared with this scenario:"),
        Lang::Zh => format!("{source} 无法与此场景对比："),
    }
}

/// What a number box allows, shown under it while it holds a value outside the range.
pub fn allowed_range(lang: Lang, min: u32, max: u32) -> String {
    let (min, max) = (format::count(min.into()), format::count(max.into()));
    match lang {
        Lang::En => format!("Allowed: a whole number from {min} to {max}. Esc restores."),
        Lang::Zh => format!("允许范围：{min} 到 {max} 的整数。按 Esc 恢复。"),
    }
}

/// What a number box that may be left empty allows (an empty box is no limit).
pub fn allowed_range_or_blank(lang: Lang, min: u32, max: u32) -> String {
    let (min, max) = (format::count(min.into()), format::count(max.into()));
    match lang {
        Lang::En => format!(
            "Allowed: a whole number from {min} to {max}, or empty for no limit. Esc restores."
        ),
        Lang::Zh => format!("允许范围：{min} 到 {max} 的整数，留空表示不设上限。按 Esc 恢复。"),
    }
}

/// The core's "allowed" text (`FieldError::allowed`, English) in the reader's language:
/// its usual forms (ranges, "one of") are worded in Chinese, anything else stays as it is.
pub fn allowed_text(lang: Lang, allowed: &str) -> String {
    if let Some(text) = layout_text(lang, allowed) {
        return text;
    }
    if lang == Lang::En {
        return allowed.to_string();
    }
    if let Some(text) = super::limits::limit_text(allowed) {
        return text;
    }
    // "from LO to HI", read word by word (a substring search would cost the page bytes).
    let range = |prefix: &str| {
        let mut words = allowed.strip_prefix(prefix)?.split(' ');
        match (words.next(), words.next(), words.next(), words.next()) {
            (Some(lo), Some("to"), Some(hi), None) => Some((lo.to_string(), hi.to_string())),
            _ => None,
        }
    };
    if let Some((lo, hi)) = range("an integer from ").or_else(|| range("a whole number from ")) {
        format!("{lo} 到 {hi} 的整数")
    } else if let Some((lo, hi)) = range("a number from ") {
        format!("{lo} 到 {hi} 之间的数")
    } else if let Some(ids) = allowed.strip_prefix("one of ") {
        format!("以下之一：{}", ids.replace(", ", "、"))
    } else if allowed.starts_with("a list") {
        "列表".into()
    } else {
        // The JSON readers' other kinds (`core::json`).
        const KINDS: [[&str; 2]; 5] = [
            ["a number", "一个数"],
            ["a whole number, 0 or more", "非负整数"],
            ["a string", "文本"],
            ["true or false", "true 或 false"],
            ["a JSON object", "一个 JSON 对象"],
        ];
        // Else a list of ids (the cards, the datasets), with the Chinese list comma; a
        // sentence (a layer's shape rule) keeps its own commas.
        let ids = allowed.split(", ").all(|id| !id.contains(' '));
        KINDS.iter().find(|[en, _]| *en == allowed).map_or_else(
            || {
                if ids {
                    allowed.replace(", ", "、")
                } else {
                    allowed.to_string()
                }
            },
            |[_, zh]| zh.to_string(),
        )
    }
}

/// The core's reasons a tensor or pipeline layout is refused (`core::parallel`), in the
/// page's words: its labels, not the field names the command line shows.
fn layout_text(lang: Lang, allowed: &str) -> Option<String> {
    let zh = lang == Lang::Zh;
    let node = |cards: &str| match (zh, cards) {
        (true, _) => format!("须整除每个节点的 {cards} 张卡"),
        (false, "1") => "must divide the 1 card per node".to_string(),
        (false, _) => format!("must divide the {cards} cards per node"),
    };
    if let Some((sizes, rest)) = allowed.split_once(": it must divide the ") {
        let (cards, what) = rest.split_once(" cards per node")?;
        let what = match what.strip_prefix(" and the ") {
            Some(what) if zh => {
                let (kind, layer) = what.split_once(" of ")?;
                let kind = if kind == "heads" {
                    "注意力头数"
                } else {
                    "输出数"
                };
                let (layer, n) = layer.rsplit_once(" (")?;
                format!("及 {layer} 的{kind}（{}", n.replace(')', "）"))
            }
            _ => what.to_string(),
        };
        // After "Allowed:" a second colon would read badly in Chinese: the reason in brackets.
        let (open, close) = if zh { ("（", "）") } else { (": it ", "") };
        return Some(format!("{sizes}{open}{}{what}{close}", node(cards)));
    }
    if let Some((sizes, rest)) = allowed.split_once(": tensor_parallel (") {
        let (tp, rest) = rest.split_once(") x pipeline_parallel must divide the ")?;
        let cards = rest.strip_suffix(" cards per node")?;
        return Some(if zh {
            format!("{sizes}（张量并行（{tp}）× 流水线级数{}）", node(cards))
        } else {
            format!(
                "{sizes}: tensor parallel ({tp}) × pipeline stages {}",
                node(cards)
            )
        });
    }
    if allowed.starts_with("1 without pipeline_parallel") {
        return Some(if zh {
            "不用流水线并行时为 1（每步要更多样本，请用梯度累积步数）".into()
        } else {
            "1 without pipeline stages (for more samples per step: gradient-accumulation steps)"
                .into()
        });
    }
    if !zh {
        return None;
    }
    if let Some(layers) = allowed
        .strip_prefix("at most ")
        .and_then(|r| r.strip_suffix(", the model's layers (one stage holds one at least)"))
    {
        return Some(format!("至多 {layers}，即模型的层数（每级至少一层）"));
    }
    let model = allowed
        .strip_prefix("1 (")?
        .strip_suffix(" has no attention or MLP (linear, activation, linear) to split; convolutions, norms and embeddings stay whole)")?;
    Some(format!(
        "1（{model} 没有可切分的注意力或 MLP（线性、激活、线性）；卷积、归一化与嵌入保持完整）"
    ))
}

/// "Allowed: …" in the reader's language, its colon full-width in Chinese.
pub fn allowed_sentence(lang: Lang, allowed: &str) -> String {
    let allowed = allowed_text(lang, allowed);
    super::summary::labelled(lang, super::T::Allowed.get(lang), &allowed)
}

/// Why a link parameter was dropped (`query::Notice::reason`, English) in the reader's
/// language: the query's own reasons, or the core's "allowed" text.
pub fn notice_reason(lang: Lang, reason: &str) -> String {
    use super::T;
    // A core error reads "field: got value; allowed: ...".
    let allowed = match reason.rsplit_once(':') {
        Some((head, tail)) if head.ends_with("allowed") => tail.trim(),
        _ => reason,
    };
    let known = match reason {
        "not a field of the scenario" | "not a field name" => T::NotAField,
        _ if reason.contains(": got unknown field ") => T::NotAField,
        "a group of fields, not one value" => T::GroupOfFields,
        _ => {
            return allowed_sentence(lang, allowed);
        }
    };
    known.get(lang).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsi_gpu_core::{estimate, scenario::scenario_from_json};

    /// The core's refusals of a parallel layout, as the page words them.
    fn refusals(json: &str, lang: Lang) -> Vec<String> {
        let s = scenario_from_json(json).unwrap();
        let problems = estimate(&s).err().unwrap_or_default();
        problems
            .iter()
            .map(|p| allowed_text(lang, &p.allowed))
            .collect()
    }

    #[test]
    fn an_unknown_link_field_is_named_as_such() {
        let parsed = crate::T::NotAField;
        let reason =
            "foo: got unknown field `foo` = \"bar\"; allowed: a known field: model, dataset";
        assert_eq!(notice_reason(Lang::Zh, reason), parsed.get(Lang::Zh));
        assert_eq!(notice_reason(Lang::En, reason), parsed.get(Lang::En));
    }

    #[test]
    fn only_a_list_of_ids_takes_the_chinese_list_comma() {
        assert_eq!(
            allowed_text(Lang::Zh, "h100_sxm, h200_sxm"),
            "h100_sxm、h200_sxm"
        );
        let rule = "an input at least as large as the dilated kernel, and stride >= 1";
        assert_eq!(allowed_text(Lang::Zh, rule), rule);
    }

    #[test]
    fn parallel_layouts_are_refused_in_the_pages_words() {
        let cases = [
            r#"{"tensor_parallel": 4}"#,
            r#"{"pipeline_parallel": 2}"#,
            r#"{"micro_batches": 8}"#,
            r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 32,
                "cards": 4, "tensor_parallel": 3}"#,
        ];
        for json in cases {
            let en = refusals(json, Lang::En);
            let zh = refusals(json, Lang::Zh);
            assert!(!en.is_empty() && en.len() == zh.len(), "{json}: {en:?}");
            for text in en.iter().chain(&zh) {
                assert!(!text.contains('_') && !text.contains(" 1 cards"), "{text}");
            }
            for text in &zh {
                assert!(!text.contains('：'), "{text}: 'Allowed：' comes before it");
                // Numbers, model and layer names stay; no English sentence does.
                for word in ["must", "without", "divide", "cards", "layers"] {
                    assert!(!text.contains(word), "{text}");
                }
            }
        }
    }
}
