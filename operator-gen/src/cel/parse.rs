//! A parser for CEL as the API server compiles `x-kubernetes-validations` rules: the CEL
//! grammar (literals, operators with CEL's precedence, member access, calls, indexing, list
//! and map literals, message construction) with Kubernetes' optional syntax (`a.?b`, `a[?k]`,
//! `[?x]`, `{?k: v}`). It builds an [`Expr`] tree and reports the first syntax error with its
//! column.

use std::fmt;

/// A parsed expression. `at` is the byte offset of the node in the rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the node is.
    pub kind: Kind,
    /// The byte offset in the rule.
    pub at: usize,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An `int` literal.
    Int(i64),
    /// A `uint` literal (`1u`).
    Uint(u64),
    /// A `double` literal.
    Double(f64),
    /// A string literal, escapes resolved.
    String(String),
    /// A bytes literal (`b"..."`).
    Bytes(Vec<u8>),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A name: a variable (`self`, `oldSelf`) or a type.
    Ident(String),
    /// `operand.field`, `operand.?field`.
    Select {
        /// What is selected from or indexed.
        operand: Box<Expr>,
        /// The field's name.
        field: String,
        /// The optional form (`.?field`, `[?index]`).
        optional: bool,
    },
    /// `name(args)` or `target.name(args)`; macros (`has`, `all`, ...) too.
    Call {
        /// The receiver of a method call.
        target: Option<Box<Expr>>,
        /// The function's, or the message type's, name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `operand[index]`, `operand[?index]`.
    Index {
        /// What is selected from or indexed.
        operand: Box<Expr>,
        /// The index or key.
        index: Box<Expr>,
        /// The optional form (`.?field`, `[?index]`).
        optional: bool,
    },
    /// `[a, ?b]`: each element, and whether it is optional.
    List(Vec<(Expr, bool)>),
    /// `{k: v, ?k2: v2}`.
    Map(Vec<(Expr, Expr, bool)>),
    /// `Name{field: value}`.
    Message {
        /// The function's, or the message type's, name.
        name: String,
        /// Each field's name and value.
        fields: Vec<(String, Expr)>,
    },
    /// `!x` or `-x`.
    Unary(Op, Box<Expr>),
    /// An operator between two operands.
    Binary(Op, Box<Expr>, Box<Expr>),
    /// `cond ? then : else`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// CEL's operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in`
    In,
    /// `+`
    Add,
    /// `-` between two operands
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `!`
    Not,
    /// `-` before an operand
    Neg,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Or => "||",
            Op::And => "&&",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::In => "in",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Mod => "%",
            Op::Not => "!",
            Op::Neg => "-",
        })
    }
}

/// A syntax error: what, and the byte offset where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// The byte offset in the rule.
    pub at: usize,
}

