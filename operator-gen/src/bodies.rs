//! Function bodies blanked out of the source text before it is lexed.
//!
//! operator-gen never reads statements, and in an operator's crate they are most of the
//! tokens: lexing them was 44% of the instructions for the memcached crate even though
//! [`crate::source`] drops them right after. This scan finds the same bodies the token pass
//! empties (the brace group after `fn name`, at the top level and inside `impl`, `trait`
//! and `mod` blocks) and keeps only their line breaks, plus one space per character of the
//! body's last line, so every token outside a body keeps its line and column. Files with
//! no function body worth it (API types, empty functions) are not scanned at all.
//!
//! It knows just enough of Rust's lexical grammar to find where groups end: comments
//! (nested), strings, raw strings, byte and C strings, character literals and lifetimes.
//! When it meets anything it does not expect (an unbalanced delimiter, an unterminated
//! literal or comment) it gives up and the text is lexed as written: the token pass is the
//! authority and a body this scan misses is still emptied there.

/// `text` with every function body blanked, or `None` when there is nothing to blank or
/// the text is not what the scan expects.
pub(crate) fn blank_fn_bodies(text: &str) -> Option<String> {
    if !has_bodies(text) {
        return None;
    }
    let mut scan = Scan {
        text,
        b: text.as_bytes(),
        pos: 0,
        bodies: Vec::new(),
    };
    scan.items(false)?;
    scan.bodies
        .retain(|(start, end)| !text[*start..*end].trim().is_empty());
    if scan.bodies.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (start, end) in scan.bodies {
        out.push_str(&text[from..start]);
        // The line breaks keep every later line where it was; the last line's characters,
        // as spaces, keep the closing brace and whatever follows it in their columns.
        let body = &text[start..end];
        let last_line = body.rfind('\n').map_or(0, |n| n + 1);
        out.extend(
            body[..last_line]
                .chars()
                .filter(|c| matches!(c, '\n' | '\r')),
        );
        out.extend(body[last_line..].chars().map(|_| ' '));
        from = end;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Bytes that start no comment, literal or group: inside a group, where only the group's
/// end matters, they go by without a look. Word bytes are among them: a raw string's
/// prefix is recognised from its quote, looking back.
const PLAIN: [bool; 256] = {
    let mut table = [true; 256];
    let mut special = 0;
    let specials = b"/\"'{}()[]";
    while special < specials.len() {
        table[specials[special] as usize] = false;
        special += 1;
    }
    table
};

fn is_word_byte(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80
}

/// Whether some `fn ` in the text is followed by a brace group that is not empty: files of
/// API types, with no functions or only empty ones, are not worth a scan. A cost guess
/// only: `fn ` in a comment or string may say yes, and the scan then finds nothing.
fn has_bodies(text: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), b"fn ").any(|at| {
        let rest = &text[at..];
        rest.find('{')
            .is_some_and(|open| !rest[open + 1..].trim_start().starts_with('}'))
    })
}

/// Where the token pass is in an item list (mirrors `source::without_fn_bodies`).
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    Nothing,
    /// `fn`, waiting for the name (a fn pointer type has none).
    Fn,
    /// `fn name`: the next brace group is the body.
    NamedFn,
    /// `impl`, `trait` or `mod`: the next brace group holds items.
    Container,
}

/// What the scan found at the cursor.
enum Token<'t> {
    Ident(&'t [u8]),
    /// A literal, or a doc comment (which the lexer turns into `#[doc = "..."]`).
    Other,
    Punct(u8),
    Open(u8),
    Close(u8),
    End,
}

struct Scan<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    /// Byte ranges to blank: the inside of each body's braces.
    bodies: Vec<(usize, usize)>,
}

impl<'t> Scan<'t> {
    /// Scans an item list up to its closing brace (`inside`) or the end of the text.
    fn items(&mut self, inside: bool) -> Option<()> {
        let mut seen = Seen::Nothing;
        loop {
            match self.token()? {
                Token::End => return (!inside).then_some(()),
                Token::Close(b'}') if inside => return Some(()),
                Token::Close(_) => return None,
                Token::Ident(word) => {
                    seen = match seen {
                        Seen::Fn | Seen::NamedFn => Seen::NamedFn,
                        _ if word == b"fn" => Seen::Fn,
                        _ if word == b"impl" || word == b"trait" || word == b"mod" => {
                            Seen::Container
                        }
                        other => other,
                    }
                }
                Token::Open(b'{') => {
                    match seen {
                        Seen::NamedFn => {
                            let start = self.pos;
                            self.group(b'}')?;
                            self.bodies.push((start, self.pos - 1));
                        }
                        Seen::Container => self.items(true)?,
                        _ => self.group(b'}')?,
                    }
                    seen = Seen::Nothing;
                }
                Token::Open(open) => {
                    self.group(if open == b'(' { b')' } else { b']' })?;
                    if seen == Seen::Fn {
                        seen = Seen::Nothing;
                    }
                }
                Token::Punct(b';') => seen = Seen::Nothing,
                Token::Punct(_) => {}
                Token::Other => {
                    if seen == Seen::Fn {
                        seen = Seen::Nothing;
                    }
                }
            }
        }
    }

