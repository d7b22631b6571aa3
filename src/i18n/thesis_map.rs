//! English / 中文 strings of the thesis map (`core/src/thesis`): the map's labels, what a
//! cell says, the article's claims and whether the map agrees.

use hsi_gpu_core::thesis::{Aid, Claim, ClaimId, Untested, Verdict};

use crate::whatifs::lever_name;
use crate::Lang;

texts! {
    /// A string of the thesis map.
    enum M;
    Open => "Across model sizes", "按模型规模看";
    Back => "This scenario", "当前场景";
    Title => "What would help most, across model sizes", "加强哪项资源收益最大：按模型规模";
    Help => "This card and task, each zoo model from the small HSI networks to a 1 B-parameter ViT at each patch size, trained with what it needs to fit; the colour is its best lever. A thick line marks where the best lever changes to the next larger model.",
        "当前显卡与任务下，从小型高光谱网络到 10 亿参数 ViT 的每个模型、每种空间块大小，按放得下所需的手段训练；颜色表示收益最大的资源。粗线标出换到更大模型时最佳资源发生变化的位置。";
    PatchAxis => "Patch (px)", "空间块（像素）";
    NoLever => "no single lever pays", "无单项收益";
    MakesFit => "fits", "放得下";
    NotBuilt => "model cannot take this patch", "模型不支持该空间块";
    Computing => "Computing the map", "正在计算";
    Claims => "The article's claims against the map", "原文观点与本图对照";
    Needs => "needs", "需要";
    Bound => "bound by", "瓶颈";
    FlipBelow => "flips from", "最佳资源由此翻转：";
}

texts! {
    /// The names the map gives the core's values (aids, claims, verdicts).
    enum V;
    TensorParallel => "tensor parallelism in pairs", "两卡一组的张量并行";
    Sharding => "FSDP over the cards", "多卡 FSDP 分片";
    MixedPrecision => "mixed precision", "混合精度";
    Checkpointing => "activation checkpointing", "激活检查点";
    Offload => "optimizer offload", "优化器卸载到主机";
    FitShort => "3.2: HSI models' parameters fit one card", "3.2：高光谱模型的参数单卡放得下";
    FirstShort => "3.2, 12: capacity, bandwidth pay most", "3.2、12：容量与带宽收益最大";
    OutgrowShort => "11: foundation models outgrow a card", "11：基础模型单卡放不下";
    LinkShort => "7, 11: NVLink pays more for big models", "7、11：模型越大越需要 NVLink";
    FitText => "HSI models' parameters sit well inside one card: capacity buys larger batches and patches (sec. 3.2).",
        "高光谱模型参数量普遍在单卡容量范围内，容量的价值在于更大的批尺寸与空间块（3.2 节）。";
    FirstText => "For HSI training, capacity and bandwidth pay more than compute and interconnect (sec. 3.2, 12).",
        "高光谱训练中，容量与带宽的边际收益高于算力与互联（3.2、12 节）。";
    OutgrowText => "Foundation models (10⁸-10⁹ parameters) outgrow one card: they need model parallelism, ZeRO-style sharding or LoRA (sec. 11).",
        "基础模型（数亿到数十亿参数）单卡难以容纳完整训练，须依赖模型并行、ZeRO 类优化或 LoRA（11 节）。";
    LinkText => "NVLink's gain is diluted for small HSI models and rises for foundation models (sec. 3.2, 7, 11).",
        "高光谱模型参数量小，NVLink 的收益被稀释；模型规模上去后互联的权重上升（3.2、7、11 节）。";
    Agrees => "agrees", "相符";
    Partly => "partly agrees", "部分相符";
    Disagrees => "disagrees", "不相符";
    NotTested => "untestable", "此处无法检验";
    OneCard => "one card (set 2+)", "单卡（请设 2 张以上）";
    NoFasterLink => "no faster link for this card", "该卡没有更快的互联";
    NoCells => "no such cells here", "本图中没有相应的格子";
}

pub fn aid_name(aid: Aid, lang: Lang) -> &'static str {
    match aid {
        Aid::TensorParallel => V::TensorParallel,
        Aid::Sharding => V::Sharding,
        Aid::MixedPrecision => V::MixedPrecision,
        Aid::Checkpointing => V::Checkpointing,
        Aid::Offload => V::Offload,
    }
    .get(lang)
}

