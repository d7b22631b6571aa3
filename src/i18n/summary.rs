//! Labels only the command line's summaries print (`hsi-gpu summary`, `hsi-gpu options
//! --summary`); every other word they print is the page's.

use crate::Lang;

texts! {
    /// A label of the command line's summaries.
    enum S;
    Share => "share", "占比";
    AllocatedPeak => "Allocated peak (tensors, workspaces)", "已分配峰值（张量与工作区）";
    ReservedPeak => "Reserved peak (caching allocator)", "已保留峰值（缓存分配器）";
    Trainable => "trainable", "可训练";
    Offloaded => "Offloaded to host memory (not in the total)", "卸载到主机内存（不计入合计）";
    OtherLevers => "Improvements that gain more than 2 %", "收益超过 2 % 的改进";
    AllreduceShort => "All-reduce share", "通信占比";
    ThisScenario => "this scenario", "当前场景";
    Options => "options", "个方案";
    BestLever => "Best improvement", "最佳改进";
    HostCpu => "Host CPU", "主机 CPU";
    InputPipeline => "Input pipeline", "输入管线";
    Stage => "Stage", "阶段";
    StageLayers => "Layers", "层";
    Idle => "Idle", "空闲";
}

/// "label: value" with the language's colon.
pub fn labelled(lang: Lang, label: &str, value: &str) -> String {
    format!("{label}{}{value}", lang.colon())
}

/// The input pipeline's own rate: "18,931 samples/s on its own".
pub fn on_its_own(lang: Lang, rate: &str) -> String {
    match lang {
        Lang::En => format!("{rate} samples/s on its own"),
        Lang::Zh => format!("单独每秒 {rate} 个样本"),
    }
}

/// "text (note)" with the language's brackets.
pub fn with_note(lang: Lang, text: &str, note: &str) -> String {
    match lang {
        Lang::En => format!("{text} ({note})"),
        Lang::Zh => format!("{text}（{note}）"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_exists_in_both_languages() {
        for key in S::ALL {
            let (en, zh) = (key.get(Lang::En), key.get(Lang::Zh));
            assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{key:?}");
        }
    }
}
