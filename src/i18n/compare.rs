//! English / 中文 strings of the comparison view. Every key carries both texts; sentences
//! with figures are functions taking pre-formatted figures.

use hsi_gpu_core::compare::decision::{Condition, Priority};
use hsi_gpu_core::compare::sensitivity::Largest;
use hsi_gpu_core::compare::Metric;
use hsi_gpu_core::cost::Money;
use hsi_gpu_core::format;
use hsi_gpu_core::scenario::{ParallelMode, VitSize};

use crate::{zoo_name, Lang};

texts! {
    /// A string of the comparison view.
    enum C;
    Title => "Compare options", "方案对比";
    Help => "Each column is a full scenario: the workload the options were built from, on other hardware. The best value of each row is marked ★. Edit any option; every row follows.",
        "每一列都是一个完整场景：建立方案时的工作负载在不同硬件上的结果。每行最优值标 ★。修改任一方案，各行随之更新。";
    Stale => "No option runs the scenario above now: rebuild to compare it.",
        "已没有方案对应上方的场景：请重建后再比较。";
    Rebuild => "Rebuild from the current scenario", "按当前场景重建";
    AddOption => "Add option", "添加方案";
    Remove => "Remove", "删除";
    Label => "Name", "名称";
    Gpu => "GPU", "GPU";
    Cards => "Cards", "显卡数";
    TensorParallel => "Tensor parallel", "张量并行";
    Interconnect => "Interconnect", "互联";
    Mode => "Use of the cards", "多卡用法";
    Ddp => "One run, DDP", "单个实验（DDP）";
    Parallel => "One run per card", "每卡一个实验";
    Batch => "Batch per GPU", "每卡批大小";
    CudnnBenchmark => "cudnn.benchmark", "cudnn.benchmark（cuDNN 算法测速）";
    Fits => "fits", "放得下";
    DoesNotFit => "does not fit", "放不下";
    Best => "best", "最优";
    AwaitsValidValue => "Not estimated: a box above holds a value that is not used (see its note; Esc goes back to the value before the edit).",
        "未估算：上方某个输入框中的值未被采用（见其下方提示；按 Esc 回到编辑前的值）。";
    NoFigure => "—", "—";
    CannotEstimate => "cannot be estimated", "无法估算";
    MetricMemory => "Memory / budget", "显存占预算";
    MetricMaxBatch => "Largest batch", "最大批大小";
    MetricPatch => "Largest patch (px)", "最大空间块（像素）";
    MetricBands => "Largest band count", "最多波段数";
    MetricSpeed => "Samples/s", "样本/秒";
    MetricRun => "One run", "单次训练";
    MetricSweep => "Sweep wall time", "超参搜索总耗时";
    MetricTco => "TCO", "总拥有成本";
    MetricPerExperiment => "Cost per experiment", "每次实验成本";
    MetricPower => "Power draw", "功耗";
    MetricCards => "Cards", "显卡数";
    MetricOps => "Admin hours/month", "每月运维小时";
    Complexity => "Operations", "运维复杂度";
    Nccl => "NCCL", "NCCL";
    NoNccl => "no NCCL", "无 NCCL";
    Psu => "PSU", "电源";
    PriceUnknown => "card price unknown: the cost rows need one (Assumptions, card price)", "显卡价格未知：成本行需要价格（“假设”中的显卡单价）";
    Charts => "Charts", "图表";
    LeverRows => "What would help each option", "每个方案加强哪项资源最有用";
    LeverRowsHelp => "One resource improved at a time, per option: speed-up · time to a result · cost per experiment at the card's own price. ★: the options it speeds up most (by over 2 %). —: it does not apply.",
        "每个方案每次只加强一项资源：加速比 · 出结果时间 · 按该卡现价计的每次实验成本。★：该资源加速最多的方案（超过 2 %）。—：不适用。";
    LeverNotApplicable => "This resource does not apply to this option (e.g. no better link for its cards), or the option cannot be estimated.",
        "该项资源不适用于此方案（例如其显卡没有更好的互联），或此方案无法估算。";
    ChartMemory => "Memory per GPU / budget", "每卡显存 / 预算";
    ChartTime => "Time to result", "出结果时间";
    ChartCost => "TCO", "总拥有成本";
    Decision => "Decision matrix", "决策矩阵";
    TeamSize => "Team size (people, each running a sweep)", "团队人数（每人一次超参数搜索）";
    Goal => "Goal", "目标";
    GoalSingleRun => "Fastest single run", "单次训练最快";
    GoalSweep => "Finish everyone's sweeps", "尽快完成所有人的搜索";
    Budget => "Budget over the box's life, USD (empty: none)", "整机生命周期预算（美元，留空为不限）";
    BudgetCny => "Budget over the box's life, CNY (empty: none)", "整机生命周期预算（元，留空为不限）";
    OpsHours => "Admin hours per month you can spare (empty: none)", "每月可投入运维小时（留空为不限）";
    Recommended => "Recommended", "推荐";
    NothingEligible => "No option fits within the budget and the operations time.", "没有方案同时满足显存、预算与运维时间。";
    TimeToResult => "Time to result", "出结果时间";
    Runs => "Runs", "实验次数";
    WithinBudget => "Within budget", "预算内";
    WithinOps => "Within ops time", "运维时间内";
    Eligible => "Eligible", "符合条件";
    Yes => "yes", "是";
    No => "no", "否";
    Unknown => "unknown", "未知";
    FlipsTitle => "When the recommendation changes", "推荐何时改变";
    NoFlips => "No single change among those tried alters it.", "所尝试的单项变化都不会改变推荐。";
    Sensitivity => "What breaks first", "最先到达的极限";
    HeatTitle => "Fit over patch × bands", "空间块 × 波段数 适配图";
    HeatHelp => "Memory per GPU over the budget at the option's batch; above 100 % it does not fit; · where the model cannot be built at that patch or band count.", "在该方案的批大小下，每卡显存占预算比例；超过 100 % 即放不下；“·”表示该空间块或波段数下无法构建模型。";
    OptionWord => "Option", "方案";
    HeatNa => "A custom model fixes patch and bands.", "自定义模型的空间块和波段数固定。";
    Patch => "patch", "空间块";
    Bands => "bands", "波段";
    Export => "Export", "导出";
    ExportJson => "Comparison (JSON)", "对比（JSON）";
    ExportCsv => "Results (CSV)", "结果（CSV）";
    ExportSvg => "SVG", "SVG";
    ExportPng => "PNG", "PNG";
    Print => "Print report", "打印报告";
    Import => "Import", "导入";
    ImportHelp => "Paste a comparison, a scenario or a model layer list (JSON), or load a file. Nothing is replaced unless it is valid.",
        "粘贴对比、场景或模型层列表（JSON），或选择文件。只有内容有效时才会替换当前对比。";
    ImportButton => "Import", "导入";
    ImportFile => "Load a file", "选择文件";
    ImportedComparison => "Imported: the comparison above is the one in the file.", "已导入：上方的对比已换成文件中的对比。";
    ImportedScenario => "Imported: the options were rebuilt around this scenario (edits to them are gone).", "已导入：各方案已按此场景重建（对方案的修改已不保留）。";
    ImportedModel => "Imported: every option now trains this model.", "已导入：所有方案现在都训练此模型。";
}