    /// Skips to just after the `close` that ends the group whose opener was just read.
    /// Nothing inside matters but where the group ends, so words, numbers and punctuation
    /// go by in bulk and only delimiters, comments and literals are looked at.
    fn group(&mut self, close: u8) -> Option<()> {
        let mut expect = vec![close];
        loop {
            while self.b.get(self.pos).is_some_and(|&c| PLAIN[usize::from(c)]) {
                self.pos += 1;
            }
            let c = *self.b.get(self.pos)?;
            match c {
                b'{' | b'(' | b'[' => {
                    expect.push(match c {
                        b'{' => b'}',
                        b'(' => b')',
                        _ => b']',
                    });
                    self.pos += 1;
                }
                b'}' | b')' | b']' => {
                    if expect.pop() != Some(c) {
                        return None;
                    }
                    self.pos += 1;
                    if expect.is_empty() {
                        return Some(());
                    }
                }
                b'/' if matches!(self.peek(1), b'/' | b'*') => {
                    self.comment()?;
                }
                b'/' => self.pos += 1,
                b'"' => match self.raw_prefix_before() {
                    Some(hashes) => self.raw_string_from_quote(hashes)?,
                    None => {
                        self.pos += 1;
                        self.quoted(b'"')?;
                    }
                },
                _ => {
                    // `'`: a character literal, or a lifetime whose name goes by as words.
                    self.quote_or_lifetime()?;
                }
            }
        }
    }

    /// At a `"`: the number of `#` of a raw string (`r"`, `r#"`, `br##"`, `cr"`), or `None`
    /// for a plain, byte or C string.
    fn raw_prefix_before(&self) -> Option<usize> {
        let b = &self.b[..self.pos];
        let hashes = b.iter().rev().take_while(|&&c| c == b'#').count();
        let mut start = b.len() - hashes;
        if start == 0 || b[start - 1] != b'r' {
            return None;
        }
        start -= 1;
        if start > 0 && matches!(b[start - 1], b'b' | b'c') {
            start -= 1;
        }
        let word_before = start > 0 && is_word_byte(b[start - 1]);
        (!word_before).then_some(hashes)
    }

