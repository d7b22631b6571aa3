//! Text for a terminal: display widths (CJK characters take two columns), wrapped
//! paragraphs and aligned tables.

/// Columns a paragraph is wrapped to.
pub const COLUMNS: usize = 88;

/// A table's header up to this wide stays on one line.
const HEADER_COLUMNS: usize = 14;

/// Columns `c` takes in a terminal: two for CJK ideographs, kana, hangul and full-width
/// forms (Unicode East Asian Width W and F), one otherwise.
fn char_width(c: char) -> usize {
    match u32::from(c) {
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6 => 2,
        _ => 1,
    }
}

/// Columns `text` takes in a terminal.
pub fn width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// Punctuation a line may not start with (Chinese line-breaking rules, and the Latin
/// closing marks).
fn no_break_before(c: char) -> bool {
    // A unit sign stays with its figure ("20 %", "1.6 ×").
    "，。、；：？！）》」』】”’,.;:?!)%×".contains(c)
}

/// Brackets, quotes and the list separator a line may not end with.
fn no_break_after(c: char) -> bool {
    "（《「『【“‘(·".contains(c)
}

/// Pieces a line may break between: a word and its following spaces, one CJK character
/// with the punctuation that may neither end nor start a line beside it, or a note in
/// full-width brackets whole.
fn pieces(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_note = false;
    for c in text.chars() {
        let wide = char_width(c) == 2;
        let after_space = current.ends_with(' ') && c != ' ';
        let last = current.chars().last();
        // The last character before any spaces: "a · " keeps its separator with what follows.
        let breaks = !in_note
            && current
                .trim_end_matches(' ')
                .chars()
                .last()
                .is_some_and(|l| !no_break_after(l))
            && !no_break_before(c)
            && (after_space || wide || last.is_some_and(|l| char_width(l) == 2));
        match c {
            '（' => in_note = true,
            '）' => in_note = false,
            _ => {}
        }
        if breaks {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `text` wrapped to `COLUMNS`, each line starting with `indent`.
pub fn wrap(text: &str, indent: &str) -> Vec<String> {
    let room = COLUMNS.saturating_sub(width(indent)).max(20);
    let mut lines = Vec::new();
    let mut line = String::new();
    for piece in pieces(text) {
        if !line.is_empty() && width(&line) + width(piece.trim_end()) > room {
            lines.push(format!("{indent}{}", line.trim_end()));
            line.clear();
        }
        line.push_str(if line.is_empty() {
            piece.trim_start()
        } else {
            &piece
        });
    }
    if !line.trim().is_empty() {
        lines.push(format!("{indent}{}", line.trim_end()));
    }
    lines
}

/// A list item: `- text`, wrapped with its lines under the text.
pub fn bullet(text: &str, indent: &str) -> Vec<String> {
    let mut lines = wrap(text, &format!("{indent}  "));
    if let Some(first) = lines.first_mut() {
        *first = format!("{indent}- {}", first.trim_start());
    }
    lines
}

/// `text` padded with spaces to `columns`, on the left when `right` (numbers).
fn pad(text: &str, columns: usize, right: bool) -> String {
    let fill = " ".repeat(columns.saturating_sub(width(text)));
    if right {
        format!("{fill}{text}")
    } else {
        format!("{text}{fill}")
    }
}

/// A table: the first column and the `text` columns left-aligned, the others
/// right-aligned (figures). A header wider than its column's figures is wrapped onto more
/// lines.
pub fn table(indent: &str, header: &[String], rows: &[Vec<String>], text: &[usize]) -> Vec<String> {
    let columns = header.len();
    // A column is as wide as its widest figure and its longest header word, and wide
    // enough for a header of up to HEADER_COLUMNS on one line.
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            let figures = rows.iter().map(|r| r.get(c).map_or(0, |t| width(t)));
            let words = pieces(&header[c]).into_iter().map(|w| width(w.trim()));
            let header = width(&header[c]).min(HEADER_COLUMNS);
            figures.chain(words).max().unwrap_or(0).max(header)
        })
        .collect();
    let header_lines: Vec<Vec<String>> = header
        .iter()
        .zip(&widths)
        .map(|(h, w)| wrap_to(h, *w))
        .collect();
    let depth = header_lines.iter().map(Vec::len).max().unwrap_or(0);
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, t)| pad(t, widths[c], c > 0 && !text.contains(&c)))
            .collect();
        format!("{indent}{}", padded.join("  "))
            .trim_end()
            .to_string()
    };
    let mut out = Vec::new();
    for row in 0..depth {
        // Header lines are bottom-aligned, so every column's last line sits on one row.
        out.push(line(
            header_lines
                .iter()
                .map(|h| {
                    let skip = depth - h.len();
                    if row < skip {
                        ""
                    } else {
                        h[row - skip].as_str()
                    }
                })
                .collect(),
        ));
    }
    for row in rows {
        out.push(line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// `text` broken into lines of at most `columns` (a longer word keeps its own line).
fn wrap_to(text: &str, columns: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in pieces(text) {
        if !line.is_empty() && width(&line) + width(piece.trim_end()) > columns {
            lines.push(line.trim_end().to_string());
            line.clear();
        }
        line.push_str(if line.is_empty() {
            piece.trim_start()
        } else {
            &piece
        });
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_characters_take_two_columns() {
        assert_eq!(width("GPU"), 3);
        assert_eq!(width("显存"), 4);
        assert_eq!(width("每卡显存（GiB）"), 15);
        assert_eq!(width("3.42 GiB"), 8);
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_between_chinese_characters() {
        let english = "word ".repeat(40);
        let lines = wrap(&english, "  ");
        assert!(lines.len() > 1);
        assert!(lines
            .iter()
            .all(|l| width(l) <= COLUMNS && l.starts_with("  word")));
        let chinese = "可以放进显卡，余量很大。".repeat(12);
        let lines = wrap(&chinese, "");
        assert!(lines.len() > 1);
        for l in &lines {
            assert!(width(l) <= COLUMNS, "{l}");
            // No line starts with a comma or a full stop.
            assert!(!l.starts_with('，') && !l.starts_with('。'), "{l}");
        }
        assert_eq!(lines.concat(), chinese);
        // An opening bracket stays with what it opens.
        let note = wrap_to("最大空间块（像素）", 14);
        assert_eq!(note, ["最大空间块", "（像素）"]);
        // A figure keeps its unit sign.
        for width in 6..12 {
            let lines = wrap_to("保留 20 % 余量，快 1.6 × 左右", width);
            assert!(
                lines.iter().all(|l| !l.starts_with(['%', '×'])),
                "{lines:?}"
            );
        }
        let item = bullet(&"long ".repeat(30), "  ");
        assert!(item[0].starts_with("  - long") && item[1].starts_with("    long"));
    }

    #[test]
    fn tables_align_figures_right_under_wrapped_headers() {
        let header = vec!["".to_string(), "Largest batch that fits".to_string()];
        let rows = vec![
            vec!["a".to_string(), "5".to_string()],
            vec!["显卡".to_string(), "5,266".to_string()],
        ];
        let lines = table("", &header, &rows, &[]);
        let spaces = |n: usize| " ".repeat(n);
        // Column widths 4 (显卡) and 14 (a header's one line at most); two spaces between.
        assert_eq!(
            lines,
            [
                format!("{}Largest batch", spaces(7)),
                format!("{}that fits", spaces(11)),
                format!("a{}5", spaces(18)),
                format!("显卡{}5,266", spaces(11)),
            ]
        );
    }
}
