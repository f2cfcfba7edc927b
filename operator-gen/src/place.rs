//! Places in the sources: the compact [`Loc`] the model and the schema carry, and the
//! [`Location`] (file, line, column, the line's excerpt) a message shows. Every stage
//! names places, so this module sits below all of them and imports none of them.

use std::fmt;
use std::path::PathBuf;

use crate::LocatedError;
use crate::diagnostics::Origin;

/// A compact place in the sources: the file's position among the inputs and the range of
/// the tokens (lines 1-based, columns 0-based in characters, as proc-macro2 counts them).
/// Turned into a [`Location`], with its excerpt, only for a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// The file's index in the run.
    pub file: u32,
    /// The first line (1-based).
    pub line: u32,
    /// The first column (0-based, in characters).
    pub column: u32,
    /// The last line.
    pub end_line: u32,
    /// The column after the last character.
    pub end_column: u32,
}

impl Loc {
    /// Where `span` is, in input `file`.
    pub(crate) fn of(file: usize, span: proc_macro2::Span) -> Self {
        Self::spanning(file, span, span)
    }

    /// From the start of `first` to the end of `last`, in input `file`.
    pub(crate) fn spanning(file: usize, first: proc_macro2::Span, last: proc_macro2::Span) -> Self {
        let (start, end) = (first.start(), last.end());
        Self {
            file: file as u32,
            line: start.line as u32,
            column: start.column as u32,
            end_line: end.line as u32,
            end_column: end.column as u32,
        }
    }
}

/// A place in a source file: where a marker or a declaration was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The file, as given to the generator.
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// The source line, for the excerpt under a message.
    pub snippet: Option<String>,
    /// 0-based character range on `snippet` to underline.
    pub highlight: (usize, usize),
}

impl Location {
    /// `loc` in the file at `path`, whose line `loc.line` is `line_text`.
    pub(crate) fn at(path: &std::path::Path, line_text: Option<&str>, loc: Loc) -> Self {
        let (line, column) = (loc.line as usize, loc.column as usize);
        let end_col = if loc.end_line == loc.line {
            (loc.end_column as usize).max(column + 1)
        } else {
            usize::MAX
        };
        let snippet = line_text.map(str::to_string);
        let width = snippet.as_ref().map_or(0, |s| s.chars().count());
        Self {
            file: path.to_path_buf(),
            line,
            column: column + 1,
            highlight: (column, end_col.min(width.max(column + 1))),
            snippet,
        }
    }

    /// A problem found here by a generator: what it says is wrong with the sources at
    /// this place.
    pub fn error(&self, message: impl Into<String>) -> LocatedError {
        LocatedError::new(self.clone(), message.into(), Origin::Source)
    }
}

/// `file:line:column`, as compilers print a place.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// A value read from the sources, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub at: Location,
}
