//! The map's flips and the article's claims, counted from its cells.

use super::{Cell, Claim, ClaimId, Flip, Gain, Untested, Verdict, FOUNDATION_PARAMS};
use crate::levers::Lever;
use crate::scenario::Scenario;

fn best_of(c: &Cell) -> Option<Lever> {
    c.best.map(|b| b.lever)
}

/// Neighbours along model size whose best levers differ (errors on either side excluded).
pub(super) fn flips(cells: &[Cell], cols: usize) -> Vec<Flip> {
    let mut out = Vec::new();
    for (i, larger) in cells.iter().enumerate().skip(cols) {
        let smaller = &cells[i - cols];
        if smaller.error.is_some() || larger.error.is_some() || best_of(smaller) == best_of(larger)
        {
            continue;
        }
        out.push(Flip {
            row: i / cols,
            col: i % cols,
            patch: larger.patch,
            smaller: smaller.model.clone(),
            larger: larger.model.clone(),
            from: best_of(smaller),
            to: best_of(larger),
            why: larger.limit,
        });
    }
    out
}

fn gain(c: &Cell, lever: Lever) -> Option<&Gain> {
    c.gains.iter().find(|g| g.lever == lever)
}

/// How much a set of levers is worth to a cell: the largest speed-up, and a lever that
/// makes a cell fit that did not counts above every speed-up.
fn worth(c: &Cell, set: &[Lever]) -> f64 {
    set.iter()
        .filter_map(|l| gain(c, *l))
        .map(|g| match (c.fits, g.fits, g.speedup) {
            (false, true, _) => f64::INFINITY,
            (_, _, Some(s)) => s,
            _ => 1.0,
        })
        .fold(1.0, f64::max)
}

fn verdict(cells: u32, supporting: u32) -> Verdict {
    match (cells, 3 * supporting) {
        (0, _) => Verdict::NotTested,
        (n, k) if k >= 2 * n => Verdict::Agrees,
        (n, k) if k <= n => Verdict::Disagrees,
        _ => Verdict::Partly,
    }
}

/// The best lever named most often among `cells` (ties: the first in `Lever::ALL`).
fn most_often<'a>(cells: impl Iterator<Item = &'a Cell> + Clone) -> Option<Lever> {
    let count = |l: Lever| cells.clone().filter(|c| best_of(c) == Some(l)).count();
    Lever::ALL
        .into_iter()
        .map(|l| (l, count(l)))
        .filter(|(_, n)| *n > 0)
        .fold(None, |best: Option<(Lever, usize)>, (l, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((l, n)),
        })
        .map(|(l, _)| l)
}

fn claim(
    id: ClaimId,
    sections: &'static str,
    about: &[&Cell],
    support: impl Fn(&Cell) -> bool,
) -> Claim {
    let cells = about.len() as u32;
    let supporting = about.iter().filter(|c| support(c)).count() as u32;
    Claim {
        id,
        sections,
        cells,
        supporting,
        verdict: verdict(cells, supporting),
        untested: (cells == 0).then_some(Untested::NoCells),
        most_often: most_often(about.iter().copied()),
        baseline: None,
    }
}

pub(super) fn claims(s: &Scenario, cells: &[Cell]) -> Vec<Claim> {
    let built: Vec<&Cell> = cells.iter().filter(|c| c.error.is_none()).collect();
    let small: Vec<&Cell> = built.iter().copied().filter(|c| c.size.is_none()).collect();
    let large: Vec<&Cell> = built
        .iter()
        .copied()
        .filter(|c| c.params >= FOUNDATION_PARAMS)
        .collect();
    let fits_one_card = claim(ClaimId::SmallModelsFitOneCard, "3.2", &small, |c| {
        c.states_share < 1.0
    });
    let capacity_first = claim(ClaimId::CapacityBandwidthFirst, "3.2, 12", &small, |c| {
        worth(c, &[Lever::MemoryCapacity, Lever::MemoryBandwidth])
            > worth(c, &[Lever::Compute, Lever::Interconnect])
    });
    let outgrow = claim(ClaimId::FoundationModelsOutgrowOneCard, "11", &large, |c| {
        !c.aids.is_empty() || !c.fits
    });
    let linked = |c: &Cell| best_of(c) == Some(Lever::Interconnect);
    let mut interconnect = claim(
        ClaimId::InterconnectRisesWithScale,
        "3.2, 7.1, 7.2, 11",
        &large,
        linked,
    );
    interconnect.baseline = Some((
        small.len() as u32,
        small.iter().filter(|c| linked(c)).count() as u32,
    ));
    let untested = if s.cards * s.nodes < 2 {
        Some(Untested::OneCard)
    } else if !built.iter().any(|c| gain(c, Lever::Interconnect).is_some()) {
        Some(Untested::NoFasterLink)
    } else {
        interconnect.untested
    };
    if untested.is_some() {
        interconnect.verdict = Verdict::NotTested;
        interconnect.untested = untested;
    }
    vec![fits_one_card, capacity_first, outgrow, interconnect]
}