pub fn metric_name(m: Metric, lang: Lang) -> &'static str {
    let key = match m {
        Metric::MemoryUtilization => C::MetricMemory,
        Metric::MaxBatch => C::MetricMaxBatch,
        Metric::LargestPatch => C::MetricPatch,
        Metric::LargestBands => C::MetricBands,
        Metric::SamplesPerS => C::MetricSpeed,
        Metric::RunTime => C::MetricRun,
        Metric::SweepTime => C::MetricSweep,
        Metric::Tco => C::MetricTco,
        Metric::CostPerExperiment => C::MetricPerExperiment,
        Metric::Power => C::MetricPower,
        Metric::Cards => C::MetricCards,
        Metric::OpsHours => C::MetricOps,
    };
    key.get(lang)
}

/// A metric's figure as the table and the charts show it, money in `money`'s currency.
pub fn metric_text(metric: Metric, value: Option<f64>, lang: Lang, money: Money) -> String {
    let Some(v) = value else {
        return C::NoFigure.get(lang).into();
    };
    match metric {
        Metric::MemoryUtilization => format::percent(v),
        Metric::MaxBatch | Metric::LargestPatch | Metric::LargestBands | Metric::Cards => {
            format::count(v as u64)
        }
        Metric::SamplesPerS => format::si(v, "/s"),
        Metric::RunTime | Metric::SweepTime => format::duration(v),
        Metric::Tco | Metric::CostPerExperiment => money.text(v),
        Metric::Power => format::si(v, "W"),
        Metric::OpsHours => format!("{v:.1} h"),
    }
}

/// `≥` marks a limit that is only the input limit.
pub fn limit_prefix(l: Largest) -> &'static str {
    match l {
        Largest::UpToLimit(_) => "≥ ",
        _ => "",
    }
}

pub fn mode_name(mode: ParallelMode, lang: Lang) -> &'static str {
    match mode {
        ParallelMode::Ddp => C::Ddp.get(lang),
        ParallelMode::ParallelExperiments => C::Parallel.get(lang),
    }
}

pub fn priority_name(p: Priority, lang: Lang) -> &'static str {
    match p {
        Priority::SingleRun => C::GoalSingleRun.get(lang),
        Priority::Sweep => C::GoalSweep.get(lang),
    }
}

fn vit_size_name(size: VitSize) -> &'static str {
    match size {
        VitSize::Small => "S",
        VitSize::Base => "B",
        VitSize::Large => "L",
        VitSize::Huge => "H",
        VitSize::Giant => "g",
    }
}

