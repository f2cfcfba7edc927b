//! A YAML writer that lays documents out the way controller-gen (go-yaml v2) does, so a
//! project moving from Go sees no churn: keys in go-yaml's natural order, two-space
//! indentation with sequences flush under their key, multi-line strings as `|-` blocks,
//! long plain strings folded past column 80, and strings quoted only where YAML 1.1 would
//! read them as something else. Output is a pure function of the value.

mod node;

use std::cmp::Ordering;

pub use node::{Node, integral, to_node};

const WIDTH: usize = 80;

/// Renders `docs` as one YAML stream, each document introduced by `---`.
pub fn to_yaml_stream(docs: &[Node]) -> String {
    let mut out = String::new();
    for doc in docs {
        out.push_str("---\n");
        write_block(&mut out, doc, 0);
    }
    out
}

/// go-yaml v2's key order: a natural sort where runs of digits compare as numbers and
/// non-letters sort before letters.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        // The usual case (JSON schema keywords, field names): no allocation.
        natural_cmp_units(a.as_bytes(), b.as_bytes())
    } else {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        natural_cmp_units(&ar, &br)
    }
}

/// A character as `natural_cmp` sees it: bytes of ASCII text, or `char`s.
trait Unit: Copy + Ord {
    fn is_letter(self) -> bool;
    fn digit(self) -> Option<i64>;
}

impl Unit for u8 {
    fn is_letter(self) -> bool {
        self.is_ascii_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit().then(|| (self - b'0') as i64)
    }
}

impl Unit for char {
    fn is_letter(self) -> bool {
        self.is_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit()
            .then(|| (self as u32 - '0' as u32) as i64)
    }
}