/// Words CEL reserves: not identifiers.
pub const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Whether a property named `name` is spelled `__name__` in CEL: the reserved words and the
/// literal keywords.
pub fn escaped_word(name: &str) -> bool {
    RESERVED.contains(&name) || matches!(name, "true" | "false" | "null" | "in")
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    Ident(String),
    Punct(&'static str),
    End,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", ".?", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":",
    ".", ",", "(", ")", "[", "]", "{", "}",
];

impl<'a> Lexer<'a> {
    fn err<T>(&self, at: usize, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            message: message.into(),
            at,
        })
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn skip_space(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
            self.pos += rest.len() - trimmed.len();
            if self.rest().starts_with("//") {
                let line = self.rest().find('\n').unwrap_or(self.rest().len());
                self.pos += line;
            } else {
                return;
            }
        }
    }

    /// The next token and where it starts.
    fn next(&mut self) -> Result<(Tok, usize), SyntaxError> {
        self.skip_space();
        let start = self.pos;
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return Ok((Tok::End, start));
        };
        // String and bytes literals, with their prefixes.
        let lower: String = rest
            .chars()
            .take(3)
            .collect::<String>()
            .to_ascii_lowercase();
        for (prefix, raw, bytes) in [
            ("rb", true, true),
            ("br", true, true),
            ("r", true, false),
            ("b", false, true),
            ("", false, false),
        ] {
            if lower.starts_with(prefix)
                && rest[prefix.len()..].starts_with(['"', '\''])
                && (prefix.is_empty() || !rest[prefix.len()..].is_empty())
            {
                self.pos += prefix.len();
                let text = self.string(raw)?;
                return Ok((
                    if bytes {
                        Tok::Bytes(text)
                    } else {
                        Tok::Str(String::from_utf8(text).map_err(|_| SyntaxError {
                            message: "a string literal that is not UTF-8".into(),
                            at: start,
                        })?)
                    },
                    start,
                ));
            }
        }
        if c.is_ascii_digit() || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
            return self.number().map(|t| (t, start));
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            self.pos += len;
            return Ok((Tok::Ident(rest[..len].to_string()), start));
        }
        for p in PUNCTS {
            if rest.starts_with(p) {
                self.pos += p.len();
                return Ok((Tok::Punct(p), start));
            }
        }
        self.err(start, format!("unexpected character {c:?}"))
    }

    fn number(&mut self) -> Result<Tok, SyntaxError> {
        let start = self.pos;
        let rest = self.rest();
        if rest.starts_with("0x") || rest.starts_with("0X") {
            let digits = rest[2..]
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(rest.len() - 2);
            let text = &rest[2..2 + digits];
            self.pos += 2 + digits;
            if self.rest().starts_with(['u', 'U']) {
                self.pos += 1;
                return u64::from_str_radix(text, 16)
                    .map(Tok::Uint)
                    .or_else(|_| self.err(start, "an unsigned integer out of range"));
            }
            return i64::from_str_radix(text, 16)
                .map(Tok::Int)
                .or_else(|_| self.err(start, "an integer out of range"));
        }
        let bytes = rest.as_bytes();
        let mut i = 0;
        let mut float = false;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            float = true;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            let mut j = i + 1;
            if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_digit() {
                float = true;
                i = j;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
        let text = &rest[..i];
        self.pos += i;
        if float {
            return text
                .parse()
                .map(Tok::Double)
                .or_else(|_| self.err(start, "a malformed number"));
        }
        if self.rest().starts_with(['u', 'U']) {
            self.pos += 1;
            return text
                .parse()
                .map(Tok::Uint)
                .or_else(|_| self.err(start, "an unsigned integer out of range"));
        }
        // 9223372036854775808 is only valid negated; kept as a uint-sized value for `-`.
        match text.parse::<i64>() {
            Ok(n) => Ok(Tok::Int(n)),
            Err(_) if text == "9223372036854775808" => Ok(Tok::Uint(9223372036854775808)),
            Err(_) => self.err(start, "an integer out of range"),
        }
    }

    /// A quoted literal at `pos` (the quote), raw or with escapes.
    fn string(&mut self, raw: bool) -> Result<Vec<u8>, SyntaxError> {
        let start = self.pos;
        let rest = self.rest();
        let q = &rest[..1];
        let triple = rest.starts_with(&q.repeat(3));
        let close = if triple { q.repeat(3) } else { q.to_string() };
        self.pos += close.len();
        let mut out = Vec::new();
        loop {
            let rest = self.rest();
            if rest.starts_with(&close) {
                self.pos += close.len();
                return Ok(out);
            }
            let Some(c) = rest.chars().next() else {
                return self.err(start, "a string literal without its closing quote");
            };
            if !triple && (c == '\n' || c == '\r') {
                return self.err(start, "a line break in a single-line string literal");
            }
            if c == '\\' && !raw {
                self.pos += 1;
                self.escape(&mut out)?;
                continue;
            }
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            self.pos += c.len_utf8();
        }
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), SyntaxError> {
        let at = self.pos - 1;
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return self.err(at, "an escape at the end of the rule");
        };
        self.pos += 1;
        let simple = match c {
            'a' => Some(7),
            'b' => Some(8),
            'f' => Some(12),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(11),
            '\\' => Some(b'\\'),
            '\'' => Some(b'\''),
            '"' => Some(b'"'),
            '`' => Some(b'`'),
            '?' => Some(b'?'),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            return Ok(());
        }
        let (digits, radix, len) = match c {
            'x' | 'X' => (2, 16, 2),
            'u' => (4, 16, 4),
            'U' => (8, 16, 8),
            '0'..='3' => {
                self.pos -= 1;
                (3, 8, 3)
            }
            _ => return self.err(at, format!("an unknown escape \\{c}")),
        };
        let text = self.rest().get(..len).unwrap_or_default();
        if text.len() != digits || !text.chars().all(|d| d.is_digit(radix)) {
            return self.err(at, format!("a malformed escape \\{c}"));
        }
        self.pos += len;
        let value = u32::from_str_radix(text, radix).unwrap_or_default();
        if radix == 16 && digits >= 4 {
            let ch = char::from_u32(value).ok_or_else(|| SyntaxError {
                message: "an escape that is no Unicode character".into(),
                at,
            })?;
            let mut buf = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        } else {
            out.push(value as u8);
        }
        Ok(())
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    tok: Tok,
    at: usize,
    depth: usize,
}

/// How deep expressions may nest (the API server's parser stops at a similar depth).
const MAX_DEPTH: usize = 250;