/// The condition of a flip, as a phrase; budgets in the comparison's currency (`money`).
pub fn condition_phrase(c: &Condition, lang: Lang, money: Money) -> String {
    match (c, lang) {
        (Condition::PatchAbove { patch }, Lang::En) => {
            format!("with patches of {patch} px or more")
        }
        (Condition::PatchAbove { patch }, Lang::Zh) => format!("空间块达到 {patch} 像素及以上时"),
        (Condition::Model { id, size, patch }, lang) => {
            // The preset's name as the model choice shows it, not its id.
            let name = hsi_gpu_core::zoo::zoo_entry(id).map_or(id.as_str(), |e| zoo_name(e, lang));
            match (size.map(vit_size_name), lang) {
                (None, Lang::En) => format!("with {name} at patch {patch}"),
                (Some(s), Lang::En) => format!("with {name}, size {s}, at patch {patch}"),
                (None, Lang::Zh) => format!("换用 {name}、空间块 {patch} 时"),
                (Some(s), Lang::Zh) => format!("换用 {name}（规模 {s}）、空间块 {patch} 时"),
            }
        }
        (Condition::SweepRuns { runs }, Lang::En) => format!("with {runs} runs per sweep"),
        (Condition::SweepRuns { runs }, Lang::Zh) => format!("每次搜索 {runs} 个实验时"),
        (Condition::TeamSize { people }, Lang::En) => format!("with a team of {people}"),
        (Condition::TeamSize { people }, Lang::Zh) => format!("团队为 {people} 人时"),
        (Condition::BudgetBelow { usd }, Lang::En) => {
            format!("with a budget below {}", money.text(*usd))
        }
        (Condition::BudgetBelow { usd }, Lang::Zh) => format!("预算低于 {} 时", money.text(*usd)),
        (Condition::BudgetAtLeast { usd }, Lang::En) => {
            format!("with a budget of {} or more", money.text(*usd))
        }
        (Condition::BudgetAtLeast { usd }, Lang::Zh) => {
            format!("预算达到 {} 及以上时", money.text(*usd))
        }
        (Condition::OpsHoursBelow { hours }, Lang::En) => {
            format!("with less than {hours:.1} admin hours per month")
        }
        (Condition::OpsHoursBelow { hours }, Lang::Zh) => {
            format!("每月运维时间少于 {hours:.1} 小时时")
        }
        (Condition::Priority { priority }, Lang::En) => {
            format!("if the goal is \"{}\"", priority_name(*priority, lang))
        }
        (Condition::Priority { priority }, Lang::Zh) => {
            format!("若目标为“{}”", priority_name(*priority, lang))
        }
    }
}

/// "…, X is recommended instead; A, B no longer fit the batch."
/// An option's name as shown: its label, or "Option 2" ("方案 2") where it has none, so
/// no bar or row is left without a name.
pub fn option_name(label: &str, index: usize, lang: Lang) -> String {
    match label.trim() {
        "" => format!("{} {}", C::OptionWord.get(lang), index + 1),
        name => name.to_string(),
    }
}

pub fn flip_sentence(
    condition: &str,
    recommended: Option<&str>,
    no_longer_fit: &[&str],
    lang: Lang,
) -> String {
    let mut out = match (recommended, lang) {
        (Some(r), Lang::En) => format!("{condition}: {r} is recommended"),
        (Some(r), Lang::Zh) => format!("{condition}：推荐 {r}"),
        (None, Lang::En) => format!("{condition}: no option is eligible"),
        (None, Lang::Zh) => format!("{condition}：没有符合条件的方案"),
    };
    if !no_longer_fit.is_empty() {
        let names = super::enumerated(lang, no_longer_fit);
        out.push_str(&match lang {
            // Each at its own batch.
            Lang::En => format!("; {names} no longer fit their batch"),
            Lang::Zh => format!("；{names} 放不下各自的批大小"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_exists_in_both_languages() {
        for key in C::ALL {
            let (en, zh) = (key.get(Lang::En), key.get(Lang::Zh));
            assert!(!en.is_empty() && !zh.is_empty(), "{key:?}");
        }
        for m in Metric::ALL {
            assert_ne!(metric_name(m, Lang::En), metric_name(m, Lang::Zh), "{m:?}");
        }
    }

    #[test]
    fn flip_sentences_name_the_lost_options() {
        let s = flip_sentence(
            "with patches of 157 px or more",
            Some("A6000"),
            &["3090", "4090"],
            Lang::En,
        );
        assert_eq!(s, "with patches of 157 px or more: A6000 is recommended; 3090, 4090 no longer fit their batch");
        let z = flip_sentence("x", None, &[], Lang::Zh);
        assert_eq!(z, "x：没有符合条件的方案");
    }

    #[test]
    fn a_model_condition_names_the_model_in_the_readers_language() {
        let phrase = |id: &str, size, lang| {
            let c = Condition::Model {
                id: id.into(),
                size,
                patch: 64,
            };
            condition_phrase(&c, lang, Money::of(&Default::default()))
        };
        let huge = Some(VitSize::Huge);
        assert_eq!(
            phrase("vit", huge, Lang::En),
            "with ViT HSI foundation model, size H, at patch 64"
        );
        assert_eq!(
            phrase("vit", huge, Lang::Zh),
            "换用 ViT 高光谱基础模型（规模 H）、空间块 64 时"
        );
        assert_eq!(
            phrase("hybridsn", None, Lang::Zh),
            "换用 HybridSN (Roy 2020)、空间块 64 时"
        );
    }
}