    /// The rest of a raw string with `hashes` `#`, the cursor on its opening quote.
    fn raw_string_from_quote(&mut self, hashes: usize) -> Option<()> {
        self.pos += 1;
        loop {
            let n = self.b[self.pos..].iter().position(|&b| b == b'"')?;
            self.pos += n + 1;
            if self.b[self.pos..]
                .iter()
                .take(hashes)
                .filter(|&&b| b == b'#')
                .count()
                == hashes
            {
                self.pos += hashes;
                return Some(());
            }
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.b.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// The next token, comments and white space skipped.
    fn token(&mut self) -> Option<Token<'t>> {
        loop {
            let Some(&c) = self.b.get(self.pos) else {
                return Some(Token::End);
            };
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if matches!(self.peek(1), b'/' | b'*') => {
                    if self.comment()? {
                        return Some(Token::Other);
                    }
                }
                b'{' | b'(' | b'[' => {
                    self.pos += 1;
                    return Some(Token::Open(c));
                }
                b'}' | b')' | b']' => {
                    self.pos += 1;
                    return Some(Token::Close(c));
                }
                b'"' => {
                    self.pos += 1;
                    self.quoted(b'"')?;
                    return Some(Token::Other);
                }
                b'\'' => return self.quote_or_lifetime(),
                b'0'..=b'9' => {
                    self.pos += 1;
                    while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
                        self.pos += 1;
                    }
                    return Some(Token::Other);
                }
                c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => return self.word(),
                _ => {
                    self.pos += 1;
                    return Some(Token::Punct(c));
                }
            }
        }
    }

    /// An identifier, keyword, raw identifier, or a literal with a prefix (`b"..."`,
    /// `r#"..."#`, `b'x'`, `c"..."`).
    fn word(&mut self) -> Option<Token<'t>> {
        let start = self.pos;
        self.skip_word_chars();
        let word = &self.b[start..self.pos];
        let next = self.peek(0);
        let raw_string = matches!(word, b"r" | b"br" | b"cr")
            && (next == b'"' || (next == b'#' && self.raw_string_follows()));
        if raw_string {
            self.raw_string()?;
            return Some(Token::Other);
        }
        match (word, next) {
            (b"r", b'#') => {
                // A raw identifier such as `r#type`: never one of the words that matter.
                self.pos += 1;
                let from = self.pos;
                self.skip_word_chars();
                (self.pos > from).then_some(Token::Ident(b"r#"))
            }
            (b"b" | b"c", b'"') => {
                self.pos += 1;
                self.quoted(b'"')?;
                Some(Token::Other)
            }
            (b"b", b'\'') => {
                self.pos += 1;
                self.quoted(b'\'')?;
                Some(Token::Other)
            }
            _ => Some(Token::Ident(word)),
        }
    }

    fn skip_word_chars(&mut self) {
        while matches!(self.peek(0), b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | 0x80..) {
            self.pos += 1;
        }
    }

    /// After `r`: whether `#...#"` starts a raw string (rather than a raw identifier).
    fn raw_string_follows(&self) -> bool {
        let hashes = self.b[self.pos..]
            .iter()
            .take_while(|&&b| b == b'#')
            .count();
        self.peek(hashes) == b'"'
    }

    /// `#*"..."#*`, the cursor on the first `#` or the quote.
    fn raw_string(&mut self) -> Option<()> {
        let hashes = self.b[self.pos..]
            .iter()
            .take_while(|&&b| b == b'#')
            .count();
        self.pos += hashes;
        if self.peek(0) != b'"' {
            return None;
        }
        self.raw_string_from_quote(hashes)
    }

    /// The rest of a literal after its opening `quote`, escapes skipped.
    fn quoted(&mut self, quote: u8) -> Option<()> {
        loop {
            match *self.b.get(self.pos)? {
                b'\\' => self.pos += 2,
                c if c == quote => {
                    self.pos += 1;
                    return Some(());
                }
                _ => self.pos += 1,
            }
        }
    }

    /// `'x'`, `'\n'`, `'\u{..}'` (a character) or `'a` (a lifetime or label: a punct and an
    /// identifier to the lexer).
    fn quote_or_lifetime(&mut self) -> Option<Token<'t>> {
        self.pos += 1;
        if self.peek(0) == b'\\' {
            self.quoted(b'\'')?;
            return Some(Token::Other);
        }
        let width = match self.peek(0) {
            0 => return None,
            c if c < 0x80 => 1,
            c if c >= 0xf0 => 4,
            c if c >= 0xe0 => 3,
            _ => 2,
        };
        if self.peek(width) == b'\'' {
            self.pos += width + 1;
            return Some(Token::Other);
        }
        // A lifetime: the `'` is punctuation and the name comes back as an identifier on
        // the next call, as the lexer sees it.
        Some(Token::Punct(b'\''))
    }

    /// Skips the comment at the cursor (`//` or `/*`); returns whether it is a doc comment,
    /// which the lexer turns into tokens.
    fn comment(&mut self) -> Option<bool> {
        if self.peek(1) == b'/' {
            // `///` and `//!` are doc comments, `////` is not.
            let doc = (self.peek(2) == b'/' && self.peek(3) != b'/') || self.peek(2) == b'!';
            // `str::find` looks for the line break with `memchr`: doc comments are a large
            // part of an API's text.
            self.pos = self.text[self.pos..]
                .find('\n')
                .map_or(self.b.len(), |n| self.pos + n);
            Some(doc)
        } else {
            // `/**` (but not `/**/` or `/***`) and `/*!` are doc comments.
            let doc = (self.peek(2) == b'*' && !matches!(self.peek(3), b'*' | b'/'))
                || self.peek(2) == b'!';
            self.block_comment()?;
            Some(doc)
        }
    }

    /// A block comment, nested ones included; the cursor on its `/*`.
    fn block_comment(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match (self.b.get(self.pos)?, self.peek(1)) {
                (b'/', b'*') => {
                    depth += 1;
                    self.pos += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
                    self.pos += 2;
                    if depth == 0 {
                        return Some(());
                    }
                }
                _ => self.pos += 1,
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