impl Parser<'_> {
    fn bump(&mut self) -> Result<(), SyntaxError> {
        let (tok, at) = self.lexer.next()?;
        self.tok = tok;
        self.at = at;
        Ok(())
    }

    fn is(&self, p: &str) -> bool {
        matches!(&self.tok, Tok::Punct(q) if *q == p)
    }

    fn expect(&mut self, p: &str) -> Result<(), SyntaxError> {
        if self.is(p) {
            self.bump()
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn unexpected(&self, wanted: &str) -> SyntaxError {
        let found = match &self.tok {
            Tok::End => "the end of the rule".to_string(),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Ident(i) => format!("`{i}`"),
            _ => "a literal".to_string(),
        };
        SyntaxError {
            message: format!("expected {wanted}, found {found}"),
            at: self.at,
        }
    }

    fn node(kind: Kind, at: usize) -> Expr {
        Expr { kind, at }
    }

    fn expr(&mut self) -> Result<Expr, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SyntaxError {
                message: "the expression nests too deeply".into(),
                at: self.at,
            });
        }
        let at = self.at;
        let cond = self.binary(0)?;
        let out = if self.is("?") {
            self.bump()?;
            let then = self.binary(0)?;
            self.expect(":")?;
            let otherwise = self.expr()?;
            Self::node(
                Kind::Cond(Box::new(cond), Box::new(then), Box::new(otherwise)),
                at,
            )
        } else {
            cond
        };
        self.depth -= 1;
        Ok(out)
    }

    /// The binary operator at the current token with its precedence level (0 lowest).
    fn binop(&self) -> Option<(Op, usize)> {
        let op = match &self.tok {
            Tok::Punct("||") => (Op::Or, 0),
            Tok::Punct("&&") => (Op::And, 1),
            Tok::Punct("==") => (Op::Eq, 2),
            Tok::Punct("!=") => (Op::Ne, 2),
            Tok::Punct("<") => (Op::Lt, 2),
            Tok::Punct("<=") => (Op::Le, 2),
            Tok::Punct(">") => (Op::Gt, 2),
            Tok::Punct(">=") => (Op::Ge, 2),
            Tok::Ident(w) if w == "in" => (Op::In, 2),
            Tok::Punct("+") => (Op::Add, 3),
            Tok::Punct("-") => (Op::Sub, 3),
            Tok::Punct("*") => (Op::Mul, 4),
            Tok::Punct("/") => (Op::Div, 4),
            Tok::Punct("%") => (Op::Mod, 4),
            _ => return None,
        };
        Some(op)
    }

    fn binary(&mut self, min: usize) -> Result<Expr, SyntaxError> {
        let mut left = self.unary()?;
        while let Some((op, level)) = self.binop() {
            if level < min {
                break;
            }
            let at = self.at;
            self.bump()?;
            let right = self.binary(level + 1)?;
            left = Self::node(Kind::Binary(op, Box::new(left), Box::new(right)), at);
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        let at = self.at;
        if self.is("!") || self.is("-") {
            let op = if self.is("!") { Op::Not } else { Op::Neg };
            self.bump()?;
            // `-9223372036854775808` and `-1` are literals.
            if op == Op::Neg {
                match self.tok {
                    Tok::Uint(9223372036854775808) => {
                        self.bump()?;
                        return self.member_of(Self::node(Kind::Int(i64::MIN), at));
                    }
                    Tok::Int(n) => {
                        self.bump()?;
                        return self.member_of(Self::node(Kind::Int(-n), at));
                    }
                    Tok::Double(d) => {
                        self.bump()?;
                        return self.member_of(Self::node(Kind::Double(-d), at));
                    }
                    _ => {}
                }
            }
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(SyntaxError {
                    message: "the expression nests too deeply".into(),
                    at,
                });
            }
            let operand = self.unary()?;
            self.depth -= 1;
            return Ok(Self::node(Kind::Unary(op, Box::new(operand)), at));
        }
        let primary = self.primary()?;
        self.member_of(primary)
    }

    fn member_of(&mut self, mut e: Expr) -> Result<Expr, SyntaxError> {
        loop {
            let at = self.at;
            if self.is(".") || self.is(".?") {
                let optional = self.is(".?");
                self.bump()?;
                let Tok::Ident(field) = self.tok.clone() else {
                    return Err(self.unexpected("a field name"));
                };
                self.bump()?;
                if self.is("(") && !optional {
                    let args = self.args(")")?;
                    e = Self::node(
                        Kind::Call {
                            target: Some(Box::new(e)),
                            name: field,
                            args,
                        },
                        at,
                    );
                } else {
                    e = Self::node(
                        Kind::Select {
                            operand: Box::new(e),
                            field,
                            optional,
                        },
                        at,
                    );
                }
            } else if self.is("[") {
                self.bump()?;
                let optional = self.is("?");
                if optional {
                    self.bump()?;
                }
                let index = self.expr()?;
                self.expect("]")?;
                e = Self::node(
                    Kind::Index {
                        operand: Box::new(e),
                        index: Box::new(index),
                        optional,
                    },
                    at,
                );
            } else {
                return Ok(e);
            }
        }
    }

    /// `(a, b)` or `[a, b]` after its opening token: the expressions up to `close`.
    fn args(&mut self, close: &str) -> Result<Vec<Expr>, SyntaxError> {
        self.bump()?;
        let mut out = Vec::new();
        while !self.is(close) {
            out.push(self.expr()?);
            if !self.is(close) {
                self.expect(",")?;
            }
        }
        self.bump()?;
        Ok(out)
    }

    fn primary(&mut self) -> Result<Expr, SyntaxError> {
        let at = self.at;
        let tok = self.tok.clone();
        let lit = |k| Ok(Self::node(k, at));
        match tok {
            Tok::Int(n) => {
                self.bump()?;
                lit(Kind::Int(n))
            }
            Tok::Uint(n) => {
                self.bump()?;
                lit(Kind::Uint(n))
            }
            Tok::Double(d) => {
                self.bump()?;
                lit(Kind::Double(d))
            }
            Tok::Str(s) => {
                self.bump()?;
                lit(Kind::String(s))
            }
            Tok::Bytes(b) => {
                self.bump()?;
                lit(Kind::Bytes(b))
            }
            Tok::Ident(word) => {
                self.bump()?;
                match word.as_str() {
                    "true" => return lit(Kind::Bool(true)),
                    "false" => return lit(Kind::Bool(false)),
                    "null" => return lit(Kind::Null),
                    "in" => {
                        return Err(SyntaxError {
                            message: "`in` is an operator, not a name".into(),
                            at,
                        });
                    }
                    w if RESERVED.contains(&w) => {
                        return Err(SyntaxError {
                            message: format!("`{w}` is a reserved word in CEL"),
                            at,
                        });
                    }
                    _ => {}
                }
                if self.is("(") {
                    let args = self.args(")")?;
                    return lit(Kind::Call {
                        target: None,
                        name: word,
                        args,
                    });
                }
                // A qualified message name: `a.b.C{...}` is not allowed here (the API server
                // has no message types), but `Name{}` parses.
                if self.is("{") {
                    self.bump()?;
                    let mut fields = Vec::new();
                    while !self.is("}") {
                        let Tok::Ident(f) = self.tok.clone() else {
                            return Err(self.unexpected("a field name"));
                        };
                        self.bump()?;
                        self.expect(":")?;
                        fields.push((f, self.expr()?));
                        if !self.is("}") {
                            self.expect(",")?;
                        }
                    }
                    self.bump()?;
                    return lit(Kind::Message { name: word, fields });
                }
                lit(Kind::Ident(word))
            }
            Tok::Punct("(") => {
                self.bump()?;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                self.bump()?;
                let mut items = Vec::new();
                while !self.is("]") {
                    let optional = self.is("?");
                    if optional {
                        self.bump()?;
                    }
                    items.push((self.expr()?, optional));
                    if !self.is("]") {
                        self.expect(",")?;
                    }
                }
                self.bump()?;
                lit(Kind::List(items))
            }
            Tok::Punct("{") => {
                self.bump()?;
                let mut entries = Vec::new();
                while !self.is("}") {
                    let optional = self.is("?");
                    if optional {
                        self.bump()?;
                    }
                    let k = self.expr()?;
                    self.expect(":")?;
                    let v = self.expr()?;
                    entries.push((k, v, optional));
                    if !self.is("}") {
                        self.expect(",")?;
                    }
                }
                self.bump()?;
                lit(Kind::Map(entries))
            }
            // A leading dot: `.name` resolves from the root; CRD rules have nothing there
            // but the checker judges the name.
            Tok::Punct(".") => {
                self.bump()?;
                self.primary()
            }
            _ => Err(self.unexpected("an expression")),
        }
    }
}

/// Parses `rule`.
pub fn parse(rule: &str) -> Result<Expr, SyntaxError> {
    let mut p = Parser {
        lexer: Lexer { src: rule, pos: 0 },
        tok: Tok::End,
        at: 0,
        depth: 0,
    };
    p.bump()?;
    if matches!(p.tok, Tok::End) {
        return Err(SyntaxError {
            message: "the rule is empty".into(),
            at: 0,
        });
    }
    let e = p.expr()?;
    if !matches!(p.tok, Tok::End) {
        return Err(p.unexpected("the end of the rule or an operator"));
    }
    Ok(e)
}