fn natural_cmp_units<U: Unit>(ar: &[U], br: &[U]) -> Ordering {
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let (al, bl) = (ar[i].is_letter(), br[i].is_letter());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        // Both non-letters: compare digit runs numerically.
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i].digit() == Some(0) || br[i].digit() == Some(0) {
            let mut j = i;
            while j > 0 && ar[j - 1].digit().is_some() {
                j -= 1;
                if ar[j].digit() != Some(0) {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while let Some(d) = ar.get(ai).and_then(|u| u.digit()) {
            an = an.saturating_mul(10).saturating_add(d);
            ai += 1;
        }
        let mut bi = i;
        while let Some(d) = br.get(bi).and_then(|u| u.digit()) {
            bn = bn.saturating_mul(10).saturating_add(d);
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let step = left.min(SPACES.len());
        out.push_str(&SPACES[..step]);
        left -= step;
    }
}

/// Writes `value` as the content of a block at `level` spaces; the caller has already
/// written whatever precedes it on the current line (nothing, a key, or `- `).
fn write_block(out: &mut String, value: &Node, level: usize) {
    match value {
        Node::Map(map) if !map.is_empty() => {
            let mut entries: Vec<&(std::borrow::Cow<'static, str>, Node)> = map.iter().collect();
            // Byte order between keys go-yaml's order calls equal, as a JSON object's keys.
            entries.sort_by(|a, b| natural_cmp(&a.0, &b.0).then_with(|| a.0.cmp(&b.0)));
            for (n, (key, value)) in entries.into_iter().enumerate() {
                if n > 0 {
                    indent(out, level);
                }
                write_entry(out, key, value, level);
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    indent(out, level);
                }
                out.push_str("- ");
                match item {
                    Node::Map(m) if !m.is_empty() => write_block(out, item, level + 2),
                    Node::Seq(a) if !a.is_empty() => write_block(out, item, level + 2),
                    _ => {
                        write_scalar(out, item, level + 2, level + 2);
                        out.push('\n');
                    }
                }
            }
        }
        _ => {
            write_scalar(out, value, level, level);
            out.push('\n');
        }
    }
}

fn write_entry(out: &mut String, key: &str, value: &Node, level: usize) {
    write_string(out, key, level, level, false);
    out.push(':');
    match value {
        Node::Map(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            write_block(out, value, level + 2);
        }
        Node::Seq(a) if !a.is_empty() => {
            out.push('\n');
            indent(out, level);
            write_block(out, value, level);
        }
        _ => {
            out.push(' ');
            write_scalar(out, value, level, level + 2);
            out.push('\n');
        }
    }
}

/// Writes a scalar (or an empty collection) inline. `block_indent` is where a literal
/// block's lines go; `fold_indent` where folded continuation lines start.
fn write_scalar(out: &mut String, value: &Node, key_level: usize, fold_indent: usize) {
    match value {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => out.push_str(&format_number(n)),
        Node::String(s) => write_string(out, s, key_level, fold_indent, true),
        Node::Seq(_) => out.push_str("[]"),
        Node::Map(_) => out.push_str("{}"),
    }
}

fn format_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or_default();
    if f.is_infinite() {
        return if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    // Go's strconv 'g' with the shortest representation: exponent only for very large or
    // very small magnitudes.
    let exp = if f == 0.0 {
        0
    } else {
        f.abs().log10().floor() as i32
    };
    if !(-4..21).contains(&exp) {
        let s = format!("{f:e}");
        let (mantissa, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    f.to_string()
}

#[derive(PartialEq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

fn write_string(out: &mut String, s: &str, key_level: usize, fold_indent: usize, is_value: bool) {
    // Most keys and many values are single words (`type`, `x-kubernetes-list-type`,
    // `integer`, `v1`): plain, and never folded, since folding happens only at spaces.
    if is_plain_word(s) {
        out.push_str(s);
        return;
    }
    // A key must stay on its line: YAML ends an implicit key at the line break.
    let fold = |out: &mut String, s: &str, quoted: bool| {
        if is_value {
            write_folded(out, s, fold_indent, quoted);
        } else {
            out.push_str(s);
        }
    };
    match choose_style(s, is_value) {
        Style::Plain => fold(out, s, false),
        Style::SingleQuoted => {
            out.push('\'');
            fold(out, &s.replace('\'', "''"), true);
            out.push('\'');
        }
        Style::DoubleQuoted => write_double_quoted(out, s),
        Style::Literal => write_literal(out, s, key_level + 2),
    }
}

/// A word that starts with a letter and holds only letters, digits and `_-./`, other than
/// the words YAML 1.1 reads as booleans or null: [`choose_style`] would pick the plain style.
fn is_plain_word(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/'))
        && !is_special_word(s)
}

/// The plain scalars YAML 1.1 (go-yaml v2) resolves to null, booleans, infinities or NaN,
/// and the merge key.
fn is_special_word(s: &str) -> bool {
    matches!(
        s,
        "~" | "null"
            | "Null"
            | "NULL"
            | "y"
            | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | ".inf"
            | ".Inf"
            | ".INF"
            | "+.inf"
            | "+.Inf"
            | "+.INF"
            | "-.inf"
            | "-.Inf"
            | "-.INF"
            | ".nan"
            | ".NaN"
            | ".NAN"
            | "<<"
    )
}

fn choose_style(s: &str, is_value: bool) -> Style {
    if s.is_empty() {
        return Style::DoubleQuoted;
    }
    // One pass over the bytes; characters are decoded only for non-ASCII text.
    let (mut ascii, mut newline, mut control) = (true, false, false);
    for &b in s.as_bytes() {
        match b {
            b'\n' => newline = true,
            b'\t' => {}
            0..0x20 | 0x7f => control = true,
            0x80.. => ascii = false,
            _ => {}
        }
    }
    let printable = !control
        && (ascii
            || s.chars()
                .all(|c| c == '\n' || c == '\t' || !needs_escape(c)));
    if !printable {
        return Style::DoubleQuoted;
    }
    if newline {
        // A literal block takes its indentation from its first non-empty line, which must
        // therefore not start with a blank; and it needs a line with content to hold.
        let first = s.split('\n').find(|l| !l.is_empty());
        let lines_ok = first.is_some_and(|l| !l.starts_with([' ', '\t']))
            && !s.split('\n').any(|l| l.ends_with(' ') || l.ends_with('\t'));
        return if is_value && lines_ok {
            Style::Literal
        } else {
            Style::DoubleQuoted
        };
    }
    if resolves_to_non_string(s) {
        return Style::DoubleQuoted;
    }
    if plain_allowed(s) {
        Style::Plain
    } else {
        Style::SingleQuoted
    }
}

/// Whether YAML 1.1 (as go-yaml v2 resolves plain scalars) would read `s` as a non-string.
fn resolves_to_non_string(s: &str) -> bool {
    if is_special_word(s) {
        return true;
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')) {
        return false;
    }
    let plain: String = s.chars().filter(|c| *c != '_').collect();
    let body = plain.trim_start_matches(['+', '-']);
    let is_int = !body.is_empty()
        && (body.bytes().all(|b| b.is_ascii_digit())
            || body
                .strip_prefix("0x")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
            || body
                .strip_prefix("0b")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b == b'0' || b == b'1'))
            || body
                .strip_prefix("0o")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| (b'0'..=b'7').contains(&b))));
    let is_float = {
        let b = body.as_bytes();
        let mut i = 0;
        let mut digits = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
                digits += 1;
            }
        }
        if digits > 0 && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
        digits > 0 && i == b.len()
    };
    // Sexagesimal numbers such as 1:20 are numbers to YAML 1.1.
    let is_base60 = body.contains(':')
        && body.split(':').enumerate().all(|(n, part)| {
            let part = if n > 0 {
                part.split('.').next().unwrap_or(part)
            } else {
                part
            };
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())
        });
    is_int || is_float || is_base60
}

