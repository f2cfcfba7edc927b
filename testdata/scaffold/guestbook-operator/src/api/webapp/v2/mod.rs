//! `webapp.example.com/v2`: one module per kind.

mod guestbook;
pub use guestbook::*;
// +operator:scaffold:kinds
