//! Errors every reader and check reports: a `FieldError` names the field path, the value
//! it holds and what is allowed; `Problems` collects them while validating. The bottom of
//! the core: it imports nothing from the crate.

use serde::{Deserialize, Serialize};

/// One problem with an input: which field, what it holds, what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

impl FieldError {
    /// The same error one level down, under `key` (a field name, or `[i]` for a list
    /// element): `kernel` under `layers[3]` is `layers[3].kernel`.
    pub fn at(self, key: &str) -> FieldError {
        let field = match self.field.as_str() {
            "" => key.into(),
            f if f.starts_with('[') => format!("{key}{f}"),
            f => format!("{key}.{f}"),
        };
        FieldError { field, ..self }
    }

    /// The field or id a typo most likely meant (`nearest`), where `allowed` lists them:
    /// "a known field: a, b, ...", "one of a, b, ..." or the ids alone. None for a range,
    /// or where nothing is near.
    pub fn meant(&self) -> Option<&str> {
        let list = self
            .allowed
            .strip_prefix("a known field: ")
            .or_else(|| self.allowed.strip_prefix("one of "))
            .unwrap_or(&self.allowed);
        let candidates: Vec<&str> = list.split(", ").collect();
        let identifier = |c: &&str| {
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'))
        };
        if candidates.len() < 2 || !candidates.iter().all(identifier) {
            return None;
        }
        let word = if self.value.starts_with("unknown field `") {
            self.field.rsplit('.').next().unwrap_or(&self.field)
        } else {
            self.value.trim_matches('"')
        };
        nearest(word, &candidates)
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: got {}; allowed: {}",
            self.field, self.value, self.allowed
        )
    }
}

/// The one `candidates` entry a typo of `word` most likely meant (case and `_` / `-`
/// ignored): the one it spells; else the one it begins, if it begins only one (`a100`
/// begins three A100 ids: none, rather than the A10 one edit away); else the nearest by
/// edits (inserted, deleted or changed characters), within a third of the word's length;
/// none where two are as near.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let key = |w: &str| -> Vec<char> {
        w.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let w = key(word);
    if let Some(&same) = candidates.iter().find(|c| key(c) == w) {
        return Some(same);
    }
    let begun: Vec<&'a str> = candidates
        .iter()
        .copied()
        .filter(|c| {
            let c = key(c);
            c.len() > w.len() && c.starts_with(&w)
        })
        .collect();
    if !w.is_empty() && !begun.is_empty() {
        return (begun.len() == 1).then(|| begun[0]);
    }
    let distance = |c: &str| {
        let c = key(c);
        // One row of the edit-distance table at a time.
        let mut row: Vec<usize> = (0..=c.len()).collect();
        for (i, a) in w.iter().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, b) in c.iter().enumerate() {
                let next = (diagonal + usize::from(a != b))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                diagonal = std::mem::replace(&mut row[j + 1], next);
            }
        }
        row[c.len()]
    };
    let mut best: Option<(usize, &'a str)> = None;
    let mut tied = false;
    for &c in candidates {
        let d = distance(c);
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tied = true,
            _ => {
                best = Some((d, c));
                tied = false;
            }
        }
    }
    best.filter(|&(d, _)| !tied && d <= (w.len() / 3).max(1))
        .map(|(_, c)| c)
}

/// Collects field errors while validating.
#[derive(Default)]
pub struct Problems(pub Vec<FieldError>);

impl Problems {
    pub fn push(&mut self, field: &str, value: impl ToString, allowed: impl ToString) {
        self.0.push(FieldError {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        });
    }

    /// Records an error unless `lo <= value <= hi`.
    pub fn range_u64(&mut self, field: &str, value: u64, lo: u64, hi: u64) {
        if value < lo || value > hi {
            self.push(field, value, format!("an integer from {lo} to {hi}"));
        }
    }

    /// Records an error unless `value` is finite and `lo <= value <= hi`. A huge or tiny
    /// value is written in exponent form (1e+300, not 301 digits).
    pub fn range_f64(&mut self, field: &str, value: f64, lo: f64, hi: f64) {
        if !value.is_finite() || value < lo || value > hi {
            // serde_json's shortest form (already in the page; `{:e}` would add bytes).
            let text = match serde_json::Number::from_f64(value) {
                Some(n) if value != 0.0 && !(1e-6..1e15).contains(&value.abs()) => n.to_string(),
                _ => value.to_string(),
            };
            self.push(field, text, format!("a number from {lo} to {hi}"));
        }
    }
}
