//! Problems, from the first stage to the last, as one type: a [`Diagnostic`] says what is
//! wrong, where, which stage found it, and (when there is one) how to put it right. Only
//! its place changes on the way:
//!
//! - `Diagnostic<Span>` while a syntax tree is at hand (the marker grammar, the derives);
//! - `Diagnostic<Loc>` in the thread-free model (schema building, CRD checks);
//! - `Diagnostic<Location>` when it leaves the library: file, line, column and the excerpt
//!   ([`LocatedError`](crate::LocatedError) is that);
//! - `Diagnostic<()>`: found by a check that does not know where its input was written
//!   (does this default fit this schema?); its caller places it.
//!
//! Stages collect them in [`Diagnostics`] and carry on, so the user sees every problem in
//! one run. Like serde_derive's `Ctxt`, a [`Diagnostics`] must be consumed (checked,
//! placed or handed on) before it is dropped: one that is dropped with problems in it is
//! a bug, and panics rather than lose them silently.

use proc_macro2::Span;
use std::fmt;

/// Which stage found a problem. operator-derive reports [`Origin::Marker`] problems
/// itself, at the marker, on the item that carries it; a kind's `crd()` reports only the
/// others, so one typo is one compile error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// The marker grammar (`operator_gen::internals::markers`): what the derives check on their item.
    Marker,
    /// Everything else: Rust syntax, types, serde shapes, cross-checks against the schema.
    Source,
    /// serde's own refusal of its attributes (an unknown key, a bad rename rule): the
    /// compiler reports it through serde_derive, so the derives leave it to serde.
    Serde,
}

/// One problem, at `at`: what is wrong, which stage found it, and how to put it right.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic<S = Span> {
    /// Where.
    pub at: S,
    /// What is wrong.
    pub message: String,
    /// What to do about it, shown on a `help:` line under the excerpt.
    pub help: Option<String>,
    /// Which stage found it.
    pub origin: Origin,
}

impl<S> Diagnostic<S> {
    /// A problem at `at`, found by `origin`.
    pub fn new(at: S, message: impl Into<String>, origin: Origin) -> Self {
        Self {
            at,
            message: message.into(),
            help: None,
            origin,
        }
    }

    /// The same problem with `help` on what to do about it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The same problem, placed by `f`.
    pub fn map_at<S2>(self, f: impl FnOnce(S) -> S2) -> Diagnostic<S2> {
        Diagnostic {
            at: f(self.at),
            message: self.message,
            help: self.help,
            origin: self.origin,
        }
    }
}

/// A problem found by a check that does not know where its input was written (does this
/// default fit this schema?): its caller places it with [`Diagnostic::placed_at`].
pub type Misfit = Diagnostic<()>;

impl Diagnostic<()> {
    /// A problem whose place the caller knows, found while checking a schema.
    pub fn unplaced(message: impl Into<String>) -> Self {
        Self::new((), message, Origin::Source)
    }

    /// Placed at `at`.
    pub fn placed_at<S>(self, at: S) -> Diagnostic<S> {
        self.map_at(|()| at)
    }

    /// The same problem with `prefix` before its message (`items: `, `default `).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.message.insert_str(0, prefix);
        self
    }
}

impl From<String> for Diagnostic<()> {
    fn from(message: String) -> Self {
        Self::unplaced(message)
    }
}

impl From<&str> for Diagnostic<()> {
    fn from(message: &str) -> Self {
        Self::unplaced(message)
    }
}

/// The message alone (places print themselves where they are known; see `LocatedError`).
impl fmt::Display for Diagnostic<()> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(help) = &self.help {
            write!(f, "; {help}")?;
        }
        Ok(())
    }
}

/// Problems collected by a stage, in the order found. It must be consumed before it is
/// dropped: [`check`](Self::check), [`into_vec`](Self::into_vec),
/// [`into_syn_result`](Self::into_syn_result), [`placed`](Self::placed) or
/// [`append`](Self::append) to another.
#[derive(Debug)]
pub struct Diagnostics<S = Span> {
    items: Vec<Diagnostic<S>>,
    /// Whether the problems were taken.
    consumed: bool,
}

impl<S> Default for Diagnostics<S> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            consumed: false,
        }
    }
}

impl<S> Drop for Diagnostics<S> {
    fn drop(&mut self) {
        if !self.consumed && !self.items.is_empty() && !std::thread::panicking() {
            panic!(
                "operator-gen bug: {} problem(s) collected and never reported (a Diagnostics was dropped unchecked)",
                self.items.len()
            );
        }
    }
}

impl<S> Diagnostics<S> {
    /// No problems yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A problem at `at`, found by the marker grammar (where most span-placed problems
    /// come from).
    pub fn push(&mut self, at: S, message: impl fmt::Display) {
        self.items
            .push(Diagnostic::new(at, message.to_string(), Origin::Marker));
    }

    /// A problem as it is.
    pub fn add(&mut self, diagnostic: Diagnostic<S>) {
        self.items.push(diagnostic);
    }

    /// Takes `other`'s problems.
    pub fn append(&mut self, mut other: Diagnostics<S>) {
        self.items.append(&mut other.take());
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Each, in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic<S>> {
        self.items.iter()
    }

    fn take(&mut self) -> Vec<Diagnostic<S>> {
        self.consumed = true;
        std::mem::take(&mut self.items)
    }

    /// The problems, in the order found.
    pub fn into_vec(mut self) -> Vec<Diagnostic<S>> {
        self.take()
    }

    /// `Ok` when there are none.
    pub fn check(mut self) -> Result<(), Vec<Diagnostic<S>>> {
        let items = self.take();
        if items.is_empty() { Ok(()) } else { Err(items) }
    }

    /// The problems, each placed by `f`.
    pub fn placed<S2>(mut self, mut f: impl FnMut(S) -> S2) -> Vec<Diagnostic<S2>> {
        self.take().into_iter().map(|d| d.map_at(&mut f)).collect()
    }
}

impl Diagnostics<Span> {
    /// Every error of `err` (syn combines several into one), at its span.
    pub fn push_syn(&mut self, err: syn::Error) {
        for e in err {
            self.push(e.span(), e);
        }
    }

    /// All problems as one `syn::Error` (for the proc macros), or `Ok` when there are none.
    /// A help goes under its message, as the compiler prints a note.
    pub fn into_syn_result(mut self) -> syn::Result<()> {
        let mut iter = self.take().into_iter().map(|d| {
            let message = match &d.help {
                Some(help) => format!("{}\n\nhelp: {help}", d.message),
                None => d.message.clone(),
            };
            syn::Error::new(d.at, message)
        });
        let Some(mut err) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            err.combine(e);
        }
        Err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_diagnostics_hand_over_their_problems_in_order() {
        let mut diags: Diagnostics<u32> = Diagnostics::new();
        diags.push(2, "b");
        let mut more = Diagnostics::new();
        more.add(Diagnostic::new(1, "a", Origin::Source).with_help("do this"));
        diags.append(more);
        let problems = diags.check().unwrap_err();
        assert_eq!(problems[0].message, "b");
        assert_eq!(problems[1].help.as_deref(), Some("do this"));
        assert!(Diagnostics::<u32>::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "never reported")]
    fn diagnostics_dropped_unchecked_are_a_bug() {
        let mut diags: Diagnostics<u32> = Diagnostics::new();
        diags.push(1, "lost");
    }
}
