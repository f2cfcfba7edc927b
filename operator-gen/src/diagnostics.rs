//! Error collection. Every stage pushes what it finds wrong into a [`Diagnostics`] and
//! carries on, so the user sees every bad marker in one run (serde_derive's `Ctxt` idea).

use proc_macro2::Span;
use std::fmt;

/// One problem, anchored at the tokens that caused it.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
}

/// A bag of problems. Stages push into it and the caller decides how to report them:
/// operator-derive turns them into `compile_error!`s, operator-gen into `file:line:col` lines.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, span: Span, message: impl fmt::Display) {
        self.items.push(Diagnostic {
            span,
            message: message.to_string(),
        });
    }

    pub fn push_syn(&mut self, err: syn::Error) {
        for e in err {
            self.push(e.span(), e);
        }
    }

    pub fn append(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }

    /// All problems as one `syn::Error` (for the proc macros), or `Ok` when there are none.
    pub fn into_syn_result(self) -> syn::Result<()> {
        let mut iter = self.items.into_iter();
        let Some(first) = iter.next() else {
            return Ok(());
        };
        let mut err = syn::Error::new(first.span, first.message);
        for d in iter {
            err.combine(syn::Error::new(d.span, d.message));
        }
        Err(err)
    }
}
