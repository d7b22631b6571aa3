//! The "ghost": the figures shown before the latest change, drawn faintly beside the
//! current ones so a meeting sees what a slider move did. A burst of changes (a slider
//! being dragged) keeps the figures from before the burst, not the previous frame's.

use crate::SharedReport;

/// Changes closer together than this belong to one burst (one drag).
pub const BURST_MS: f64 = 600.0;

#[derive(Default)]
pub struct Ghost {
    current: Option<SharedReport>,
    previous: Option<SharedReport>,
    changed_at_ms: Option<f64>,
}

impl Ghost {
    /// Records the report shown at `now_ms` and returns the one to draw faintly, if any.
    pub fn update(&mut self, report: Option<&SharedReport>, now_ms: f64) -> Option<SharedReport> {
        if let Some(report) = report {
            let same = self.current.as_ref() == Some(report);
            if !same {
                let burst_started = self.changed_at_ms.is_none_or(|at| now_ms - at >= BURST_MS);
                if burst_started {
                    self.previous = self.current.take();
                }
                // The first report is the page loading, not a change.
                if self.current.is_some() || self.previous.is_some() {
                    self.changed_at_ms = Some(now_ms);
                }
                self.current = Some(report.clone());
            }
        }
        self.previous.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(batch: u32) -> SharedReport {
        let scenario = hsi_gpu_core::Scenario {
            batch_per_gpu: batch,
            ..Default::default()
        };
        SharedReport::new(hsi_gpu_core::estimate(&scenario).expect("default scenario estimates"))
    }

    #[test]
    fn the_ghost_is_the_report_before_the_latest_burst_of_changes() {
        let (a, b, c, d) = (report(8), report(16), report(32), report(64));
        let mut ghost = Ghost::default();
        assert!(
            ghost.update(Some(&a), 0.0).is_none(),
            "nothing before the first"
        );
        // A re-render without a change (language) keeps no ghost.
        assert!(ghost.update(Some(&a), 5_000.0).is_none());
        // The first change, however soon after loading: the loaded report is the ghost.
        let shown = ghost.update(Some(&b), 10_000.0).unwrap();
        assert!(shown == a);
        // Moves within a burst keep the ghost from before the burst.
        let shown = ghost.update(Some(&c), 10_000.0 + BURST_MS / 2.0).unwrap();
        assert!(shown == a);
        // The next change after a rest starts over from the report it rested on.
        let shown = ghost.update(Some(&d), 20_000.0).unwrap();
        assert!(shown == c);
        // An invalid scenario (no report) leaves the ghost as it was.
        assert!(ghost.update(None, 30_000.0).unwrap() == c);
    }
}