/// libyaml's rules for a plain scalar in block context.
fn plain_allowed(s: &str) -> bool {
    // Every character that matters here is ASCII, so bytes will do.
    let b = s.as_bytes();
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    if b[0] == b' ' || b[b.len() - 1] == b' ' {
        return false;
    }
    let space = |c: u8| c == b' ' || c == b'\t';
    let first = b[0];
    if b"#,[]{}&*!|>'\"%@`".contains(&first)
        || (matches!(first, b'?' | b':' | b'-') && b.get(1).is_none_or(|n| space(*n)))
    {
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\t' => return false,
            b':' if i > 0 && b.get(i + 1).is_none_or(|n| space(*n)) => return false,
            b'#' if i > 0 && space(b[i - 1]) => return false,
            _ => {}
        }
    }
    true
}

/// Writes `s`, replacing a space by a line break when the line is already past the width
/// (libyaml's folding of plain and single-quoted scalars).
fn write_folded(out: &mut String, s: &str, fold_indent: usize, quoted: bool) {
    let mut column = out.len() - out.rfind('\n').map_or(0, |p| p + 1);
    if column + s.len() <= WIDTH {
        // No space of `s` can be past the width: nothing to fold.
        out.push_str(s);
        return;
    }
    let bytes = s.as_bytes();
    let mut prev_space = false;
    let mut plain_from = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if c == b' ' {
            // Spaces are single bytes, so the neighbours can be looked at as bytes.
            // A break next to a tab would drop the tab: YAML trims blanks around a fold.
            let next_is_space = matches!(bytes.get(i + 1), Some(b' ' | b'\t'));
            let last = i + 1 == bytes.len();
            let allow = !prev_space && column > WIDTH && !next_is_space && i != 0 && !last;
            out.push_str(&s[plain_from..i]);
            plain_from = i + 1;
            if allow && (!quoted || !last) {
                out.push('\n');
                indent(out, fold_indent);
                column = fold_indent;
            } else {
                out.push(' ');
                column += 1;
            }
            prev_space = true;
        } else if c & 0xC0 != 0x80 {
            // The first byte of a character (continuation bytes do not move the column).
            column += 1;
            prev_space = c == b'\t';
        }
    }
    out.push_str(&s[plain_from..]);
}

/// Characters YAML does not take as they are in a scalar: controls, the byte-order mark and
/// the non-characters (not printable for YAML), and the Unicode line and paragraph
/// separators (line breaks for YAML 1.1).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

fn write_double_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_literal(out: &mut String, s: &str, level: usize) {
    let chomp = if s.ends_with("\n\n") {
        "+"
    } else if s.ends_with('\n') {
        ""
    } else {
        "-"
    };
    out.push('|');
    out.push_str(chomp);
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, level);
            out.push_str(line);
        }
    }
}

#[cfg(test)]
mod tests;
