//! Where a field path sits in JSON text: a scanner over valid JSON (no second parse),
//! so an import error can name its line and column.

/// One step of a field path: `layers[3].kernel` is Key(layers), Index(3), Key(kernel).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of a field path as `FieldError` writes it; anything after a space (the
/// analysis adds "(conv 'name')") is a description, not path.
pub(super) fn path_steps(field: &str) -> Vec<Step<'_>> {
    let path = field.split(' ').next().unwrap_or("");
    let mut steps = Vec::new();
    for part in path.split('.') {
        let mut pieces = part.split('[');
        if let Some(key) = pieces.next().filter(|k| !k.is_empty()) {
            steps.push(Step::Key(key));
        }
        for index in pieces {
            match index.trim_end_matches(']').parse() {
                Ok(i) => steps.push(Step::Index(i)),
                Err(_) => return steps,
            }
        }
    }
    steps
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// End of the string starting at `b[i] == b'"'` (just past its closing quote).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// End of the JSON value starting at `i` (no recursion: nesting is counted).
fn skip_value(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = skip_string(b, i);
                if depth == 0 {
                    return i;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b',' | b'}' | b']' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Byte offset of the value at `steps` in valid JSON `text`; as deep as the path can be
/// followed.
pub(super) fn locate(text: &str, steps: &[Step]) -> usize {
    let b = text.as_bytes();
    let mut at = skip_ws(b, 0);
    for step in steps {
        let (open, close) = match step {
            Step::Key(_) => (b'{', b'}'),
            Step::Index(_) => (b'[', b']'),
        };
        if b.get(at) != Some(&open) {
            return at;
        }
        let mut i = skip_ws(b, at + 1);
        let mut index = 0usize;
        let found = loop {
            if i >= b.len() || b[i] == close {
                break None;
            }
            let value_start = match step {
                Step::Key(key) => {
                    let end = skip_string(b, i);
                    let name = text.get(i + 1..end.saturating_sub(1)).unwrap_or("");
                    let colon = skip_ws(b, end);
                    let start = skip_ws(b, colon + 1);
                    if name == *key {
                        break Some(i);
                    }
                    start
                }
                Step::Index(wanted) => {
                    if index == *wanted {
                        break Some(i);
                    }
                    i
                }
            };
            i = skip_ws(b, skip_value(b, value_start));
            if b.get(i) == Some(&b',') {
                i = skip_ws(b, i + 1);
            }
            index += 1;
        };
        match (found, step) {
            (None, _) => return at,
            (Some(key_at), Step::Key(_)) => {
                let colon = skip_ws(b, skip_string(b, key_at));
                at = skip_ws(b, colon + 1);
            }
            (Some(element_at), Step::Index(_)) => at = element_at,
        }
    }
    at
}

/// Line and column (from 1, in characters) of byte `offset`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    // The characters after the last line break (not through `rsplit`, whose reverse
    // split iterator the page would have for this alone).
    let column = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
    (line, column)
}

/// Keys of the top-level object of `text`, as far as it reads as one (a scanner, not a
/// parser: whatever it misses, the import that follows reports).
pub(super) fn top_level_keys(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut keys = Vec::new();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return keys;
    }
    i = skip_ws(b, i + 1);
    while b.get(i) == Some(&b'"') {
        let end = skip_string(b, i);
        let colon = skip_ws(b, end);
        if b.get(colon) != Some(&b':') {
            break;
        }
        keys.extend(text.get(i + 1..end - 1));
        i = skip_ws(b, skip_value(b, skip_ws(b, colon + 1)));
        if b.get(i) != Some(&b',') {
            break;
        }
        i = skip_ws(b, i + 1);
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            path_steps("options[2].scenario.layers[10] (conv 'c')"),
            vec![
                Step::Key("options"),
                Step::Index(2),
                Step::Key("scenario"),
                Step::Key("layers"),
                Step::Index(10)
            ]
        );
    }

    #[test]
    fn locate_finds_nested_keys_and_elements() {
        let text = "{\n \"a\": {\"s\": \"x,]}\"},\n \"layers\": [\n  {\"k\": [1, 2]},\n  {\"k\": 3}\n ]\n}";
        let at = locate(text, &[Step::Key("layers"), Step::Index(1)]);
        assert_eq!(line_column(text, at), (5, 3));
        assert!(text[at..].starts_with("{\"k\": 3}"));
        let missing = locate(text, &[Step::Key("nope")]);
        assert_eq!(missing, 0);
    }

    #[test]
    fn top_level_keys_skip_nested_objects() {
        let text = r#" { "a": {"options": 1}, "b" : [1, {"c": 2}], "layers": "x,}" , "d": 3 }"#;
        assert_eq!(top_level_keys(text), vec!["a", "b", "layers", "d"]);
        assert!(top_level_keys("[1]").is_empty());
        assert_eq!(top_level_keys("{\"a\": 1, \"b"), vec!["a"]);
    }
}