/// The article's claim in a few words, with its sections (the tile's line; `claim_text`
/// is the claim in full).
pub fn claim_short(id: ClaimId, lang: Lang) -> &'static str {
    match id {
        ClaimId::SmallModelsFitOneCard => V::FitShort,
        ClaimId::CapacityBandwidthFirst => V::FirstShort,
        ClaimId::FoundationModelsOutgrowOneCard => V::OutgrowShort,
        ClaimId::InterconnectRisesWithScale => V::LinkShort,
    }
    .get(lang)
}

/// The article's claim in a line, with its sections.
pub fn claim_text(id: ClaimId, lang: Lang) -> &'static str {
    match id {
        ClaimId::SmallModelsFitOneCard => V::FitText,
        ClaimId::CapacityBandwidthFirst => V::FirstText,
        ClaimId::FoundationModelsOutgrowOneCard => V::OutgrowText,
        ClaimId::InterconnectRisesWithScale => V::LinkText,
    }
    .get(lang)
}

pub fn verdict_name(v: Verdict, lang: Lang) -> &'static str {
    match v {
        Verdict::Agrees => V::Agrees,
        Verdict::Partly => V::Partly,
        Verdict::Disagrees => V::Disagrees,
        Verdict::NotTested => V::NotTested,
    }
    .get(lang)
}

fn untested_reason(u: Untested, lang: Lang) -> &'static str {
    match u {
        Untested::OneCard => V::OneCard,
        Untested::NoFasterLink => V::NoFasterLink,
        Untested::NoCells => V::NoCells,
    }
    .get(lang)
}

/// What the map finds for a claim, in a line: "disagrees: 3/29 cells bear it out".
pub fn claim_finding(c: &Claim, lang: Lang) -> String {
    let verdict = verdict_name(c.verdict, lang);
    let colon = lang.colon();
    if let Some(u) = c.untested {
        return format!("{verdict}{colon}{}", untested_reason(u, lang));
    }
    let mut out = match lang {
        Lang::En => format!(
            "{verdict}{colon}{}/{} cells bear it out",
            c.supporting, c.cells
        ),
        Lang::Zh => format!("{verdict}{colon}{}/{} 格支持", c.supporting, c.cells),
    };
    if let Some((n, k)) = c.baseline {
        out.push_str(&match lang {
            Lang::En => format!("; small models {k}/{n}"),
            Lang::Zh => format!("；小模型 {k}/{n}"),
        });
    }
    out
}

/// The claim in full and the best lever most often among its cells (the line's title).
pub fn claim_detail(c: &Claim, lang: Lang) -> String {
    let text = claim_text(c.id, lang);
    match (c.most_often, lang) {
        (Some(l), Lang::En) => format!("{text} Best lever most often: {}.", lever_name(l, lang)),
        (Some(l), Lang::Zh) => format!("{text}最常见的最佳资源：{}。", lever_name(l, lang)),
        (None, _) => text.to_string(),
    }
}

/// "23 of 55 cells".
pub fn progress(done: usize, total: usize, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{}: {done} of {total} cells", M::Computing.get(lang)),
        Lang::Zh => format!("{}：{done} / {total} 格", M::Computing.get(lang)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_exists_in_both_languages() {
        for m in M::ALL {
            assert!(!m.get(Lang::En).is_empty() && !m.get(Lang::Zh).is_empty());
            assert_ne!(m.get(Lang::En), m.get(Lang::Zh), "{m:?}");
        }
        for v in V::ALL {
            assert!(!v.get(Lang::En).is_empty() && !v.get(Lang::Zh).is_empty());
            assert_ne!(v.get(Lang::En), v.get(Lang::Zh), "{v:?}");
        }
        for aid in Aid::ALL {
            assert_ne!(aid_name(aid, Lang::En), aid_name(aid, Lang::Zh));
        }
        for id in [
            ClaimId::SmallModelsFitOneCard,
            ClaimId::CapacityBandwidthFirst,
            ClaimId::FoundationModelsOutgrowOneCard,
            ClaimId::InterconnectRisesWithScale,
        ] {
            assert_ne!(claim_text(id, Lang::En), claim_text(id, Lang::Zh));
            assert_ne!(claim_short(id, Lang::En), claim_short(id, Lang::Zh));
        }
    }
}
