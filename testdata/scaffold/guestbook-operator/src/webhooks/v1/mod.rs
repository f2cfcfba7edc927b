//! The webhooks of `v1` kinds: one module per kind.

mod guestbook;
pub use guestbook::*;
// +operator:scaffold:webhook-kinds
