//! `webapp.example.com/v1`: one module per kind.

mod guestbook;
pub use guestbook::*;
// +operator:scaffold:kinds
