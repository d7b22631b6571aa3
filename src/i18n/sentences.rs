//! Sentences with figures (pre-formatted by the caller).

use super::Lang;
use hsi_gpu_core::format;

/// Tooltip of a roofline point.
pub fn roofline_point_sentence(
    lang: Lang,
    label: &str,
    intensity: &str,
    rate: &str,
    bound: &str,
    ridge: &str,
) -> String {
    match lang {
        Lang::En => {
            format!("{label}: {intensity}, {rate}; {bound} (the ridge of this roof is at {ridge}).")
        }
        Lang::Zh => format!("{label}：{intensity}，{rate}；{bound}（此上限的拐点为 {ridge}）。"),
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
) -> String {
    match (lang, fits) {
        (Lang::En, true) => format!(
            "Fits with {headroom} headroom on {gpu} ({total} of {capacity}: reserved peak + CUDA context)."
        ),
        (Lang::Zh, true) => {
            format!("可以放进 {gpu}，余量 {headroom}（{total} / {capacity}：已保留峰值 + CUDA 上下文）。")
        }
        (Lang::En, false) => format!(
            "Does not fit on {gpu}: needs {total} of {capacity} (reserved peak + CUDA context)."
        ),
        (Lang::Zh, false) => {
            format!("放不进 {gpu}：需要 {total}（已保留峰值 + CUDA 上下文），容量 {capacity}。")
        }
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
            "The layer list fixes the input shape {input}: the band and patch sliders do not change the model (export it again for another geometry)."
        ),
        Lang::Zh => format!(
            "层列表固定了输入形状 {input}：波段数与空间块大小滑块不会改变模型（如需其他尺寸请重新导出）。"
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

/// The core's "allowed" text (`FieldError::allowed`, English) in the reader's language:
/// its usual forms (ranges, "one of") are worded in Chinese, anything else stays as it is.
pub fn allowed_text(lang: Lang, allowed: &str) -> String {
    if lang == Lang::En {
        return allowed.to_string();
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
        format!("以下之一：{ids}")
    } else if allowed == "a number" {
        "一个数".into()
    } else {
        allowed.to_string()
    }
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
        "not a valid value" => T::InvalidValue,
        "not a field of the scenario" | "not a field name" => T::NotAField,
        "a group of fields, not one value" => T::GroupOfFields,
        _ => {
            return format!("{}: {}", T::Allowed.get(lang), allowed_text(lang, allowed));
        }
    };
    known.get(lang).to_string()
}
